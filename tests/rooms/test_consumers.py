"""The room socket (API.md "WebSocket") through the real ASGI stack (``config.asgi.application``) with
``WebsocketCommunicator``: who may connect (4401/4403, origin checks), the messages on connect, per-seat
views in seq order without another seat's cards, chat, actions, errors to the sender only, ping, presence.

Uses the channel layer of the test settings: in-memory without REDIS_URL, channels-redis with it."""

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from django.test import Client

from config.asgi import application
from config.asyncdb import wait_idle
from games import selectors as games_selectors
from games import services as games_services
from games.events import game_share
from games.models import Game, GamePlayer
from rooms import services
from rooms.models import Room, Seat
from tests.factories import UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]

TIMEOUT = 5


def _token(user) -> str:
    return token_for(user)


@pytest.fixture
def players(transactional_db):
    """Two registered users in an open 2-seat room: ``(room, host, other)``."""
    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=2, rules={"first_dealer": "seat"})
    services.room_join(code=room.code, user=other)
    return room, host, other


async def _socket(code: str, user) -> WebsocketCommunicator:
    key = await database_sync_to_async(_token)(user)
    return WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}")


async def _open(code, user) -> WebsocketCommunicator:
    comm = await _socket(code, user)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def _until(comm, pred, limit: int = 50) -> list[dict]:
    """Messages up to and including the first one ``pred`` accepts."""
    got = []
    for _ in range(limit):
        msg = await comm.receive_json_from(timeout=TIMEOUT)
        got.append(msg)
        if pred(msg):
            return got
    raise AssertionError(f"no matching message in {got}")


async def _closed_with(comm) -> int:
    out = await comm.receive_output(timeout=TIMEOUT)
    assert out["type"] == "websocket.close", out
    return out.get("code")


async def _start(room, host) -> int:
    await database_sync_to_async(services.room_start)(code=room.code, user=host)
    return await database_sync_to_async(lambda: Room.objects.get(pk=room.pk).game_id)()


async def _act(game_id, user, seat_view) -> None:
    """Apply the first legal action of ``seat_view`` for ``user`` through the service."""
    action = dict(seat_view["legal_actions"][0])
    await database_sync_to_async(games_services.game_apply_action)(
        game_id=game_id, actor=user, expected_seq=seat_view["seq"], action=action)


async def test_token_socket_without_origin_gets_room_then_game(players):
    room, host, other = players
    comm = await _open(room.code.lower(), host)
    first = await comm.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "room"
    assert first["room"]["code"] == room.code
    game_id = await _start(room, host)
    await comm.disconnect()
    comm = await _open(room.code, host)
    msgs = [await comm.receive_json_from(timeout=TIMEOUT) for _ in range(2)]
    assert [m["type"] for m in msgs] == ["room", "game"]
    assert msgs[1]["view"]["id"] == game_id
    assert msgs[1]["view"]["you"] == 0
    # The message for a seq carries that seq's events (issue 16): the start's, as the log gives them.
    log = await database_sync_to_async(lambda: games_selectors.game_log(game=Game.objects.get(pk=game_id), seat=0))()
    assert msgs[1]["events"] == log["events"] and {e["seq"] for e in log["events"]} == {0}
    await comm.disconnect()


async def test_unseated_and_unauthenticated_sockets_are_closed(players):
    room, host, other = players
    stranger = await database_sync_to_async(UserFactory)()
    comm = await _socket(room.code, stranger)
    assert (await comm.connect(timeout=TIMEOUT))[0]
    assert await _closed_with(comm) == 4403
    comm = await _socket("ZZZZZZ", host)
    await comm.connect(timeout=TIMEOUT)
    assert await _closed_with(comm) == 4403
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/?token=bad")
    await comm.connect(timeout=TIMEOUT)
    assert await _closed_with(comm) == 4401
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/", headers=[(b"origin", b"http://localhost")])
    await comm.connect(timeout=TIMEOUT)
    assert await _closed_with(comm) == 4401


async def test_cookie_socket_needs_an_allowed_origin(players):
    room, host, other = players

    def session_cookie():
        client = Client()
        client.force_login(host)
        return client.cookies["sessionid"].value

    cookie = f"sessionid={await database_sync_to_async(session_cookie)()}".encode()
    bad = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/",
                                headers=[(b"cookie", cookie), (b"origin", b"https://evil.example")])
    connected, _ = await bad.connect(timeout=TIMEOUT)
    assert not connected
    good = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/",
                                 headers=[(b"cookie", cookie), (b"origin", b"http://localhost")])
    assert (await good.connect(timeout=TIMEOUT))[0]
    assert (await good.receive_json_from(timeout=TIMEOUT))["type"] == "room"
    await good.disconnect()


async def test_each_seat_gets_its_own_views_in_seq_order(transactional_db):
    host, other = await database_sync_to_async(UserFactory)(), await database_sync_to_async(UserFactory)()
    room = await database_sync_to_async(services.room_create)(user=host, game="chinchon", seats=2)
    await database_sync_to_async(services.room_join)(code=room.code, user=other)
    game_id = await _start(room, host)
    socks = {0: await _open(room.code, host), 1: await _open(room.code, other)}
    users = {0: host, 1: other}
    latest = {}
    for seat, comm in socks.items():
        msgs = await _until(comm, lambda m: m["type"] == "game")
        latest[seat] = msgs[-1]["view"]
    seen = {0: [latest[0]["seq"]], 1: [latest[1]["seq"]]}
    for _ in range(6):  # six actions by whoever is awaited, each broadcast to both seats
        seat = latest[0]["turn"]
        await _act(game_id, users[seat], latest[seat])
        for s, comm in socks.items():
            msgs = await _until(comm, lambda m, last=seen[s][-1]: m["type"] == "game" and m["view"]["seq"] > last)
            view = msgs[-1]["view"]
            seen[s].append(view["seq"])
            latest[s] = view
            assert view["you"] == s
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    for s in (0, 1):
        assert seen[s] == list(range(0, 7))
        own = sorted(game.state["hands"][s])
        assert sorted(latest[s]["table"]["hand"]) == own
        other_cards = set(game.state["hands"][1 - s]) - set(game.state["hands"][s])
        text = json.dumps(latest[s])
        assert not any(f'"{c}"' in text for c in other_cards - set(latest[s]["table"]["discard_pile"]))
    for comm in socks.values():
        await comm.disconnect()


async def test_chat_reaches_every_seat(players):
    room, host, other = players
    a, b = await _open(room.code, host), await _open(room.code, other)
    await a.send_json_to({"type": "chat", "text": "  hi all  "})
    for comm in (a, b):
        msgs = await _until(comm, lambda m: m["type"] == "chat")
        assert msgs[-1]["message"]["text"] == "hi all"
        assert msgs[-1]["message"]["display_name"] == "Ann"
        assert msgs[-1]["message"]["seat"] == 0
    await a.send_json_to({"type": "chat", "text": ""})
    err = await _until(a, lambda m: m["type"] == "error")
    assert err[-1]["code"] == "invalid"
    await a.disconnect()
    await b.disconnect()


async def test_actions_over_the_socket_and_errors_only_to_the_sender(players):
    room, host, other = players
    game_id = await _start(room, host)
    a, b = await _open(room.code, host), await _open(room.code, other)
    views = {}
    for seat, comm in ((0, a), (1, b)):
        views[seat] = (await _until(comm, lambda m: m["type"] == "game"))[-1]["view"]
    # seat 0 deals (first_dealer: seat); seat 1 is awaited for its bet
    assert views[1]["awaiting"] == [1]
    bet = views[1]["legal_actions"][0]
    await b.send_json_to({"type": "action", "action": {**bet, "seq": views[1]["seq"]}, "action_id": "b-1"})
    for comm in (a, b):
        msg = (await _until(comm, lambda m: m["type"] == "game" and m["view"]["seq"] == 1))[-1]
        assert msg["events"]
    # a stale seq: the error goes to the sender only, with its action_id
    await b.send_json_to({"type": "action", "action": {"type": "roll", "seq": 0}, "action_id": "b-2"})
    err = (await _until(b, lambda m: m["type"] == "error"))[-1]
    assert (err["code"], err["action_id"], err["seq"]) == ("stale_seq", "b-2", 1)
    assert err["view"]["you"] == 1
    await b.send_json_to({"type": "action", "action": "roll"})
    assert (await _until(b, lambda m: m["type"] == "error"))[-1]["code"] == "invalid_action"
    await b.send_json_to({"type": "dance"})
    assert (await _until(b, lambda m: m["type"] == "error"))[-1]["code"] == "invalid"
    await b.send_to(text_data="{not json")
    assert (await _until(b, lambda m: m["type"] == "error"))[-1]["code"] == "parse_error"
    await b.send_json_to({"type": "ping"})
    assert (await _until(b, lambda m: m["type"] == "pong"))[-1] == {"type": "pong"}
    assert await a.receive_nothing(timeout=0.3)  # none of b's errors reached a
    assert (await database_sync_to_async(Game.objects.get)(pk=game_id)).seq == 1
    await a.disconnect()
    await b.disconnect()


async def test_presence_counts_sockets_per_seat(players):
    room, host, other = players
    game_id = await _start(room, host)

    def state():
        seat = Seat.objects.get(room=room, index=1)
        gp = GamePlayer.objects.get(game_id=game_id, seat=1)
        return seat.connections, gp.connected

    assert await database_sync_to_async(state)() == (0, False)
    one, two = await _open(room.code, other), await _open(room.code, other)
    for comm in (one, two):  # the room message comes after the socket is counted
        await _until(comm, lambda m: m["type"] == "room")
    assert await database_sync_to_async(state)() == (2, True)
    await one.disconnect()
    assert await database_sync_to_async(state)() == (1, True)
    await two.disconnect()
    assert await database_sync_to_async(state)() == (0, False)
    # the host's socket saw the room and the presence change
    a = await _open(room.code, host)
    b = await _open(room.code, other)
    msgs = await _until(a, lambda m: m["type"] == "presence" and m["seat"] == 1 and m["connected"])
    assert msgs[-1]["connected"] is True
    await b.disconnect()
    await a.disconnect()


async def test_a_removed_player_socket_is_closed(players):
    room, host, other = players
    b = await _open(room.code, other)
    await database_sync_to_async(services.room_clear_seat)(code=room.code, user=host, index=1)
    assert await _closed_with_after_messages(b) == 4403


async def test_a_room_message_older_than_the_sockets_snapshot_is_dropped(players):
    """A ``room`` message published before a socket's snapshot was read can reach the room's group after
    it (sends are handed to each server's loop, and another server's may come first). The socket drops it:
    the client never goes back to an older room, and a message from before the user joined (not listing
    them) does not close their socket. A newer one goes through."""
    from channels.layers import get_channel_layer

    room, host, other = players
    b = await _open(room.code, other)
    snapshot = (await _until(b, lambda m: m["type"] == "room"))[-1]["room"]
    version = snapshot["version"]
    before_join = {**snapshot, "version": version - 1,
                   "seats": [{**s, "user": None} if s["index"] == 1 else s for s in snapshot["seats"]]}
    layer = get_channel_layer()
    group = f"room-{room.code}"
    await layer.group_send(group, {"type": "room.update", "payload": {"type": "room", "room": before_join}})
    await layer.group_send(group, {"type": "room.update", "payload": {"type": "room", "room": snapshot}})
    assert await b.receive_nothing(timeout=0.5)  # both dropped: the socket stays open
    newer = {**snapshot, "version": version + 1}
    await layer.group_send(group, {"type": "room.update", "payload": {"type": "room", "room": newer}})
    assert (await b.receive_json_from(timeout=TIMEOUT))["room"]["version"] == version + 1
    await b.disconnect()


async def _closed_with_after_messages(comm) -> int:
    for _ in range(10):
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return out.get("code")
    raise AssertionError("not closed")


async def test_a_silent_socket_is_closed(players, settings):
    settings.WS_IDLE_SECONDS = 0.4
    room, host, other = players
    comm = await _open(room.code, host)
    await asyncio.sleep(0.1)
    assert await _closed_with_after_messages(comm) == 4408


async def test_a_player_who_left_mid_game_is_back_on_reconnecting(players):
    room, host, other = players
    game_id = await _start(room, host)
    await database_sync_to_async(services.room_leave)(code=room.code, user=other)

    def left():
        return (Seat.objects.get(room=room, index=1).left,
                GamePlayer.objects.get(game_id=game_id, seat=1).left)

    assert await database_sync_to_async(left)() == (True, True)
    comm = await _open(room.code, other)  # the same token, a new socket
    msgs = await _until(comm, lambda m: m["type"] == "game")
    assert msgs[0]["room"]["seats"][1]["left"] is False
    assert await database_sync_to_async(left)() == (False, False)
    await comm.disconnect()


async def test_a_client_gone_during_a_send_releases_its_seat(players, monkeypatch):
    """A send that finds the client gone (uvicorn raises ClientDisconnected) ends the consumer before
    Channels calls ``disconnect``: the socket must still be uncounted, so the seat is not connected for
    good (and can turn away after the grace period)."""
    from channels.generic.websocket import AsyncWebsocketConsumer

    room, host, _other = players
    game_id = await _start(room, host)
    real_send = AsyncWebsocketConsumer.send
    calls = {"n": 0}

    async def flaky_send(self, text_data=None, bytes_data=None, close=False):
        calls["n"] += 1
        if calls["n"] == 2:  # the `game` message after `room`: the client has just closed
            raise OSError("client disconnected")
        await real_send(self, text_data=text_data, bytes_data=bytes_data, close=close)

    monkeypatch.setattr(AsyncWebsocketConsumer, "send", flaky_send)
    comm = await _socket(room.code, host)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    assert (await comm.receive_json_from(timeout=TIMEOUT))["type"] == "room"
    # The release runs on the socket's database thread, beside this test's reads: wait for it (≤ TIMEOUT).
    for _ in range(int(TIMEOUT / 0.05)):
        seat = await database_sync_to_async(Seat.objects.get)(room=room, user=host)
        if seat.connections == 0:
            break
        await asyncio.sleep(0.05)
    gp = await database_sync_to_async(GamePlayer.objects.get)(game_id=game_id, seat=seat.index)
    assert seat.connections == 0
    assert gp.connected is False and gp.disconnected_at is not None
    await comm.disconnect()


async def test_socket_path_without_trailing_slash_works_and_unknown_paths_are_refused(players):
    room, host, _other = players
    key = await database_sync_to_async(_token)(host)
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}?token={key}")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    assert (await comm.receive_json_from(timeout=TIMEOUT))["type"] == "room"
    await comm.disconnect()
    for path in (f"/ws/nothing/?token={key}", f"/ws/rooms/{room.code}/extra/?token={key}"):
        comm = WebsocketCommunicator(application, path)
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected is False, path


async def test_connecting_to_a_game_sends_its_view_once(players):
    """The snapshot on connect and the broadcast of the seat's own presence carry the same view: the
    socket sends it once."""
    room, host, _other = players
    await _start(room, host)
    comm = await _open(room.code, host)
    got = []
    while not await comm.receive_nothing(timeout=1.0):
        got.append(await comm.receive_json_from(timeout=TIMEOUT))
    games = [m for m in got if m["type"] == "game"]
    assert len(games) == 1, [m["type"] for m in got]
    assert games[0]["view"]["seq"] == 0
    await comm.disconnect()


async def test_a_game_started_while_players_are_connected_shows_them_connected(players):
    """Players usually sit in the room with their sockets open when the host starts: the new game's
    seats start connected (and turn away only once their last socket closes)."""
    room, host, other = players
    comm = await _open(room.code, host)
    await comm.receive_json_from(timeout=TIMEOUT)  # room
    game_id = await _start(room, host)
    flags = await database_sync_to_async(
        lambda: dict(GamePlayer.objects.filter(game_id=game_id).values_list("seat", "connected")))()
    host_seat = await database_sync_to_async(lambda: Seat.objects.get(room=room, user=host).index)()
    assert flags[host_seat] is True and flags[1 - host_seat] is False
    await comm.disconnect()
    gp = await database_sync_to_async(GamePlayer.objects.get)(game_id=game_id, seat=host_seat)
    assert gp.connected is False and gp.disconnected_at is not None


async def test_a_socket_follows_its_seat_when_an_auto_start_moves_it(transactional_db):
    """``seats: "auto"``: seat 1 left empty, the player of seat 2 plays seat 1; its open socket gets seat 1's
    views and, closed, uncounts seat 1."""

    def setup():
        host, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
        room = services.room_create(user=host, game="chinchirorin", seats="auto", rules={"first_dealer": "seat"})
        Seat.objects.filter(room=room, index=2).update(user=bob)
        return room, host, bob

    room, host, bob = await database_sync_to_async(setup)()
    comm = await _open(room.code, bob)
    await _until(comm, lambda m: m["type"] == "room")
    game_id = await _start(room, host)
    got = await _until(comm, lambda m: m["type"] == "game")
    assert got[-1]["view"]["id"] == game_id and got[-1]["view"]["you"] == 1
    await comm.disconnect()
    seat = await database_sync_to_async(lambda: Seat.objects.get(room=room, user=bob))()
    assert (seat.index, seat.connections) == (1, 0)


async def test_an_auto_start_that_moves_two_players_never_shows_one_the_others_view(transactional_db):
    """``seats: "auto"`` with seat 1 empty: Bob (seat 2) plays seat 1 and Cy (seat 3) seat 2. The new game's
    broadcast goes out before the room message that tells Bob's socket of its new seat, so the share of
    seat 2 (Cy's hand) reaches his socket while it still holds seat 2: it must not forward it. Every
    ``game`` message Bob's socket gets is his own seat's, and his view only holds his own cards."""

    def setup():
        host, bob, cy = UserFactory(display_name="Ann"), UserFactory(display_name="Bob"), UserFactory(display_name="Cy")
        room = services.room_create(user=host, game="chinchon", seats="auto")
        Seat.objects.filter(room=room, index=2).update(user=bob)
        Seat.objects.filter(room=room, index=3).update(user=cy)
        return room, host, bob, cy

    room, host, bob, cy = await database_sync_to_async(setup)()
    socks = {bob.pk: await _open(room.code, bob), cy.pk: await _open(room.code, cy)}
    for comm in socks.values():
        await _until(comm, lambda m: m["type"] == "room")
    game_id = await _start(room, host)
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    seats = await database_sync_to_async(lambda: {p.user_id: p.seat for p in GamePlayer.objects.filter(game=game)})()
    assert (seats[bob.pk], seats[cy.pk]) == (1, 2)
    for user_id, comm in socks.items():
        mine = seats[user_id]
        got = await _until(comm, lambda m, mine=mine: m["type"] == "game" and m["view"]["you"] == mine)
        await comm.send_json_to({"type": "ping"})
        got += await _until(comm, lambda m: m["type"] == "pong")
        views = [m["view"] for m in got if m["type"] == "game"]
        assert [v["you"] for v in views] == [seats[user_id]] * len(views), (user_id, [v["you"] for v in views])
        assert all(sorted(v["table"]["hand"]) == sorted(game.state["hands"][seats[user_id]]) for v in views)
    for comm in socks.values():
        await comm.disconnect()


async def test_token_socket_from_a_browser_needs_an_origin_the_api_serves(players, settings):
    """A page on another site gets no socket unless its origin is in CORS_ALLOWED_ORIGINS (as its API
    calls get no CORS answer); the service's own hosts and apps sending no Origin always connect."""
    room, host, _other = players
    key = await database_sync_to_async(_token)(host)
    settings.CORS_ALLOWED_ORIGINS = ["https://client.example"]
    path = f"/ws/rooms/{room.code}/?token={key}"
    for origin, accepted in [(b"https://evil.example", False), (b"http://client.example", False),
                             (b"https://client.example:8443", False), (b"https://client.example", True),
                             (b"http://localhost:8000", True), (None, True)]:
        comm = WebsocketCommunicator(application, path, headers=[(b"origin", origin)] if origin else [])
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected is accepted, origin
        if connected:
            assert (await comm.receive_json_from(timeout=TIMEOUT))["type"] == "room"
            await comm.disconnect()


async def test_room_invite_url_is_the_address_the_socket_came_to(players, settings):
    room, host, _other = players
    key = await database_sync_to_async(_token)(host)
    settings.PUBLIC_URL = ""
    settings.ALLOWED_HOSTS = ["play.example"]
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/?token={key}",
                                 headers=[(b"host", b"play.example:8443")])
    assert (await comm.connect(timeout=TIMEOUT))[0]
    first = await comm.receive_json_from(timeout=TIMEOUT)
    assert first["room"]["invite_url"] == f"http://play.example:8443/join/{room.code}"
    # a broadcast (built with no request) reaches this socket with its own address too
    await database_sync_to_async(services.room_update)(code=room.code, user=host, data={"cpu_speed": "fast"})
    update = (await _until(comm, lambda m: m["type"] == "room" and m["room"]["cpu_speed"] == "fast"))[-1]
    assert update["room"]["invite_url"] == f"http://play.example:8443/join/{room.code}"
    await comm.disconnect()
    settings.PUBLIC_URL = "https://chinchi.example"
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/?token={key}",
                                 headers=[(b"host", b"play.example:8443")])
    assert (await comm.connect(timeout=TIMEOUT))[0]
    assert (await comm.receive_json_from(timeout=TIMEOUT))["room"]["invite_url"] == (
        f"https://chinchi.example/join/{room.code}")
    await comm.disconnect()


# ------------------------------------------------------------------------------------------ spectators
async def test_spectator_socket_sees_the_spectator_view_and_is_listed(transactional_db):
    """A spectator's socket (the room lets users watch): listed in the room's ``spectators``, gets the
    spectator view and public events only, may not chat, and is closed (4403) when watching is turned off."""

    def setup():
        host, other, watcher = UserFactory(), UserFactory(), UserFactory(display_name="Watcher")
        room = services.room_create(user=host, game="chinchon", seats=2, spectators_allowed=True)
        services.room_join(code=room.code, user=other)
        return room, host, other, watcher

    room, host, other, watcher = await database_sync_to_async(setup)()
    comm = await _open(room.code, watcher)
    first = await _until(comm, lambda m: m["type"] == "room" and m["room"]["spectators"])
    assert first[-1]["room"]["spectators"][0]["display_name"] == "Watcher"
    await database_sync_to_async(services.room_start)(code=room.code, user=host)
    got = await _until(comm, lambda m: m["type"] == "game")
    view = got[-1]["view"]
    assert view["you"] is None and view["table"]["hand"] is None and view["legal_actions"] == []
    assert all(e["type"] != "hand" for e in got[-1]["events"])
    game_id = view["id"]

    def act():
        from games import selectors
        from games.models import Game

        game = Game.objects.get(pk=game_id)
        seat = selectors.game_view(game=game, seat=0)
        who, v = (host, seat) if seat["legal_actions"] else (other, selectors.game_view(game=game, seat=1))
        games_services.game_apply_action(game_id=game_id, actor=who, expected_seq=v["seq"],
                                         action={"type": "draw", "source": "stock"})

    await database_sync_to_async(act)()
    got = await _until(comm, lambda m: m["type"] == "game" and m["view"]["seq"] == 1)
    assert got[-1]["view"]["you"] is None and got[-1]["view"]["table"]["hand"] is None
    assert [e["type"] for e in got[-1]["events"]] == ["draw"]  # not the "drawn" card, which is the drawer's
    await comm.send_json_to({"type": "chat", "text": "hi"})
    err = await _until(comm, lambda m: m["type"] == "error")
    assert err[-1]["code"] == "not_a_player"
    await database_sync_to_async(services.room_update)(code=room.code, user=host,
                                                        data={"spectators_allowed": False})
    assert await _closed_with_after(comm) == 4403
    # The socket's release runs on its database thread after the close: wait for it (≤ TIMEOUT).
    for _ in range(int(TIMEOUT / 0.05)):
        spectators = await database_sync_to_async(lambda: list(Room.objects.get(pk=room.pk).spectators.all()))()
        if not spectators:
            break
        await asyncio.sleep(0.05)
    assert spectators == []


async def _closed_with_after(comm) -> int:
    """The close code, after any messages still queued before it."""
    for _ in range(20):
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return out.get("code")
    raise AssertionError("not closed")


async def test_no_spectator_socket_when_watching_is_off(transactional_db):
    def setup():
        host = UserFactory()
        return services.room_create(user=host, game="chinchirorin", seats=2), UserFactory()

    room, stranger = await database_sync_to_async(setup)()
    comm = await _open(room.code, stranger)
    assert await _closed_with(comm) == 4403


async def test_a_broadcast_reaches_each_socket_as_its_own_seats_share_only(transactional_db):
    """One ``game.update`` to the room's group carries every seat's payload; each seated socket forwards
    its own seat's only, a spectator the spectators' only, and nothing when the message has no share for it
    (a ranked game in progress is broadcast without one). Marked payloads show which share went where."""

    def setup():
        host, other, watcher = UserFactory(), UserFactory(), UserFactory()
        room = services.room_create(user=host, game="chinchon", seats=2, spectators_allowed=True)
        services.room_join(code=room.code, user=other)
        return room, host, other, watcher

    room, host, other, watcher = await database_sync_to_async(setup)()
    game_id = await _start(room, host)
    socks = {0: await _open(room.code, host), 1: await _open(room.code, other), None: await _open(room.code, watcher)}
    for comm in socks.values():
        await _until(comm, lambda m: m["type"] == "game")
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)

    def share(mark: str, user=None) -> dict:  # a view of the next seq, which no socket has yet; no gap to fill
        view = {"id": game_id, "seq": game.seq + 1, "mark": mark}
        return game_share({"type": "game", "view": view, "events": []}, user_id=user.pk if user else None)

    layer = channel_layers["default"]
    await layer.group_send(game.group, {"type": "game.update", "after": game.seq,
                                        "seats": {"0": share("seat 0", host), "1": share("seat 1", other)}})
    await layer.group_send(game.group, {"type": "room.chat", "payload": {"type": "chat", "text": "end"}})
    for who, comm in socks.items():
        got = await _until(comm, lambda m: m["type"] == "chat")
        games = [m["view"]["mark"] for m in got if m["type"] == "game"]
        assert games == ([] if who is None else [f"seat {who}"]), (who, got)
    await layer.group_send(game.group, {"type": "game.update", "after": game.seq + 1, "spectators": share("x"),
                                        "seats": {"0": share("seat 0", host), "1": share("seat 1", other)}})
    got = await _until(socks[None], lambda m: m["type"] == "game")
    assert got[-1]["view"]["mark"] == "x"
    for comm in socks.values():
        await comm.disconnect()


async def test_socket_messages_do_not_queue_on_the_shared_sync_thread(players, monkeypatch):
    """Channels' dispatch awaits ``aclose_old_connections()`` (a thread-sensitive ``sync_to_async``: one
    thread for the whole process) before every handler; the room consumer, whose database work goes
    through ``config.asyncdb.db_call``, skips it: a ping, a broadcast and a presence change reach the
    socket without it."""
    import channels.consumer

    calls = []

    async def counted():
        calls.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    room, host, other = players
    comm = await _open(room.code, host)
    await _until(comm, lambda m: m["type"] == "room")
    await comm.send_json_to({"type": "ping"})
    assert (await _until(comm, lambda m: m["type"] == "pong"))[-1] == {"type": "pong"}
    game_id = await _start(room, host)
    got = await _until(comm, lambda m: m["type"] == "game")
    assert got[-1]["view"]["id"] == game_id
    b = await _open(room.code, other)
    await _until(comm, lambda m: m["type"] == "presence" and m["seat"] == 1 and m["connected"])
    assert calls == []
    await b.disconnect()
    await comm.disconnect()


async def test_a_spectator_reads_its_view_when_a_broadcast_was_built_for_nobody(transactional_db, monkeypatch):
    """A broadcast built while no spectator socket was counted has no spectators' share (``unwatched``):
    a spectator socket that opened meanwhile reads the spectator view of the game from the database (with
    the seq's public events), and never gets a seat's share."""
    from games import events as game_events
    from games.models import Game

    def setup():
        host, other, watcher = UserFactory(), UserFactory(), UserFactory()
        room = services.room_create(user=host, game="chinchon", seats=2, spectators_allowed=True)
        services.room_join(code=room.code, user=other)
        services.room_start(code=room.code, user=host)
        return Room.objects.get(pk=room.pk), host, other, watcher

    room, host, other, watcher = await database_sync_to_async(setup)()
    comm = await _open(room.code, watcher)
    got = await _until(comm, lambda m: m["type"] == "game")
    assert got[-1]["view"]["seq"] == 0

    def act_unbroadcast():
        game = Game.objects.get(pk=room.game_id)
        seat = next(s for s in (0, 1) if games_selectors.game_view(game=game, seat=s)["legal_actions"])
        view = games_selectors.game_view(game=game, seat=seat)
        games_services.game_apply_action(game_id=game.pk, actor=(host, other)[seat], expected_seq=view["seq"],
                                         action={"type": "draw", "source": "stock"})
        return seat

    monkeypatch.setattr(game_events, "publish", lambda build: None)  # the action's own broadcast is lost
    seat = await database_sync_to_async(act_unbroadcast)()
    secret = game_share({"type": "game", "view": {"id": room.game_id, "seq": 1, "you": seat, "table": "SEAT"},
                         "events": []}, user_id=(host, other)[seat].pk)
    await channel_layers["default"].group_send(f"room-{room.code}", {
        "type": "game.update", "after": 0, "seats": {str(seat): secret}, "unwatched": True})
    got = await _until(comm, lambda m: m["type"] == "game")
    view = got[-1]["view"]
    assert (view["seq"], view["you"], view["table"]["hand"], view["legal_actions"]) == (1, None, None, [])
    assert [e["type"] for e in got[-1]["events"]] == ["draw"]  # not the "drawn" card, which is the drawer's
    assert "SEAT" not in json.dumps(got)
    reads = []
    monkeypatch.setattr("rooms.consumers._spectators_game", lambda room_id: reads.append(room_id))
    await channel_layers["default"].group_send(f"room-{room.code}", {
        "type": "game.update", "after": 0, "seats": {str(seat): secret}, "unwatched": True})
    await comm.send_json_to({"type": "ping"})
    assert (await _until(comm, lambda m: True))[-1] == {"type": "pong"}  # a seq it has: nothing read, nothing sent
    assert reads == []
    await comm.disconnect()


@pytest.mark.redis
async def test_a_closed_socket_leaves_no_channel_in_the_pubsub_layer(players, settings):
    """channels-redis forgets a channel only when a ``receive`` on it is cancelled while waiting; at a
    close a message has just come in (the room broadcast of the socket's own release), so Channels' own
    cancellation finds that ``receive`` finished and nothing was dropped: each closed socket left a queue
    in the process and a Redis subscription for good. The consumer drops its channel itself."""
    import redis

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                                           "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": "leaktest"}}}
    channel_layers.backends.clear()
    room, host, other = players
    client = redis.Redis.from_url(settings.REDIS_URL)

    def specific() -> list:
        return [c for c in client.pubsub_channels("leaktest*") if b"specific" in c]

    socks = [await _open(room.code, user) for user in (host, other)]
    for comm in socks:
        await _until(comm, lambda m: m["type"] == "room")
    assert len(await asyncio.to_thread(specific)) == 2
    layer = channel_layers["default"]
    for comm in socks:
        await comm.disconnect()
    await asyncio.to_thread(wait_idle)
    for _ in range(int(TIMEOUT / 0.05)):
        if not await asyncio.to_thread(specific):
            break
        await asyncio.sleep(0.05)
    assert await asyncio.to_thread(specific) == []
    assert all(not loop_layer.channels for loop_layer in layer._layers.values())
    client.close()


async def test_a_message_over_64_kib_is_refused_unparsed_and_the_socket_stays_open(players, monkeypatch):
    """As a REST body over 64 KiB is (413 ``too_large``): the socket answers ``too_large`` without parsing
    it, counted in UTF-8 (a message of 64 Ki characters, 3 bytes each, is over), and goes on serving."""
    from rooms import consumers

    parsed = []
    monkeypatch.setattr(consumers, "loads_strict", lambda data: parsed.append(len(data)) or json.loads(data))
    room, host, other = players
    comm = await _open(room.code, host)
    await _until(comm, lambda m: m["type"] == "room")
    limit = 64 * 1024
    for text in ('{"type": "ping", "x": "' + "a" * limit + '"}', '{"type": "ping", "x": "' + "€" * (limit // 3) + '"}'):
        await comm.send_to(text_data=text)
        assert (await _until(comm, lambda m: m["type"] == "error"))[-1] == {
            "type": "error", "code": "too_large", "detail": "Message over 64 KiB."}
    await comm.send_to(bytes_data=b" " * (limit + 1))
    assert (await _until(comm, lambda m: m["type"] == "error"))[-1]["code"] == "too_large"
    assert parsed == []
    just_under = '{"type": "ping", "x": "' + "a" * (limit - 30) + '"}'
    await comm.send_to(text_data=just_under)
    assert (await _until(comm, lambda m: m["type"] in ("pong", "error")))[-1] == {"type": "pong"}
    assert parsed == [len(just_under)]
