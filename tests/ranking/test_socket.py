"""Ranking's socket messages through the real ASGI stack and the rooms consumer: an achievement reaches
the room group as ``{type: "achievement", seat, achievement}``; a queue match reaches the player's
``user-<id>`` group as ``{type: "queue", status: "matched", room}``."""

import pytest
from channels.db import database_sync_to_async

from config.asgi import application
from ranking import services
from rooms import services as rooms_services
from tests.factories import token_for
from tests.ranking.factories import FriendshipFactory, UserFactory, make_game
from tests.rooms.wscomm import WebsocketCommunicator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]

TIMEOUT = 5


async def _open(code, user):
    key = await database_sync_to_async(lambda: token_for(user))()
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def _until(comm, kind, limit=30):
    for _ in range(limit):
        msg = await comm.receive_json_from(timeout=TIMEOUT)
        if msg.get("type") == kind:
            return msg
    raise AssertionError(f"no {kind} message")


@pytest.fixture
def seated(transactional_db):
    """Two registered friends seated in an open 2-seat room: ``(room, a, b)``."""
    a, b = UserFactory(), UserFactory()
    room = rooms_services.room_create(user=a, game="chinchirorin", seats=2)
    rooms_services.room_join(code=room.code, user=b)
    return room, a, b


async def test_achievement_reaches_the_room_sockets(seated):
    room, a, b = seated
    comm = await _open(room.code, b)
    game = await database_sync_to_async(make_game)(
        users=[a, b], places=[2, 1], group=room.group, events=[{"type": "hand", "seat": 1, "hand": "pinzoro"}])
    await database_sync_to_async(services.game_process_finished)(game_id=game.id)
    got = []
    for _ in range(10):
        msg = await _until(comm, "achievement")
        got.append(msg)
        if msg["achievement"]["id"] == "pinzoro":
            break
    assert got[-1] == {"type": "achievement", "seat": 1, "achievement": {
        "id": "pinzoro", "name": "Pinzoro!", "description": "Roll 1-1-1 in Chinchirorin."}}
    await comm.disconnect()


async def test_queue_match_reaches_the_players_socket(seated):
    room, a, b = seated
    c = await database_sync_to_async(UserFactory)()
    await database_sync_to_async(FriendshipFactory)(a=a, b=c)
    comm = await _open(room.code, a)
    await database_sync_to_async(services.queue_join)(user=a, game="chinchon", seats=2)
    entry = await database_sync_to_async(services.queue_join)(user=c, game="chinchon", seats=2)
    assert entry.status == "matched"
    msg = await _until(comm, "queue")
    assert msg == {"type": "queue", "status": "matched", "room": entry.room_code}
    await comm.disconnect()
