"""XP grants (``xp_grant``, idempotent per user, reason and ref), achievements granting their XP, the
achievement catalogue and per-user progress, and the XP / weekly leaderboards (issue "What client
developers ... miss", items 3 and 4). XP, targets and ranks are worked out by hand from
ranking/achievements.py's table and seed 003's XP (26 a game, 43 a win, 3 a hand, 1 a discard)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ranking import services
from ranking.models import GameRecord, XpGrant
from tests.ranking.factories import FriendshipFactory, GuestFactory, RatingFactory, UserFactory, make_game
from tests.ranking.test_stats import CHINCHIRORIN_EVENTS

pytestmark = pytest.mark.django_db


def test_xp_grant_is_idempotent_per_reason_and_ref():
    u = UserFactory()
    assert services.xp_grant(user_id=u.id, amount=40, reason="challenge", ref="week-48") is True
    assert services.xp_grant(user_id=u.id, amount=40, reason="challenge", ref="week-48") is False
    assert services.xp_grant(user_id=u.id, amount=15, reason="challenge", ref="week-49") is True
    assert services.xp_grant(user_id=u.id, amount=15, reason="achievement", ref="week-49") is True
    assert sorted(XpGrant.objects.filter(user=u).values_list("amount", flat=True)) == [15, 15, 40]
    for bad in (0, -5, True, 2.5):
        with pytest.raises(ValueError):
            services.xp_grant(user_id=u.id, amount=bad, reason="challenge", ref="x")


def test_achievements_grant_their_xp_once(make_client):
    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[1, 2], points=[1500, 500], events=CHINCHIRORIN_EVENTS)
    services.game_process_finished(game_id=g.id)
    services.game_process_finished(game_id=g.id)
    assert dict(XpGrant.objects.filter(user=a, reason="achievement").values_list("ref", "amount")) == {
        "first_game": 10, "first_win": 20, "first_ranked_game": 20, "first_ranked_win": 30, "pinzoro": 30,
        "arashi": 20}
    # a: game XP 26 + 43 + 2 hands x 3 = 75, grants 130 -> 205 (level 2)
    stats = make_client(b).get(f"/api/users/{a.id}/stats").json()
    assert (stats["xp"], stats["level"]) == (205, 2)


def test_catalogue_public_with_xp_targets_and_languages(api):
    res = api.get("/api/achievements")
    assert res.status_code == 200
    rows = {r["id"]: r for r in res.json()}
    assert rows["ten_games"] == {"id": "ten_games", "name": "Regular", "description": "Finish 10 games.",
                                 "xp": 50, "target": 10}
    assert (rows["rating_1600"]["target"], rows["chinchon"]["xp"], rows["comeback"]["target"]) == (1600, 100, 1)
    es = {r["id"]: r for r in api.get("/api/achievements", HTTP_ACCEPT_LANGUAGE="es").json()}
    ja = {r["id"]: r for r in api.get("/api/achievements", HTTP_ACCEPT_LANGUAGE="ja").json()}
    assert (es["first_game"]["name"], es["first_game"]["description"]) == ("Primera partida", "Termina una partida.")
    assert ja["first_game"]["name"] == "初めてのゲーム"
    assert list(es) == list(ja) == list(rows) and es["ten_games"]["xp"] == 50


def test_progress_counts_toward_each_target(make_client):
    a, b = UserFactory(), UserFactory()
    for _ in range(3):  # three games, a wins each (no pinzoro: no events)
        services.game_process_finished(game_id=make_game(users=[a, b], places=[1, 2], ranked=False).id)
    RatingFactory(user=a, rating=1540, games=1)
    res = make_client(b).get(f"/api/users/{a.id}/achievements/progress")
    assert res.status_code == 200
    rows = {r["id"]: r for r in res.json()}
    assert (rows["ten_games"]["progress"], rows["ten_games"]["target"], rows["ten_games"]["earned"]) == (3, 10, False)
    assert rows["ten_games"]["awarded_at"] is None and rows["ten_games"]["game_id"] is None
    first = rows["first_game"]
    assert (first["progress"], first["target"], first["earned"]) == (1, 1, True)
    assert first["awarded_at"].endswith("Z") and first["game_id"] is not None
    assert (rows["first_ranked_game"]["progress"], rows["pinzoro"]["progress"]) == (0, 0)
    assert rows["rating_1600"]["progress"] == 1500  # no rated game recorded: the starting rating
    assert make_client(b).get("/api/users/999999/achievements/progress").status_code == 404


def _record(user, xp, *, days_ago=0):
    g = make_game(users=[user], places=[1], ranked=False)
    GameRecord.objects.create(game=g, user=user, game_name="chinchirorin", seat=0, place=1, seats=2, outcome="win",
                              xp=xp, finished_at=timezone.now() - timedelta(days=days_ago))


def test_xp_leaderboard_all_time_week_and_friends(make_client):
    a, b, c, d = UserFactory(), UserFactory(), GuestFactory(), UserFactory()
    _record(a, 300, days_ago=30)
    _record(a, 20)
    _record(b, 200)
    services.xp_grant(user_id=b.id, amount=120, reason="challenge", ref="c1")  # b: 320
    _record(c, 320)  # a guest with XP is listed
    XpGrant.objects.filter(user=b).update(created_at=timezone.now() - timedelta(days=30))
    UserFactory()  # no XP: not listed
    client = make_client(d)

    def rows(path):
        res = client.get(path)
        assert res.status_code == 200, res.json()
        return [(r["rank"], r["player"]["id"], r["xp"], r["level"]) for r in res.json()["results"]]

    # all time: a 300 + 20, b 200 + 120, c 320: all share rank 1; 320 XP is level 3 (300..599)
    assert rows("/api/leaderboard/xp") == [(1, a.id, 320, 3), (1, b.id, 320, 3), (1, c.id, 320, 3)]
    # this week: a 20, b 200 (the grant is a month old), c 320; levels from all-time XP
    assert rows("/api/leaderboard/xp?period=week") == [(1, c.id, 320, 3), (2, b.id, 200, 3), (3, a.id, 20, 3)]
    FriendshipFactory(a=d, b=b)
    assert rows("/api/leaderboard/xp?scope=friends&period=week") == [(1, b.id, 200, 3)]
    res = client.get("/api/leaderboard/xp?period=month")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["period"])


def test_rating_leaderboard_this_week():
    from ranking.models import RatingChange

    a, b = UserFactory(), UserFactory()
    RatingFactory(user=a, rating=1600, games=4)
    RatingFactory(user=b, rating=1550, games=2)
    g = make_game(users=[a, b], places=[1, 2])
    RatingChange.objects.create(game=g, user=b, game_name="chinchirorin", seat=1, place=1, before=1530, after=1550,
                                change=20, k=40)
    old = make_game(users=[a, b], places=[1, 2])
    RatingChange.objects.create(game=old, user=a, game_name="chinchirorin", seat=0, place=1, before=1580, after=1600,
                                change=20, k=40)
    RatingChange.objects.filter(user=a).update(created_at=timezone.now() - timedelta(days=8))
    from rest_framework.test import APIClient

    from tests.factories import token_for

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(a)}")
    week = client.get("/api/leaderboard?game=chinchirorin&period=week").json()["results"]
    assert [(r["rank"], r["player"]["id"], r["rating"], r["games"]) for r in week] == [(1, b.id, 1550, 1)]
    full = client.get("/api/leaderboard?game=chinchirorin").json()["results"]
    assert [(r["player"]["id"], r["games"]) for r in full] == [(a.id, 4), (b.id, 2)]
