"""The spectators' share of a broadcast is built only while someone watches (issue 16: no view built for
nobody). The game's locked read says whether a spectator socket is open on its room; without one the
broadcast carries ``"unwatched": true`` and no spectators' share, and a spectator socket that opened
meanwhile reads its view from the database (tests/rooms/test_consumers.py)."""

import json

import pytest

from games import selectors, services
from games.models import Game
from rooms import services as room_services
from rooms.models import Spectator
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_spectators_share_is_built_only_while_a_spectator_socket_is_open(monkeypatch):
    raw = []
    monkeypatch.setattr("games.events.group_send_many", lambda messages: raw.extend(messages))
    host, other = UserFactory(), UserFactory()
    room = room_services.room_create(user=host, game="chinchon", seats=2, spectators_allowed=True)
    room_services.room_join(code=room.code, user=other)
    room_services.room_start(code=room.code, user=host)
    room.refresh_from_db()
    game = Game.objects.get(pk=room.game_id)

    def act() -> dict:
        game.refresh_from_db()
        seat, view = next((s, v) for s in (0, 1) if (v := selectors.game_view(game=game, seat=s))["legal_actions"])
        raw.clear()
        services.game_apply_action(game_id=game.pk, actor=(host, other)[seat], expected_seq=view["seq"],
                                   action=dict(view["legal_actions"][0]))
        (message,) = [m for _g, m in raw if m.get("type") == "game.update"]
        assert sorted(message["seats"]) == ["0", "1"]
        return message

    message = act()  # the room lets users watch, but nobody does
    assert "spectators" not in message and message["unwatched"] is True
    watcher = Spectator.objects.create(room=room, user=UserFactory(), connections=1)
    message = act()
    assert "unwatched" not in message
    share = json.loads(message["spectators"]["text"])
    game.refresh_from_db()
    assert (share["view"]["you"], share["view"]["seq"], share["view"]["table"]["hand"]) == (None, game.seq, None)
    watcher.connections = 0  # its last socket closed (the row stays until the room service removes it)
    watcher.save()
    message = act()
    assert "spectators" not in message and message["unwatched"] is True
