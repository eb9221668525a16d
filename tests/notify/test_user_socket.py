"""The user socket ``/ws/me/`` through the real ASGI stack: who may connect, ``hello`` with the games
awaiting the user, ``turn`` when a window of any of their games opens for them, ``invitation`` from a
friend in a room, and friends' ``online`` while the socket is open (issue #39 item 5)."""

import pytest
from channels.db import database_sync_to_async

from config.asgi import application
from games.models import GamePlayer
from ranking.services import friendship_make
from rooms import services
from rooms.models import Room
from tests.factories import UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]

TIMEOUT = 5


def _token(user) -> str:
    return token_for(user)


async def _me(user) -> WebsocketCommunicator:
    key = await database_sync_to_async(_token)(user)
    comm = WebsocketCommunicator(application, f"/ws/me/?token={key}")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def _until(comm, pred, limit: int = 20) -> dict:
    got = []
    for _ in range(limit):
        msg = await comm.receive_json_from(timeout=TIMEOUT)
        got.append(msg)
        if pred(msg):
            return msg
    raise AssertionError(f"no matching message in {got}")


def _room_of_two():
    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=2, rules={"first_dealer": "seat"})
    services.room_join(code=room.code, user=other)
    return room, host, other


async def test_signed_out_socket_is_closed_4401():
    comm = WebsocketCommunicator(application, "/ws/me/?token=nope")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    out = await comm.receive_output(timeout=TIMEOUT)
    assert (out["type"], out.get("code")) == ("websocket.close", 4401)


async def test_turn_on_the_user_socket_when_a_game_awaits_the_player():
    room, host, other = await database_sync_to_async(_room_of_two)()
    comm = await _me(other)
    hello = await comm.receive_json_from(timeout=TIMEOUT)
    assert hello == {"type": "hello", "turns": []}
    await database_sync_to_async(services.room_start)(code=room.code, user=host)
    game_id = await database_sync_to_async(lambda: Room.objects.get(pk=room.pk).game_id)()
    # seat 0 deals first (first_dealer: seat): the window of the bets awaits seat 1, Bob
    awaited = await database_sync_to_async(
        lambda: GamePlayer.objects.get(game_id=game_id, user=other).game.state["awaiting"])()
    assert awaited == [1]
    turn = await _until(comm, lambda m: m["type"] == "turn")
    assert turn == {"type": "turn", "game_id": game_id, "game": "chinchirorin", "room": room.code,
                    "url": f"/room/{room.code}", "deadline": None}
    await comm.send_json_to({"type": "ping"})
    assert await comm.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
    await comm.disconnect()
    again = await _me(other)  # a socket opened later hears of the turn in its hello
    assert await again.receive_json_from(timeout=TIMEOUT) == {
        "type": "hello", "turns": [{"game_id": game_id, "game": "chinchirorin", "room": room.code,
                                    "url": f"/room/{room.code}"}]}
    await again.disconnect()
    host_socket = await _me(host)  # the dealer is not awaited
    assert await host_socket.receive_json_from(timeout=TIMEOUT) == {"type": "hello", "turns": []}
    await host_socket.disconnect()


async def test_invitation_reaches_a_friend_and_online_shows_on_the_friends_list(make_client):
    ann, cid = await database_sync_to_async(lambda: (UserFactory(display_name="Ann"), UserFactory(display_name="Cid")))()
    await database_sync_to_async(friendship_make)(user_a_id=ann.pk, user_b_id=cid.pk, source="request")
    client = await database_sync_to_async(make_client)(ann)

    def friends_online():
        return [(f["player"]["id"], f["online"]) for f in client.get("/api/friends").json()["friends"]]

    assert await database_sync_to_async(friends_online)() == [(cid.pk, False)]
    comm = await _me(cid)
    assert (await comm.receive_json_from(timeout=TIMEOUT))["type"] == "hello"
    assert await database_sync_to_async(friends_online)() == [(cid.pk, True)]
    code = (await database_sync_to_async(client.post)("/api/rooms", {"game": "chinchon"}, format="json")).json()["code"]
    res = await database_sync_to_async(client.post)(f"/api/rooms/{code}/invite", {"user_id": cid.pk}, format="json")
    assert (res.status_code, res.json()) == (200, {"invited": {"id": cid.pk, "display_name": "Cid"}, "room": code})
    msg = await _until(comm, lambda m: m["type"] == "invitation")
    assert msg == {"type": "invitation", "room": code, "invite_url": f"http://testserver/join/{code}",
                   "game": "chinchon", "from": {"id": ann.pk, "display_name": "Ann"}}
    await comm.disconnect()
    assert await database_sync_to_async(friends_online)() == [(cid.pk, False)]


async def test_a_silent_user_socket_is_closed_4408(settings):
    """The user socket shares the rooms' idle close (``config.sockets``): silent for ``WS_IDLE_SECONDS``,
    it is closed with 4408."""
    settings.WS_IDLE_SECONDS = 0.4
    user = await database_sync_to_async(UserFactory)(display_name="Ann")
    comm = await _me(user)
    for _ in range(10):  # its hello first
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            break
    assert (out["type"], out.get("code")) == ("websocket.close", 4408)
