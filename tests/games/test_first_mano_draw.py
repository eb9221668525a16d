"""The draw for the first mano (``first_mano: high_card``, the ``traditional`` preset; games.engine.chinchon
``mano_draw``) reaches every seat and the spectators: in the start broadcast's share of each socket, in each
seat's log over REST, and in the room socket's connect snapshot; the view's mano is the draw's. A
``standard`` room has no draw."""

import pytest
from channels.db import database_sync_to_async

from config.asgi import application
from rooms import services
from rooms.models import Room
from tests.factories import UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator

pytestmark = pytest.mark.django_db


def _room(users, rules, spectators=False):
    room = services.room_create(user=users[0], game="chinchon", seats=len(users), rules=rules,
                                spectators_allowed=spectators)
    for u in users[1:]:
        services.room_join(code=room.code, user=u)
    services.room_start(code=room.code, user=users[0])
    return Room.objects.get(pk=room.pk)


def test_every_seat_and_spectator_gets_the_draw(sent, make_client):
    users = [UserFactory() for _ in range(3)]
    room = _room(users, {"preset": "traditional"}, spectators=True)
    # the start broadcast: each seat's share and the spectators' begin with the draw, all the same
    starts = {}
    for group, msg in sent:
        events = msg["payload"]["events"]
        if events and events[0]["seq"] == 0:
            starts[group.rsplit("-", 1)[1]] = events
    assert set(starts) == {"0", "1", "2", "spectators"}
    draws = [events[0] for events in starts.values()]
    assert all(d["type"] == "mano_draw" for d in draws) and all(d == draws[0] for d in draws)
    draw = draws[0]
    assert sorted(draw["rounds"][0]) == ["0", "1", "2"] and draw["mano"] in (0, 1, 2)
    assert [e["type"] for e in starts["spectators"]] == ["mano_draw", "mano", "deal", "turn"]
    # REST: every seat's log and view, and a spectator's
    for user in [*users, UserFactory()]:
        client = make_client(user)
        log = client.get(f"/api/games/{room.game_id}/log").json()["events"]
        assert {k: v for k, v in log[0].items() if k not in ("seq", "index")} == {
            k: v for k, v in draw.items() if k not in ("seq", "index")}
        assert [e["type"] for e in log[:3]] == ["mano_draw", "mano", "deal"]
        view = client.get(f"/api/games/{room.game_id}").json()
        assert view["table"]["mano"] == draw["mano"] == log[1]["seat"]


def test_a_standard_room_has_no_draw(make_client):
    users = [UserFactory() for _ in range(2)]
    room = _room(users, {"preset": "standard"})
    log = make_client(users[1]).get(f"/api/games/{room.game_id}/log").json()["events"]
    assert [e["type"] for e in log] == ["mano", "deal", "hand", "turn"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_channel_layer")
async def test_the_socket_connect_snapshot_carries_the_draw_to_each_seat():
    users = [await database_sync_to_async(UserFactory)() for _ in range(2)]
    room = await database_sync_to_async(_room)(users, {"preset": "traditional"})
    msgs = []
    for user in users:
        key = await database_sync_to_async(token_for)(user)
        comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/?token={key}")
        connected, _ = await comm.connect(timeout=5)
        assert connected
        for _ in range(20):
            msg = await comm.receive_json_from(timeout=5)
            if msg["type"] == "game":
                msgs.append(msg)
                break
        await comm.disconnect()
    assert len(msgs) == 2
    draws = [m["events"][0] for m in msgs]
    assert [d["type"] for d in draws] == ["mano_draw", "mano_draw"] and draws[0] == draws[1]
    assert all(m["view"]["table"]["mano"] == draws[0]["mano"] for m in msgs)


def test_the_schema_lists_the_event(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert "mano_draw" in schema["components"]["schemas"]["LogEventTypeEnum"]["enum"]
