"""A whole ranked game through the REST API (rooms -> games -> game_finished -> ranking task, Celery eager):
both ratings move exactly as computed by hand, the host and the joiner became friends, and stats/XP and
achievements are recorded."""

import pytest

from ranking.models import GameRecord, RatingChange
from ranking.selectors import are_friends
from tests.ranking.factories import UserFactory

pytestmark = pytest.mark.django_db


def choose(game_id, view):
    """A close when one is offered; else the engine's default (a sensible discard); else the first offer."""
    offered = view["legal_actions"]
    closes = [a for a in offered if a["type"] == "close"]
    if closes:
        return closes[0]
    if view["game"] == "chinchon" and view["phase"] == "discard":
        from games.engine.registry import get_engine
        from games.models import Game

        engine = get_engine("chinchon")
        return engine.default_action(engine.from_dict(Game.objects.get(pk=game_id).state), view["you"])
    return offered[0]


def play_to_the_end(clients, game_id, limit=2000):
    """Each step: whoever is offered something posts an offered action with the view's seq."""
    for _ in range(limit):
        moved = False
        for c in clients:
            view = c.get(f"/api/games/{game_id}").json()
            if view["status"] != "playing":
                return view
            if view["legal_actions"]:
                res = c.post(f"/api/games/{game_id}/actions", {**choose(game_id, view), "seq": view["seq"]},
                             format="json")
                assert res.status_code in (200, 409), res.json()  # 409 stale_seq: another seat moved first
                moved = True
        assert moved, "nobody could move"
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", ["chinchirorin", "chinchon"])
def test_ranked_game_moves_both_ratings_as_computed_by_hand(make_client, django_capture_on_commit_callbacks, game):
    a, b = UserFactory(), UserFactory()
    ca, cb = make_client(a), make_client(b)
    with django_capture_on_commit_callbacks(execute=True):
        res = ca.post("/api/rooms", {"game": game, "seats": 2, "ranked": True}, format="json")
        assert res.status_code == 201, res.json()
        code = res.json()["code"]
        assert cb.post(f"/api/rooms/{code}/join").status_code == 200
    assert are_friends(a.id, b.id)  # joining by code made them friends (rooms.signals.room_joined)
    with django_capture_on_commit_callbacks(execute=True):
        res = ca.post(f"/api/rooms/{code}/start")
        assert res.status_code == 201, res.json()
        game_id = res.json()["game_id"]
        final = play_to_the_end([ca, cb], game_id)
    assert final["status"] == "finished"
    places = {row["seat"]: row["place"] for row in final["result"]["standing"]}
    seat_of = {p["seat"]: p for p in final["players"]}
    assert set(places) == {0, 1} and len(seat_of) == 2
    # two newcomers at 1500, first rated game: K = 40, E = 1/(1 + 10^0) = 0.5
    # winner 40 × (1 - 0.5) = +20, loser 40 × (0 - 0.5) = -20; a draw 40 × (0.5 - 0.5) = 0
    expected = {0: 0, 1: 0} if places[0] == places[1] else {s: (20 if places[s] == 1 else -20) for s in places}
    changes = {c.seat: c for c in RatingChange.objects.filter(game_id=game_id)}
    assert {s: c.change for s, c in changes.items()} == expected
    users = {0: a, 1: b}  # the host sits in seat 0, the joiner in seat 1
    for seat, user in users.items():
        me = make_client(user).get("/api/me").json()
        assert me["ratings"][game] == {"rating": 1500 + expected[seat], "games": 1}
        assert changes[seat].user_id == user.id
    records = list(GameRecord.objects.filter(game_id=game_id))
    assert len(records) == 2
    # the real engines' events were read: every seat finished hands, chinchón seats discarded cards
    assert all(r.hands_finished >= 1 for r in records)
    if game == "chinchon":
        assert sum(r.cards_discarded for r in records) >= 1
    for r in records:
        won = places[r.seat] == 1 and places[1 - r.seat] != 1
        assert r.xp == 26 + (43 if won else 0) + 3 * r.hands_finished + r.cards_discarded
    board = ca.get(f"/api/leaderboard?game={game}&scope=friends").json()
    assert board["count"] == 2
    stats = cb.get(f"/api/users/{a.id}/stats").json()
    assert stats["per_game"][game]["games"] == 1
    assert stats["rating_history"][game][0]["game_id"] == game_id
    assert stats["xp"] >= 26
    assert "first_ranked_game" in [x["id"] for x in cb.get(f"/api/users/{a.id}/achievements").json()]
