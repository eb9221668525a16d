"""Spectators (issue "What client developers ... miss", item 6): off by default; with the host's leave a
signed-in user without a seat GETs the game and its log and opens the room socket as a spectator and gets
the spectator view only (no hand, no stock, no face-down card, no actions) and public events; the room
lists who watches; never while a ranked game is in progress. (Whole games checked card by card for the
spectator: tests/games/test_services.py, the hidden-information tests.)"""

import pytest

from games import services as games_services
from rooms import services
from rooms.models import Room
from tests.factories import GuestFactory, UserFactory

pytestmark = pytest.mark.django_db


def _playing(host, other, game="chinchon", ranked=False):
    room = services.room_create(user=host, game=game, seats=2, ranked=ranked)
    services.room_join(code=room.code, user=other)
    services.room_start(code=room.code, user=host)
    return Room.objects.get(pk=room.pk)


def test_off_by_default_then_the_spectator_view_and_public_log(make_client):
    host, other, watcher = UserFactory(), UserFactory(), GuestFactory()
    room = _playing(host, other)
    client = make_client(watcher)
    for path in (f"/api/games/{room.game_id}", f"/api/games/{room.game_id}/log"):
        res = client.get(path)
        assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    res = make_client(host).patch(f"/api/rooms/{room.code}", {"spectators_allowed": True}, format="json")
    assert (res.status_code, res.json()["spectators_allowed"], res.json()["spectators"]) == (200, True, [])
    view = client.get(f"/api/games/{room.game_id}").json()
    seat_view = make_client(host).get(f"/api/games/{room.game_id}").json()
    assert view["you"] is None and view["legal_actions"] == view["other_actions"] == []
    assert view["table"]["hand"] is None and len(seat_view["table"]["hand"]) == 7
    assert view["table"]["hand_sizes"] == seat_view["table"]["hand_sizes"]
    assert view["table"]["discard_pile"] == seat_view["table"]["discard_pile"]
    assert "stock" not in view["table"] and view["fairness"]["seed"] is None
    log = client.get(f"/api/games/{room.game_id}/log").json()["events"]
    # the deal's public events; each seat's "hand" event (its seven cards) only to that seat
    assert [e["type"] for e in log] == ["mano", "deal", "turn"]
    seat_log = make_client(host).get(f"/api/games/{room.game_id}/log").json()["events"]
    assert [e["type"] for e in seat_log] == ["mano", "deal", "hand", "turn"]
    res = client.post(f"/api/games/{room.game_id}/actions", {"type": "draw", "source": "stock", "seq": 0},
                      format="json")
    assert (res.status_code, res.json()["code"]) == (403, "not_a_player")


def test_ranked_game_in_progress_is_never_watched(make_client):
    host, other = UserFactory(), UserFactory()
    room = _playing(host, other, game="chinchirorin", ranked=True)
    res = make_client(host).patch(f"/api/rooms/{room.code}", {"spectators_allowed": True}, format="json")
    assert res.status_code == 200 and res.json()["spectators_allowed"] is True
    res = make_client(UserFactory()).get(f"/api/games/{room.game_id}")
    assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    games_services.game_abort(game_id=room.game_id, reason="test")
    services.room_game_ended(game_id=room.game_id)
    assert make_client(UserFactory()).get(f"/api/games/{room.game_id}").status_code == 200  # over: watchable


def test_patch_only_spectators_while_playing(make_client):
    host, other = UserFactory(), UserFactory()
    room = _playing(host, other)
    res = make_client(host).patch(f"/api/rooms/{room.code}", {"spectators_allowed": True, "cpu_speed": "fast"},
                                  format="json")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")
    res = make_client(other).patch(f"/api/rooms/{room.code}", {"spectators_allowed": True}, format="json")
    assert (res.status_code, res.json()["code"]) == (403, "not_host")
    assert Room.objects.get(pk=room.pk).spectators_allowed is False
