"""Statistics, XP and levels, achievements (awarded once, announced to the room group) and their APIs."""

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from ranking import services
from ranking.achievements import CATALOGUE, level_for, level_xp, xp_for
from ranking.gamelog import seat_facts
from ranking.models import AchievementAward, GameRecord
from tests.ranking.factories import UserFactory, make_game


def ev(type_, **data):
    return {"type": type_, "audience": "all", **data}


CHINCHIRORIN_EVENTS = [
    ev("first_dealer_roll", seat=0, die=6), ev("first_dealer_roll", seat=1, die=2),
    ev("hand", seat=0, hand="pinzoro", value=None), ev("hand", seat=1, hand="hifumi", value=None),
    ev("hand_settled", hand_number=1, points_after={"0": 1200, "1": 800}),
    ev("hand", seat=0, hand="arashi", value=3), ev("hand", seat=1, hand="point", value=4),
    ev("hand_settled", hand_number=2, points_after={"0": 1500, "1": 500}),
]

CHINCHON_EVENTS = [
    ev("deal", hand_number=1, mano=0, seats=[0, 1], discard="3O", stock_size=33),
    ev("discard", seat=0, card="1O"), ev("discard", seat=1, card="2O"), ev("discard", seat=0, card="4O"),
    ev("discard", seat=1, card="5O"), ev("discard", seat=0, card="6O"),
    ev("score", hand_number=1, closer=0, kind="minus_ten", deltas={"0": -10, "1": 30}, scores={"0": -10, "1": 30}),
    ev("deal", hand_number=2, mano=1, seats=[0, 1], discard="3C", stock_size=33),
    ev("discard", seat=1, card="7C"),
    ev("score", hand_number=2, closer=1, kind="chinchon", deltas={}, scores={"0": -10, "1": 30}),
    ev("game_end", standing=[], reason="chinchon"),
]


def test_levels_and_xp():
    assert [level_xp(n) for n in (1, 2, 3, 4, 5, 10)] == [0, 100, 300, 600, 1000, 4500]
    assert [level_for(x) for x in (0, 99, 100, 299, 300, 599, 600, 4499, 4500)] == [1, 1, 2, 2, 3, 3, 4, 9, 10]
    assert level_for(-5) == 1
    # 26 a game, 43 a win, 3 a hand finished, 1 a card discarded
    assert xp_for(won=True, hands_finished=2, cards_discarded=5, resigned=False, played_for=False,
                  eliminated=False) == 26 + 43 + 6 + 5
    assert xp_for(won=False, hands_finished=2, cards_discarded=5, resigned=True, played_for=False,
                  eliminated=False) == 0
    assert xp_for(won=False, hands_finished=2, cards_discarded=5, resigned=False, played_for=True,
                  eliminated=False) == 0
    assert xp_for(won=False, hands_finished=2, cards_discarded=5, resigned=True, played_for=True,
                  eliminated=True) == 26 + 6 + 5


def test_catalogue_has_at_least_12_distinct_entries():
    assert len(CATALOGUE) >= 12
    assert len({a.id for a in CATALOGUE}) == len(CATALOGUE)
    assert all(a.name and a.description for a in CATALOGUE)


def test_gamelog_chinchirorin():
    facts = seat_facts("chinchirorin", 2, CHINCHIRORIN_EVENTS, [{"seat": 0, "place": 1, "points": 1500},
                                                                 {"seat": 1, "place": 2, "points": 500}])
    assert (facts[0].pinzoro, facts[0].arashi, facts[0].hifumi, facts[0].hands_finished) == (1, 1, 0, 2)
    assert (facts[1].hifumi, facts[1].hands_finished, facts[1].was_last, facts[0].was_last) == (1, 2, True, False)
    assert not facts[1].eliminated
    zero = seat_facts("chinchirorin", 2, [], [{"seat": 1, "place": 2, "points": 0}])
    assert zero[1].eliminated


def test_gamelog_chinchon_and_junk():
    facts = seat_facts("chinchon", 2, CHINCHON_EVENTS + [{"type": "discard", "seat": "x"}, "junk", {"no": 1}])
    assert (facts[0].cards_discarded, facts[0].minus_ten, facts[0].hands_finished) == (3, 1, 2)
    assert (facts[1].cards_discarded, facts[1].chinchon, facts[1].was_last) == (3, 1, True)
    out = seat_facts("chinchon", 3, [ev("deal", seats=[0, 1, 2]), ev("out", seat=2, score=105), ev("resign", seat=1)])
    assert out[2].eliminated and out[1].resigned and not out[0].resigned


@pytest.mark.django_db
def test_records_xp_and_achievements_once(django_capture_on_commit_callbacks):
    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[1, 2], points=[1500, 500], events=CHINCHIRORIN_EVENTS,
                  rules={"starting_points": 1000}, group="room-ACH234")
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("room-ACH234", channel)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_process_finished(game_id=g.id)
    ra, rb = GameRecord.objects.get(user=a), GameRecord.objects.get(user=b)
    assert (ra.outcome, ra.xp, ra.pinzoro, ra.arashi, ra.hands_finished, ra.rated) == ("win", 26 + 43 + 6, 1, 1, 2, True)
    assert (rb.outcome, rb.xp, rb.hifumi) == ("loss", 26 + 6, 1)
    got_a = set(AchievementAward.objects.filter(user=a).values_list("achievement", flat=True))
    got_b = set(AchievementAward.objects.filter(user=b).values_list("achievement", flat=True))
    assert got_a == {"first_game", "first_win", "first_ranked_game", "first_ranked_win", "pinzoro", "arashi"}
    assert got_b == {"first_game", "first_ranked_game"}
    messages = []
    for _ in range(len(got_a) + len(got_b)):
        messages.append(async_to_sync(layer.receive)(channel))
    assert all(m["type"] == "room.achievement" and m["payload"]["type"] == "achievement" for m in messages)
    pinzoro = [m["payload"] for m in messages if m["payload"]["achievement"]["id"] == "pinzoro"]
    assert pinzoro == [{"type": "achievement", "seat": 0, "achievement": {
        "id": "pinzoro", "name": "Pinzoro!", "description": "Roll 1-1-1 in Chinchirorin."}}]
    async_to_sync(layer.group_discard)("room-ACH234", channel)

    # again: nothing new
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert services.game_process_finished(game_id=g.id) == {"rated": 2, "recorded": 0, "recorded_ranked": 0}
    assert callbacks == []
    # another game: earned achievements are not awarded twice; new ones are (b's comeback: last after
    # hand 1, then wins; and a hifumi survived)
    g2 = make_game(users=[a, b], places=[2, 1], points=[900, 1100], events=[
        ev("hand", seat=1, hand="hifumi"), ev("hand_settled", points_after={"0": 1100, "1": 900}),
        ev("hand", seat=0, hand="pinzoro"), ev("hand_settled", points_after={"0": 900, "1": 1100})])
    services.game_process_finished(game_id=g2.id)
    assert AchievementAward.objects.filter(user=a, achievement="pinzoro").count() == 1
    new_b = set(AchievementAward.objects.filter(user=b, game=g2).values_list("achievement", flat=True))
    assert new_b == {"first_win", "first_ranked_win", "comeback", "hifumi_survivor"}


@pytest.mark.django_db
def test_unranked_and_cpu_games_count_for_stats_not_ratings():
    a = UserFactory()
    g = make_game(users=[a, None], places=[1, 2], cpus=(1,), ranked=False, events=CHINCHIRORIN_EVENTS)
    services.game_process_finished(game_id=g.id)
    rec = GameRecord.objects.get(user=a)
    assert rec.outcome == "win" and not rec.rated and rec.xp == 75
    assert GameRecord.objects.count() == 1


@pytest.mark.django_db
def test_aborted_game_records_nothing():
    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[1, 2], status="aborted")
    assert services.game_process_finished(game_id=g.id) == {"rated": 0, "recorded": 0, "recorded_ranked": 0}
    assert not GameRecord.objects.exists()


@pytest.mark.django_db
def test_resigned_and_played_for_seats_get_no_xp_unless_eliminated():
    a, b, c, d = (UserFactory() for _ in range(4))
    events = [ev("deal", seats=[0, 1, 2, 3]), ev("discard", seat=1, card="1O"), ev("discard", seat=3, card="2O"),
              ev("score", closer=0, kind="normal", scores={"0": 0, "1": 20, "2": 30, "3": 110}),
              ev("out", seat=3, score=110), ev("resign", seat=3), ev("resign", seat=1)]
    g = make_game(users=[a, b, c, d], places=[1, 2, 3, 4], game="chinchon", played_for=(2,), events=events,
                  reason="last_seat")
    services.game_process_finished(game_id=g.id)
    xp = dict(GameRecord.objects.values_list("seat", "xp"))
    # seat 0 won: 26 + 43 + 3 ; seat 1 resigned: 0 ; seat 2 played for: 0 ; seat 3 out then resigned: 26 + 3 + 1
    assert xp == {0: 72, 1: 0, 2: 0, 3: 30}


@pytest.mark.django_db
def test_stats_and_achievements_api(make_client):
    a, b = UserFactory(), UserFactory()
    g1 = make_game(users=[a, b], places=[1, 2], points=[1500, 500], events=CHINCHIRORIN_EVENTS)
    g2 = make_game(users=[a, b], places=[2, 1], game="chinchon", events=CHINCHON_EVENTS, reason="chinchon",
                   points=[-10, 30])
    g3 = make_game(users=[a, b], places=[1, 1], ranked=False)
    for g in (g1, g2, g3):
        services.game_process_finished(game_id=g.id)
    client = make_client(b)
    res = client.get(f"/api/users/{a.id}/stats")
    assert res.status_code == 200
    body = res.json()
    assert body["player"] == {"id": a.id, "display_name": a.display_name}
    assert (body["games"], body["wins"], body["draws"], body["losses"]) == (3, 1, 1, 1)
    # XP: g1 win 26 + 43 + 2 hands × 3 = 75 ; g2 loss 26 + 2 × 3 + 3 discards = 35 ; g3 draw 26 ; plus the
    # achievements' grants: first_game 10, first_win 20, first_ranked_game 20, first_ranked_win 30,
    # pinzoro 30, arashi 20 (g1), menos_diez 30 (g2)
    assert body["xp"] == 136 + 160
    assert (body["level"], body["level_xp"], body["next_level_xp"]) == (2, 100, 300)
    cr = body["per_game"]["chinchirorin"]
    assert (cr["games"], cr["wins"], cr["draws"], cr["pinzoro"], cr["arashi"], cr["hifumi"]) == (2, 1, 1, 1, 1, 0)
    assert (cr["rating"], cr["rated_games"]) == (1520, 1)
    ch = body["per_game"]["chinchon"]
    assert (ch["games"], ch["losses"], ch["minus_ten"], ch["chinchon"], ch["cards_discarded"]) == (1, 1, 1, 0, 3)
    assert (ch["rating"], ch["rated_games"]) == (1480, 1)
    hist = body["rating_history"]
    assert [(h["game_id"], h["before"], h["after"], h["change"]) for h in hist["chinchirorin"]] == [(g1.id, 1500, 1520, 20)]
    assert [(h["game_id"], h["change"]) for h in hist["chinchon"]] == [(g2.id, -20)]
    assert hist["chinchon"][0]["at"].endswith("Z")
    assert client.get(f"/api/users/{b.id}/stats").json()["per_game"]["chinchon"]["chinchon"] == 1

    res = client.get(f"/api/users/{b.id}/achievements")
    assert res.status_code == 200
    ids = [x["id"] for x in res.json()]
    assert {"first_game", "chinchon", "comeback", "first_win"} <= set(ids)
    assert len(ids) == len(set(ids))
    row = next(x for x in res.json() if x["id"] == "chinchon")
    assert row["game_id"] == g2.id and row["name"] == "¡Chinchón!" and row["awarded_at"].endswith("Z")

    fresh = UserFactory()
    empty = client.get(f"/api/users/{fresh.id}/stats").json()
    assert (empty["games"], empty["xp"], empty["level"]) == (0, 0, 1)
    assert empty["per_game"]["chinchon"]["rating"] == 1500
    assert client.get(f"/api/users/{fresh.id}/achievements").json() == []
    for path in ("/api/users/999999/stats", "/api/users/999999/achievements"):
        res = client.get(path)
        assert res.status_code == 404 and res.json()["code"] == "not_found"
    assert client.get("/api/users/abc/stats").status_code == 404


@pytest.mark.django_db
def test_recording_a_game_costs_the_same_queries_for_any_seat_count():
    """The records, the users' counts and their achievements held are written and read once for the whole
    table, not once a seat: only each achievement earned adds queries (its award, its XP)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    per_award = {}
    for n in (2, 4):
        users = [UserFactory() for _ in range(n)]
        g = make_game(users=users, places=list(range(1, n + 1)), ranked=False, events=CHINCHIRORIN_EVENTS)
        with CaptureQueriesContext(connection) as captured:
            recorded = services.game_record(game_id=g.id)
        assert len(recorded) == n == GameRecord.objects.filter(game=g).count()
        awards = AchievementAward.objects.filter(game=g).count()
        assert awards >= n  # every seat's first game at least
        per_award[n] = len(captured.captured_queries) - 7 * awards  # get_or_create (4), the XP row (3)
    assert per_award[2] == per_award[4], per_award


@pytest.mark.django_db
def test_only_a_ranked_game_recorded_goes_to_the_integrity_check(monkeypatch):
    """``rate_game`` hands a game just recorded to the moderators' integrity check only when it was ranked
    (the flags are about ranked play); an unranked game's records are written all the same."""
    from moderation import tasks as moderation_tasks
    from ranking.tasks import rate_game

    checked = []
    monkeypatch.setattr(moderation_tasks.integrity_check, "delay", lambda game_id: checked.append(game_id))
    a, b = UserFactory(), UserFactory()
    unranked = make_game(users=[a, b], places=[1, 2], ranked=False)
    ranked = make_game(users=[a, b], places=[2, 1], ranked=True)
    assert rate_game(unranked.id) == {"rated": 0, "recorded": 2, "recorded_ranked": 0}
    assert rate_game(ranked.id) == {"rated": 2, "recorded": 2, "recorded_ranked": 2}
    assert rate_game(ranked.id) == {"rated": 2, "recorded": 0, "recorded_ranked": 0}  # again: nothing new
    assert checked == [ranked.id]


@pytest.mark.django_db
def test_an_unranked_game_is_recorded_without_touching_the_rating_tables():
    """Most games are unranked: their processing records each seat and reads neither ratings nor rating
    changes (one query tells the game is unranked, where game_rate's transaction used to)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[2, 1], ranked=False)
    with CaptureQueriesContext(connection) as ctx:
        assert services.game_process_finished(game_id=g.id) == {"rated": 0, "recorded": 2, "recorded_ranked": 0}
    touched = [q["sql"] for q in ctx.captured_queries if '"ranking_rating' in q["sql"]]
    assert touched == []
    assert sorted(GameRecord.objects.filter(game=g).values_list("user_id", "outcome", "rated")) == sorted(
        [(a.id, "loss", False), (b.id, "win", False)])
