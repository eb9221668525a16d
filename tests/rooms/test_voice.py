"""Voice at the table (docs/voice.md): the relay of WebRTC signalling over the room socket, through the real
ASGI stack: only between seated players of the same room who joined voice, never to spectators; refusals
(malformed, oversize, rate, not in voice, voice off, muted); leaving on close, on a mute, on a ban; the
moderators' record; the REST voice endpoint; the settings' parser."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.utils import timezone

from accounts import sanctions
from config.asgi import application
from config.settings.checks import parse_ice_servers
from rooms import services
from rooms.models import Room, VoiceSession
from rooms.voice import SignalBucket, clean_signal
from tests.factories import UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator

TIMEOUT = 5
OFFER = {"type": "offer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"}
CANDIDATE = {"candidate": "candidate:1 1 udp 2122260223 192.168.1.2 54321 typ host", "sdpMid": "0",
             "sdpMLineIndex": 0, "usernameFragment": "abcd"}


def _token(user) -> str:
    return token_for(user)


async def _open(code, user) -> WebsocketCommunicator:
    key = await database_sync_to_async(_token)(user)
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def _until(comm, pred, limit: int = 50) -> dict:
    """The first message ``pred`` accepts (those before it are skipped)."""
    for _ in range(limit):
        msg = await comm.receive_json_from(timeout=TIMEOUT)
        if pred(msg):
            return msg
    raise AssertionError("no matching message")


async def _no_signal(comm, kind: str = "voice_signal") -> None:
    """Whatever is queued for ``comm`` now holds no message whose type starts with ``kind``."""
    got = []
    while not await comm.receive_nothing(timeout=0.3):
        got.append(await comm.receive_json_from(timeout=TIMEOUT))
    assert not [m for m in got if m["type"].startswith(kind)], got


def _seat(msg: dict) -> tuple:
    """``(type, seat)`` of a voice_joined / voice_left (``reason`` too), without the session id."""
    return (msg.get("type"), msg.get("seat"), msg.get("reason"))


def _type(kind):
    return lambda m: m["type"] == kind


async def _join(comm) -> dict:
    await comm.send_json_to({"type": "voice_join"})
    return await _until(comm, _type("voice_peers"))


@pytest.fixture
def table(transactional_db):
    """Three registered users seated in an open 3-seat room (seats 0, 1, 2) that a fourth may watch:
    ``(room, [ann, bob, cy], watcher)``."""
    ann, bob, cy = UserFactory(display_name="Ann"), UserFactory(display_name="Bob"), UserFactory(display_name="Cy")
    room = services.room_create(user=ann, game="chinchirorin", seats=3, spectators_allowed=True)
    services.room_join(code=room.code, user=bob)
    services.room_join(code=room.code, user=cy)
    return room, [ann, bob, cy], UserFactory(display_name="Watcher")


pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]


async def test_signals_go_only_to_the_addressed_seat_in_voice_and_never_to_spectators(table):
    room, (ann, bob, cy), watcher = table
    a, b, c, w = [await _open(room.code, u) for u in (ann, bob, cy, watcher)]
    peers = await _join(a)
    session = peers["peers"][0]["session"]
    assert peers == {"type": "voice_peers", "seats": [0], "peers": [{"seat": 0, "session": session}]}
    assert await _until(b, _type("voice_joined")) == {"type": "voice_joined", "seat": 0, "session": session}
    assert _seat(await _until(c, _type("voice_joined"))) == ("voice_joined", 0, None)
    peers = await _join(b)
    assert peers["seats"] == [0, 1] and peers["peers"][0]["session"] == session
    assert peers["peers"][1]["session"] > session  # each join's id grows
    await _until(a, lambda m: _seat(m) == ("voice_joined", 1, None))
    await _until(c, lambda m: _seat(m) == ("voice_joined", 1, None))

    await a.send_json_to({"type": "voice_signal", "to_seat": 1, "sdp": OFFER})
    assert await _until(b, _type("voice_signal")) == {"type": "voice_signal", "from_seat": 0, "sdp": OFFER}
    await b.send_json_to({"type": "voice_signal", "to_seat": 0, "candidate": CANDIDATE})
    assert await _until(a, _type("voice_signal")) == {"type": "voice_signal", "from_seat": 1, "candidate": CANDIDATE}
    await b.send_json_to({"type": "voice_signal", "to_seat": 0, "candidate": None})
    assert await _until(a, _type("voice_signal")) == {"type": "voice_signal", "from_seat": 1, "candidate": None}

    # Cy is seated but not in voice: a signal to seat 2 is refused, and Cy hears no signal.
    await a.send_json_to({"type": "voice_signal", "to_seat": 2, "sdp": OFFER})
    err = await _until(a, _type("error"))
    assert (err["code"], err["fields"]) == ("not_in_voice", {"to_seat": ["A seat in voice, not yours."]})
    # Cy, not in voice, may not signal either.
    await c.send_json_to({"type": "voice_signal", "to_seat": 0, "sdp": OFFER})
    assert (await _until(c, _type("error")))["code"] == "voice_not_joined"
    # The spectator has no voice, and no voice message reached it.
    await w.send_json_to({"type": "voice_join"})
    assert (await _until(w, _type("error")))["code"] == "not_a_player"
    await _no_signal(a)
    await _no_signal(b)
    await _no_signal(w, "voice")  # not even who joined
    for comm in (a, b, c, w):
        await comm.disconnect()


async def test_malformed_and_oversize_signals_are_refused_and_relay_nothing(table, settings):
    settings.VOICE_SIGNAL_MAX_BYTES = 2000
    room, (ann, bob, _cy), _w = table
    a, b = await _open(room.code, ann), await _open(room.code, bob)
    await _join(a)
    await _join(b)
    await _until(a, lambda m: _seat(m) == ("voice_joined", 1, None))
    bad = [
        ({"to_seat": "1", "sdp": OFFER}, "invalid", "to_seat"),
        ({"to_seat": 9, "sdp": OFFER}, "invalid", "to_seat"),
        ({"to_seat": 1}, "invalid", "sdp"),
        ({"to_seat": 1, "sdp": OFFER, "candidate": None}, "invalid", "sdp"),
        ({"to_seat": 1, "sdp": {"type": "rollback", "sdp": "x"}}, "invalid", "sdp"),
        ({"to_seat": 1, "sdp": {**OFFER, "extra": 1}}, "invalid", "sdp"),
        ({"to_seat": 1, "candidate": {"candidate": 5}}, "invalid", "candidate"),
        ({"to_seat": 1, "candidate": {**CANDIDATE, "sdpMLineIndex": -1}}, "invalid", "candidate.sdpMLineIndex"),
        ({"to_seat": 1, "sdp": OFFER, "note": "hi"}, "invalid", "note"),
        ({"to_seat": 0, "sdp": OFFER}, "not_in_voice", "to_seat"),
        ({"to_seat": 1, "sdp": {"type": "offer", "sdp": "a" * 2100}}, "too_large", None),
    ]
    for body, code, field in bad:
        await a.send_json_to({"type": "voice_signal", **body})
        err = await _until(a, _type("error"))
        assert err["code"] == code, (body, err)
        if field:
            assert field in err["fields"], (body, err)
    await _no_signal(b)
    await a.disconnect()
    await b.disconnect()


async def test_voice_messages_are_rate_limited_per_socket(table, settings):
    settings.VOICE_SIGNAL_BURST, settings.VOICE_SIGNAL_PER_SECOND, settings.VOICE_JOIN_COST = 4, 0.01, 1
    room, (ann, bob, _cy), _w = table
    a, b = await _open(room.code, ann), await _open(room.code, bob)
    await _join(a)
    await _join(b)
    for _ in range(3):  # the join took one of the four
        await b.send_json_to({"type": "voice_signal", "to_seat": 0, "candidate": CANDIDATE})
        await _until(a, _type("voice_signal"))
    await b.send_json_to({"type": "voice_signal", "to_seat": 0, "candidate": CANDIDATE})
    err = await _until(b, _type("error"))
    assert err["code"] == "throttled" and err["retry_after"] >= 1
    await _no_signal(a)
    # Another socket has a bucket of its own.
    await a.send_json_to({"type": "voice_signal", "to_seat": 1, "candidate": CANDIDATE})
    assert (await _until(b, _type("voice_signal")))["from_seat"] == 0
    await a.disconnect()
    await b.disconnect()


async def test_a_closed_socket_leaves_voice_and_the_record_keeps_who_and_when(table):
    room, (ann, bob, _cy), _w = table
    before = timezone.now()
    a, b = await _open(room.code, ann), await _open(room.code, bob)
    await _join(a)
    await _join(b)
    late = await _open(room.code, ann)  # a second socket of Ann's seat sees who is in voice on connect
    assert (await _until(late, _type("voice_peers")))["seats"] == [0, 1]
    await late.disconnect()
    await b.disconnect()
    assert _seat(await _until(a, _type("voice_left"))) == ("voice_left", 1, "closed")
    await a.send_json_to({"type": "voice_signal", "to_seat": 1, "sdp": OFFER})
    assert (await _until(a, _type("error")))["code"] == "not_in_voice"
    await a.send_json_to({"type": "voice_leave"})
    await a.disconnect()
    rows = await database_sync_to_async(lambda: list(
        VoiceSession.objects.filter(room=room).order_by("seat").values("user_id", "seat", "joined_at", "left_at",
                                                                         "left_reason")))()
    assert [(r["user_id"], r["seat"], r["left_reason"]) for r in rows] == [(ann.pk, 0, "left"), (bob.pk, 1, "closed")]
    assert all(before <= r["joined_at"] <= r["left_at"] for r in rows)


async def test_a_muted_user_cannot_join_and_a_mute_takes_them_out_at_once(table):
    room, (ann, bob, cy), _w = table
    a, b, c = [await _open(room.code, u) for u in (ann, bob, cy)]
    await _join(a)
    await _join(b)
    await database_sync_to_async(sanctions.user_mute)(user=bob, by=None, reason="shouting",
                                                      until=timezone.now() + timedelta(hours=1))
    err = await _until(b, _type("error"))
    assert err["code"] == "muted" and err["until"]
    assert _seat(await _until(a, _type("voice_left"))) == ("voice_left", 1, "muted")
    await b.send_json_to({"type": "voice_join"})
    assert (await _until(b, _type("error")))["code"] == "muted"
    # Cy was muted before: refused too, and nobody hears of a join.
    await database_sync_to_async(sanctions.user_mute)(user=cy, by=None, reason="spam",
                                                      until=timezone.now() + timedelta(hours=1))
    await c.send_json_to({"type": "voice_join"})
    assert (await _until(c, _type("error")))["code"] == "muted"
    got = []
    while not await a.receive_nothing(timeout=0.3):
        got.append(await a.receive_json_from(timeout=TIMEOUT))
    assert ("voice_joined", 2, None) not in [_seat(m) for m in got if m["type"] == "voice_joined"]
    assert await database_sync_to_async(
        lambda: VoiceSession.objects.get(user=bob).left_reason)() == "muted"
    for comm in (a, b, c):
        await comm.disconnect()


async def test_a_ban_closes_the_socket_and_tells_the_peers(table):
    room, (ann, bob, _cy), _w = table
    moderator = await database_sync_to_async(UserFactory)(display_name="Mod", is_staff=True)
    a, b = await _open(room.code, ann), await _open(room.code, bob)
    await _join(a)
    await _join(b)
    await database_sync_to_async(sanctions.user_ban)(user=bob, by=moderator, reason="abuse")
    assert _seat(await _until(a, _type("voice_left"))) == ("voice_left", 1, "sanction")
    out = None
    while out is None or out["type"] != "websocket.close":
        out = await b.receive_output(timeout=TIMEOUT)
    assert out["code"] == sanctions.CLOSE_BANNED
    await a.disconnect()


async def test_the_host_turning_voice_off_takes_everyone_out_and_refuses_joins(table):
    room, (ann, bob, _cy), _w = table
    a, b = await _open(room.code, ann), await _open(room.code, bob)
    await _join(a)
    await _join(b)
    await database_sync_to_async(services.room_update)(code=room.code, user=ann, data={"voice_allowed": False})
    left = [await _until(a, _type("voice_left")), await _until(a, _type("voice_left"))]
    assert sorted((m["seat"], m["reason"]) for m in left) == [(0, "voice_off"), (1, "voice_off")]
    await b.send_json_to({"type": "voice_join"})
    assert (await _until(b, _type("error")))["code"] == "voice_off"
    await a.disconnect()
    await b.disconnect()


async def test_a_second_socket_of_a_seat_takes_its_voice_over(table):
    room, (ann, bob, _cy), _w = table
    a1, b = await _open(room.code, ann), await _open(room.code, bob)
    await _join(a1)
    await _join(b)
    a2 = await _open(room.code, ann)
    assert (await _join(a2))["seats"] == [0, 1]
    assert _seat(await _until(a1, _type("voice_left"))) == ("voice_left", 0, "replaced")
    await b.send_json_to({"type": "voice_signal", "to_seat": 0, "sdp": OFFER})
    assert (await _until(a2, _type("voice_signal")))["from_seat"] == 1
    await _no_signal(a1)
    await a1.disconnect()  # the replaced socket's close does not take the seat out
    await b.send_json_to({"type": "voice_signal", "to_seat": 0, "candidate": None})
    assert (await _until(a2, _type("voice_signal")))["candidate"] is None
    for comm in (a2, b):
        await comm.disconnect()


# ---------------------------------------------------------------------------------------- REST, pure
def test_the_voice_endpoint_answers_seated_players_only(table, make_client, settings):
    settings.VOICE_ICE_SERVERS = [{"urls": ["stun:stun.example.org:3478"]}]
    room, (ann, _bob, _cy), watcher = table
    res = make_client(ann).get(f"/api/rooms/{room.code}/voice")
    assert res.status_code == 200
    assert res.json() == {"voice_allowed": True, "seats": [],
                          "ice_servers": [{"urls": ["stun:stun.example.org:3478"]}],
                          "signal_max_bytes": settings.VOICE_SIGNAL_MAX_BYTES}
    res = make_client(watcher).get(f"/api/rooms/{room.code}/voice")
    assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    assert make_client(ann).get("/api/rooms/ZZZZZZ/voice").status_code == 404


def test_the_host_sets_voice_at_creation_and_the_catalogue_lists_it(table, make_client):
    room, (ann, _bob, _cy), _w = table
    client = make_client(ann)
    res = client.post("/api/rooms", {"game": "chinchon", "voice_allowed": False}, format="json")
    assert res.status_code == 201 and res.json()["voice_allowed"] is False
    assert Room.objects.get(code=res.json()["code"]).voice_allowed is False
    bad = client.patch(f"/api/rooms/{room.code}", {"voice_allowed": "no"}, format="json")
    assert (bad.status_code, list(bad.json()["fields"])) == (400, ["voice_allowed"])
    switches = {s["name"]: s for s in client.get("/api/games/catalogue").json()["room_settings"]}
    assert (switches["voice_allowed"]["type"], switches["voice_allowed"]["default"]) == ("boolean", True)
    assert switches["spectators_allowed"]["default"] is False


def test_ice_servers_setting_is_parsed_and_checked():
    assert parse_ice_servers("") == []
    assert parse_ice_servers('[{"urls": "turn:t.example.org:3478", "username": "u", "credential": "p"}]') == [
        {"urls": "turn:t.example.org:3478", "username": "u", "credential": "p"}]
    for bad in ("{", '{"urls": "stun:x"}', '[{"urls": "http://x"}]', '[{"urls": []}]', '[{"urls": "stun:x", "x": 1}]',
                '[{"urls": "stun:x", "credential": 5}]'):
        with pytest.raises(ImproperlyConfigured):
            parse_ice_servers(bad)


def test_signal_bucket_refills_at_its_rate():
    now = [0.0]
    bucket = SignalBucket(3, 2.0, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [None, None, None]
    assert bucket.take() == pytest.approx(0.5)
    now[0] = 0.5
    assert bucket.take() is None
    assert bucket.take(3) == pytest.approx(1.5)


def test_clean_signal_keeps_only_the_known_keys():
    assert clean_signal({"type": "voice_signal", "to_seat": 3, "candidate": {"candidate": "c"}}) == (
        3, {"candidate": {"candidate": "c", "sdpMid": None, "sdpMLineIndex": None, "usernameFragment": None}})


def test_the_moderators_record_is_read_only_in_the_admin(table):
    room, (ann, _bob, _cy), _w = table
    row = VoiceSession.objects.create(room=room, user=ann, seat=0)
    boss = Client()
    boss.force_login(UserFactory(display_name="Boss", is_staff=True, is_superuser=True))
    page = boss.get("/admin/rooms/voicesession/")
    assert page.status_code == 200 and room.code in page.content.decode()
    detail = boss.get(f"/admin/rooms/voicesession/{row.pk}/change/")
    assert detail.status_code == 200 and b'name="_save"' not in detail.content
    assert boss.get("/admin/rooms/voicesession/add/").status_code == 403
