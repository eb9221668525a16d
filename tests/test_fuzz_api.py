"""Adversarial tests of every way in (API.md "Never a 500 for anything a client can send"):

- odd bodies (hypothesis) at every REST endpoint, for an anonymous caller, a bad token, a guest, a
  stranger, a seated member and the host: the answer is never a 5xx, every 4xx has the API.md error shape
  with a (code, status) pair of the API.md table, and a refused request left the database as it was;
- raw bodies JSON cannot hold as data (lone surrogates, ``1e999``, deep nesting, bad UTF-8, NUL) and odd
  paths and query strings;
- the room socket with odd messages: an error to the sender only, the socket still usable, nothing
  changed;
- two users joining the last free seat at once on PostgreSQL: one wins, the other gets 409 ``room_full``.

Each hypothesis example runs inside a savepoint that is rolled back, so examples do not disturb each
other's world (``derandomize=True``: the same examples on every run).
"""

import json
import threading

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from coins.models import LedgerEntry, Wallet
from config.asgi import application
from games.models import Game, GameAction, GamePlayer
from ranking.models import FriendRequest, Friendship, QueueEntry, Rating
from rooms import services as room_services
from rooms.models import ChatMessage, Room, Seat
from rooms.selectors import rooms_with_seats
from rooms.serializers import room_data
from tests.factories import GuestFactory, UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator

# ------------------------------------------------------------------------------------ the contract
STATUS_OF = {
    "parse_error": 400, "invalid": 400, "invalid_action": 400, "illegal_action": 400,
    "not_authenticated": 401, "authentication_failed": 401,
    "not_host": 403, "not_a_player": 403, "registration_required": 403, "banned": 403, "muted": 403,
    "permission_denied": 403,
    "not_found": 404, "method_not_allowed": 405, "too_large": 413, "unsupported_media_type": 415,
    "stale_seq": 409, "not_your_turn": 409, "game_over": 409, "room_full": 409, "already_started": 409,
    "seats_not_filled": 409, "seat_taken": 409, "cpu_not_allowed": 409, "action_id_reused": 409,
    "throttled": 429, "insufficient_coins": 409, "daily_grant_unavailable": 409, "stakes_friends_only": 409,
    "challenge_claimed": 409, "challenge_not_completed": 409,
}


def assert_error_shape(status: int, body) -> None:
    """A 4xx body: ``{"code", "detail", "fields"?}`` with the code the API.md table gives that status."""
    assert isinstance(body, dict), body
    assert isinstance(body.get("code"), str) and isinstance(body.get("detail"), str), body
    assert STATUS_OF.get(body["code"]) == status, (status, body)
    if "fields" in body:
        assert isinstance(body["fields"], dict), body


def snapshot() -> list:
    """Everything a request could change, as plain values."""
    out = [
        list(User.objects.order_by("pk").values("pk", "username", "display_name", "is_guest", "password",
                                                "is_active")),
        sorted(ApiToken.objects.values_list("digest", "user_id")),
    ]
    for model in (Room, Seat, ChatMessage, Game, GamePlayer, Friendship, FriendRequest, QueueEntry, Rating, Wallet,
                  LedgerEntry):
        rows = list(model.objects.order_by("pk").values())
        for row in rows:
            row.pop("last_activity", None)  # a read may not change it, but a 4xx chat post may not either
        out.append(rows)
    out.append(GameAction.objects.count())
    return out


# --------------------------------------------------------------------------------------- the world
class World:
    """Users and their clients, an open room, two rooms playing (one per game) and a game the host is not in."""

    def __init__(self):
        self.host_user = UserFactory(display_name="Host")
        self.member_user = UserFactory(display_name="Member")
        self.stranger_user = UserFactory(display_name="Stranger")
        self.guest_user = GuestFactory(display_name="Guest")
        self.clients = {
            "anon": APIClient(),
            "bad_token": APIClient(HTTP_AUTHORIZATION="Token not-a-token"),
            "guest": self._client(self.guest_user),
            "stranger": self._client(self.stranger_user),
            "member": self._client(self.member_user),
            "host": self._client(self.host_user),
        }
        self.open_room = room_services.room_create(user=self.host_user, game="chinchon", seats=4)
        room_services.room_join(code=self.open_room.code, user=self.member_user)
        self.dice_room = room_services.room_create(user=self.host_user, game="chinchirorin", seats=2,
                                                   rules={"first_dealer": "seat"})
        room_services.room_join(code=self.dice_room.code, user=self.member_user)
        room_services.room_start(code=self.dice_room.code, user=self.host_user)
        self.cards_room = room_services.room_create(user=self.host_user, game="chinchon", seats=2)
        room_services.room_join(code=self.cards_room.code, user=self.member_user)
        room_services.room_start(code=self.cards_room.code, user=self.host_user)
        other = room_services.room_create(user=self.stranger_user, game="chinchon", seats=2)
        room_services.room_start(code=other.code, user=self.stranger_user)
        for room in (self.open_room, self.dice_room, self.cards_room, other):
            room.refresh_from_db()
        self.codes = [self.open_room.code, self.dice_room.code, self.cards_room.code, other.code,
                      self.open_room.code.lower(), "ZZZZZZ", "abc", "0OIL11", "x" * 200, "%00", "%ED%A0%80",
                      "\u00e9" * 6]
        self.game_ids = [self.dice_room.game_id, self.cards_room.game_id, other.game_id, 0, 1,
                         2**31, 2**63 - 1, 2**63, 99999999999999999999, "-1", "1.0", "1e3", "abc", "%00"]
        self.user_ids = [self.host_user.pk, self.stranger_user.pk, 0, 2**63 - 1, 2**63, 99999999999999999999,
                         "-1", "x"]

    @staticmethod
    def _client(user) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
        return client


@pytest.fixture
def world(db):
    return World()


def _send(client: APIClient, method: str, path: str, raw: bytes | str | None,
          content_type: str = "application/json"):
    if raw is None:
        return client.generic(method, path)
    return client.generic(method, path, data=raw, content_type=content_type)


def check(world_or_none, client: APIClient, method: str, path: str, raw=None,
          content_type: str = "application/json"):
    """Send one request inside a savepoint rolled back after; assert the contract; return the response."""
    cache.clear()  # throttle counters: each request starts with none
    with transaction.atomic():
        before = snapshot()
        res = _send(client, method, path, raw, content_type)
        assert res.status_code < 500, (method, path, raw, res.status_code, res.content[:500])
        if res.status_code >= 400:
            body = json.loads(res.content)
            assert_error_shape(res.status_code, body)
            assert snapshot() == before, (method, path, raw, res.status_code, body)
        transaction.set_rollback(True)
    return res


# ------------------------------------------------------------------------------------ strategies
ODD_STRINGS = ["", " ", "\x00", "NaN", "Infinity", "-1", "1e999", "0x10", "true", "null", "JK", "7O", "1O",
               "stock", "discard", "chinchon", "chinchirorin", "normal", "fast", "all", "friends", "😀",
               "ñ" * 300, "a" * 70, "<script>", "' OR 1=1 --", "%00", "\u202e", "🀄" * 50]
ODD_INTS = [0, -1, 1, 2, 3, 4, 8, 9, 30, 60, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**20, 99999999999999999999]

scalars = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from(ODD_INTS), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, -0.0, 1.5, 1e308, 30.0]),
    st.sampled_from(ODD_STRINGS), st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=8,
)
FIELD_NAMES = [
    # accounts
    "display_name", "username", "password",
    # rooms
    "game", "seats", "rules", "turn_seconds", "ranked", "cpu_level", "cpu_speed", "seat", "level", "text",
    "emoji", "phrase",
    # games
    "type", "seq", "action_id", "on", "amount", "down", "source", "card", "accept",
    # ranking
    "user_id",
    # none of them
    "extra", "", "__proto__",
]
bodies = st.one_of(
    st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=6),
    json_values,
)

ENDPOINTS = [
    # (methods the endpoint has, path template); {code} {game} {user} {index} are filled in
    ("POST", "/api/auth/guest"), ("POST", "/api/auth/register"), ("POST", "/api/auth/login"),
    ("POST", "/api/auth/logout"), ("GET", "/api/me"), ("GET", "/api/me/rooms"),
    ("POST", "/api/rooms"), ("GET", "/api/rooms/{code}"), ("PATCH", "/api/rooms/{code}"),
    ("POST", "/api/rooms/{code}/join"), ("POST", "/api/rooms/{code}/leave"),
    ("POST", "/api/rooms/{code}/cpu"), ("DELETE", "/api/rooms/{code}/seats/{index}"),
    ("POST", "/api/rooms/{code}/start"), ("POST", "/api/rooms/{code}/rematch"),
    ("GET", "/api/rooms/{code}/messages{query}"), ("POST", "/api/rooms/{code}/messages"),
    ("GET", "/api/chat/catalogue"),
    ("GET", "/api/games/{game}"), ("POST", "/api/games/{game}/actions"),
    ("POST", "/api/games/{game}/autoplay"), ("GET", "/api/games/{game}/log{query}"),
    ("GET", "/api/friends"), ("POST", "/api/friends"), ("DELETE", "/api/friends{query}"),
    ("GET", "/api/queue"), ("POST", "/api/queue"), ("DELETE", "/api/queue"),
    ("GET", "/api/leaderboard{query}"), ("GET", "/api/users/{user}/stats"),
    ("GET", "/api/users/{user}/achievements"),
    ("GET", "/api/me/wallet{query}"), ("POST", "/api/me/wallet/daily"),
    ("GET", "/api/challenges"), ("POST", "/api/challenges/{challenge}/claim"),
]
CHALLENGE_IDS = ["chinchon.daily.games_3", "chinchirorin.weekly.pinzoro_1", "nope", "%00", "x" * 200, "..", "%2F"]
QUERY_KEYS = ["after", "before", "page", "page_size", "game", "scope", "user_id", "token", "format"]
QUERY_VALUES = ["abc", "-1", "-2", "0", "1", "10", "99999999999999999999", "9223372036854775808", "1e3",
                "1.5", "", "%00", "%ED%A0%80", "chinchon", "chinchirorin", "all", "friends", "zzz",
                str(10**9), "json", "xml"]  # format=api asks for DRF's HTML pages: not the JSON API
queries = st.lists(st.tuples(st.sampled_from(QUERY_KEYS), st.sampled_from(QUERY_VALUES)), max_size=4).map(
    lambda pairs: ("?" + "&".join(f"{k}={v}" for k, v in pairs)) if pairs else "")


@st.composite
def requests(draw, world):
    methods, template = draw(st.sampled_from(ENDPOINTS))
    method = draw(st.sampled_from([methods] * 4 + ["GET", "POST", "PUT", "PATCH", "DELETE"]))
    path = template.format(
        code=draw(st.sampled_from(world.codes)), game=draw(st.sampled_from(world.game_ids)),
        user=draw(st.sampled_from(world.user_ids)), index=draw(st.sampled_from([0, 1, 3, 4, 99, 2**63])),
        query=draw(queries), challenge=draw(st.sampled_from(CHALLENGE_IDS)),
    )
    who = draw(st.sampled_from(list(world.clients)))
    body = draw(st.one_of(st.none(), bodies))
    return who, method, path, body


# ------------------------------------------------------------------------------------ REST fuzzing
@pytest.mark.django_db
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_no_request_is_a_500_and_a_refusal_changes_nothing(world, data):
    who, method, path, body = data.draw(requests(world))
    raw = None if body is None else json.dumps(body)
    check(world, world.clients[who], method, path, raw)


# Bodies whose text is not JSON a server can hold: lone surrogates (PostgreSQL and the UTF-8 encoder refuse
# them), numbers beyond a float, nesting deeper than the interpreter's stack, bad UTF-8, and the like.
PARSE, LARGE, ANY = "parse_error", "too_large", None
RAW_BODIES = [
    (b"", ANY), (b"[]", ANY), (b"null", ANY), (b'"x"', ANY), (b"{", PARSE), (b"NaN", PARSE), (b"1e999", PARSE),
    (b"\xff\xfe", PARSE), (b"\x00", PARSE),
    (b'{"action_id": "\\ud800", "type": "resign", "seq": 0}', PARSE),
    (b'{"action_id": "a\\u0000b", "type": "resign", "seq": 0}', ANY),
    (b'{"type": "resign", "seq": 0, "action_id": "ok", "\\udfff": 1}', PARSE),
    (b'{"display_name": "\\ud800"}', PARSE), (b'{"game": "\\ud83d", "seats": 2}', PARSE),
    (b'{"game": "chinchon", "rules": {"\\ud800": 1}}', PARSE),
    (b'{"game": "chinchon", "rules": {"jokers": 1e999}}', PARSE),
    (b'{"text": "\\udc00"}', PARSE), (b'{"seat": 1e999}', PARSE), (b'{"seq": -1e999, "type": "resign"}', PARSE),
    (b'{"user_id": 1e400}', PARSE), (b'{"on": "\\ud800"}', PARSE),
    (b"[" * 100_000 + b"]" * 100_000, LARGE),
    (b"[" * 20_000 + b"]" * 20_000, PARSE),
    (b'{"rules":' * 5_000 + b"1" + b"}" * 5_000, PARSE),
    (json.dumps({"text": "x" * 70_000}).encode(), LARGE),
]
WRITES = [
    "/api/auth/guest", "/api/auth/register", "/api/auth/login", "/api/rooms", "/api/rooms/{code}",
    "/api/rooms/{code}/cpu", "/api/rooms/{code}/messages", "/api/games/{game}/actions",
    "/api/games/{game}/autoplay", "/api/friends", "/api/queue",
]


@pytest.mark.django_db
def test_bodies_json_cannot_hold_are_parse_errors(world):
    for template in WRITES:
        for who in ("host",) if "{code}" in template else ("member",):
            path = template.format(code=world.open_room.code, game=world.cards_room.game_id)
            method = "PATCH" if template == "/api/rooms/{code}" else "POST"
            for raw, expected in RAW_BODIES:
                res = check(world, world.clients[who], method, path, raw)
                if expected is not None:
                    assert res.json()["code"] == expected, (path, raw[:80], res.status_code, res.content[:300])
    # Not JSON at all, and a Content-Length that lies.
    client = world.clients["member"]
    path = f"/api/games/{world.cards_room.game_id}/actions"
    res = check(world, client, "POST", path, "type=resign&seq=0", "application/x-www-form-urlencoded")
    assert res.status_code == 415 and res.json()["code"] == "unsupported_media_type"
    res = check(world, client, "POST", path, "<x/>", "text/xml")
    assert res.status_code == 415
    cache.clear()
    for length in ("-5", "abc", "99999999999", ""):
        res = client.generic("POST", path, data=b'{"type": "resign", "seq": 0}', content_type="application/json",
                             CONTENT_LENGTH=length)
        assert res.status_code < 500, (length, res.content)
        assert Game.objects.get(pk=world.cards_room.game_id).seq == 0


@pytest.mark.django_db
def test_a_refused_action_changes_nothing_and_an_applied_one_moves_seq(world):
    """Every shape of a wrong action for the seat that is awaited and the one that is not; then one legal
    action goes through (so the refusals above were refusals of the body, not of the caller)."""
    game = Game.objects.get(pk=world.cards_room.game_id)
    path = f"/api/games/{game.pk}/actions"
    view = world.clients["member"].get(f"/api/games/{game.pk}").json()
    mover = "host" if view["turn"] == 0 else "member"
    bad = [
        {"type": "draw", "seq": 0, "source": "stok"}, {"type": "draw", "seq": 0, "source": None},
        {"type": "draw", "seq": 0, "source": ["stock"]}, {"type": "draw", "seq": "0", "source": "stock"},
        {"type": "draw", "seq": True, "source": "stock"}, {"type": "draw", "seq": 0.0, "source": "stock"},
        {"type": "draw", "seq": 0, "source": "stock", "card": "7O"}, {"type": "draw", "seq": 0},
        {"type": "discard", "seq": 0, "card": "7O"}, {"type": "discard", "seq": 0, "card": "99X"},
        {"type": "discard", "seq": 0, "card": 7}, {"type": "close", "seq": 0, "card": {"a": 1}},
        {"type": "reenter", "seq": 0, "accept": 1}, {"type": "bet", "seq": 0, "amount": 10},
        {"type": "roll", "seq": 0}, {"type": "DRAW", "seq": 0, "source": "stock"}, {"type": None, "seq": 0},
        {"seq": 0}, {"type": "draw", "seq": 5, "source": "stock"}, {"type": "draw", "seq": 10**30, "source": "stock"},
        {"type": "draw", "seq": -1, "source": "stock"},
        {"type": "draw", "seq": 0, "source": "stock", "action_id": ""},
        {"type": "draw", "seq": 0, "source": "stock", "action_id": "x" * 65},
        {"type": "draw", "seq": 0, "source": "stock", "action_id": 5},
        {"type": "draw", "seq": 0, "source": "stock", "action_id": "a\x00b"},
        [{"type": "draw", "seq": 0, "source": "stock"}], "draw", 0, None,
    ]
    for who, some in (("host", bad), ("member", bad), ("stranger", bad[:3]), ("guest", bad[:3])):
        for body in some:
            res = check(world, world.clients[who], "POST", path, json.dumps(body))
            assert res.status_code >= 400, (who, body, res.json())
    res = world.clients[mover].post(path, {"type": "draw", "seq": 0, "source": "stock", "action_id": "ok-1"},
                                    format="json")
    assert res.status_code == 200 and res.json()["seq"] == 1


# ------------------------------------------------------------------------------------ the socket
def _socket_world():
    host, member = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = room_services.room_create(user=host, game="chinchon", seats=2)
    room_services.room_join(code=room.code, user=member)
    room = room_services.room_start(code=room.code, user=host)
    room.refresh_from_db()
    keys = [token_for(u) for u in (host, member)]
    return room.code, room.game_id, keys


def _game_state(game_id):
    game = Game.objects.get(pk=game_id)
    return game.seq, json.dumps(game.state, sort_keys=True), GameAction.objects.filter(game=game).count()


async def _open(code, key):
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}")
    connected, _ = await comm.connect(timeout=5)
    assert connected
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "room"
    second = await comm.receive_json_from(timeout=5)
    assert second["type"] == "game"
    return comm


LATE = ("room", "presence")  # the other socket's connect may still be arriving


async def _drain(comm) -> list[dict]:
    """Messages up to the pong of a ping sent now."""
    await comm.send_json_to({"type": "ping"})
    out = []
    for _ in range(200):
        msg = await comm.receive_json_from(timeout=5)
        if msg["type"] == "pong":
            return out
        out.append(msg)
    raise AssertionError(out)


ODD_FRAMES = [
    ("text", "not json"), ("text", " "), ("text", "{"), ("text", "NaN"), ("text", "1e999"), ("text", "[]"),
    ("text", "null"), ("text", '"ping"'), ("text", "[" * 50_000 + "]" * 50_000),
    ("text", '{"type": "chat", "text": "\\ud800"}'),
    ("text", '{"type": "action", "action": {"type": "resign", "seq": 0}, "action_id": "\\udfff"}'),
    ("bytes", b"\xff\xfe\x00"), ("bytes", b'{"type": "ping"'), ("bytes", b"[" * 5000),
    ("json", {}), ("json", {"type": None}), ("json", {"type": "PING"}), ("json", {"type": ["ping"]}),
    ("json", {"type": {"a": 1}}), ("json", {"type": "room"}), ("json", {"type": "game"}),
    ("json", {"type": "action"}), ("json", {"type": "action", "action": None}),
    ("json", {"type": "action", "action": []}), ("json", {"type": "action", "action": "resign"}),
    ("json", {"type": "action", "action": {"type": "resign"}}),
    ("json", {"type": "action", "action": {"type": "resign", "seq": "0"}}),
    ("json", {"type": "action", "action": {"type": "resign", "seq": True}}),
    ("json", {"type": "action", "action": {"type": "resign", "seq": 2**70}}),
    ("json", {"type": "action", "action": {"type": "draw", "seq": 0, "source": 1}}),
    ("json", {"type": "action", "action": {"type": "discard", "seq": 0, "card": "JK"}}),
    ("json", {"type": "action", "action": {"type": "fly", "seq": 0}}),
    ("json", {"type": "action", "action": {"type": "resign", "seq": 0}, "action_id": "a\x00b"}),
    ("json", {"type": "action", "action": {"type": "resign", "seq": 0}, "action_id": 7}),
    ("json", {"type": "action", "action": {"type": "resign", "seq": 0}, "action_id": "x" * 65}),
    ("json", {"type": "chat"}), ("json", {"type": "chat", "text": ""}), ("json", {"type": "chat", "text": 5}),
    ("json", {"type": "chat", "text": "a", "emoji": "x"}), ("json", {"type": "chat", "emoji": "nope"}),
    ("json", {"type": "chat", "phrase": ["x"]}), ("json", {"type": "chat", "text": "x" * 201}),
    ("json", {"type": "chat", "text": "\x00"}),
]


@pytest.mark.django_db(transaction=True)
async def test_odd_socket_messages_answer_the_sender_only_and_change_nothing(fresh_channel_layer):
    code, game_id, keys = await database_sync_to_async(_socket_world)()
    sender, bystander = await _open(code, keys[0]), await _open(code, keys[1])
    before = await database_sync_to_async(_game_state)(game_id)
    await _drain(sender)
    await _drain(bystander)
    try:
        for kind, frame in ODD_FRAMES:
            if kind == "text":
                await sender.send_to(text_data=frame)
            elif kind == "bytes":
                await sender.send_to(bytes_data=frame)
            else:
                await sender.send_json_to(frame)
            got = [m for m in await _drain(sender) if m["type"] not in LATE]
            assert [m["type"] for m in got] == ["error"], (frame if kind != "text" else frame[:80], got)
            body = {k: v for k, v in got[0].items() if k not in ("type", "action_id")}
            assert STATUS_OF.get(body.get("code")) is not None and body["code"] not in ("server_error",), (frame, body)
            assert isinstance(body["detail"], str)
        assert await database_sync_to_async(_game_state)(game_id) == before
        # A chat flood: five go through to everyone, the rest are refused to the sender only.
        for i in range(12):
            await sender.send_json_to({"type": "chat", "text": f"flood {i}"})
        got = [m for m in await _drain(sender) if m["type"] not in LATE]
        assert [m["type"] for m in got].count("chat") == 5
        assert all(m["code"] == "throttled" for m in got if m["type"] == "error")
        assert [m["type"] for m in got].count("error") == 7
        seen = [m for m in await _drain(bystander) if m["type"] not in LATE]
        assert [m["type"] for m in seen] == ["chat"] * 5, seen
        # Still usable: a legal action over the socket of the seat that is awaited.
        turn = (await database_sync_to_async(_view_of)(game_id, 0))["turn"]
        view = await database_sync_to_async(_view_of)(game_id, turn)
        mover = sender if turn == 0 else bystander
        await mover.send_json_to({"type": "action", "action": {**view["legal_actions"][0], "seq": view["seq"]}})
        for comm in (sender, bystander):
            games = [m for m in await _until_game(comm) if m["type"] == "game"]
            assert games[-1]["view"]["seq"] == before[0] + 1, games
    finally:
        await sender.disconnect()
        await bystander.disconnect()


async def _until_game(comm) -> list[dict]:
    out = []
    while not out or out[-1]["type"] != "game":
        out.append(await comm.receive_json_from(timeout=5))
    return out


def _view_of(game_id, seat):
    from games.selectors import game_view

    return game_view(game=Game.objects.get(pk=game_id), seat=seat)


@pytest.mark.django_db(transaction=True)
async def test_a_room_message_cannot_move_a_socket_into_a_seat_its_user_does_not_hold(fresh_channel_layer):
    """A room message that shows the socket's user in another seat (late, out of order, or forged) does
    not move the socket there: the seat is read back from the database, which still says seat 0, so no
    view of seat 1 (its hand) is ever sent and the socket stays on seat 0's group."""
    code, game_id, keys = await database_sync_to_async(_socket_world)()
    comm = await _open(code, keys[0])
    try:
        room = await database_sync_to_async(lambda: room_data(rooms_with_seats().get(code=code)))()
        moved = json.loads(json.dumps(room))
        mine = moved["seats"][0]["user"]
        moved["seats"][0]["user"], moved["seats"][1]["user"] = moved["seats"][1]["user"], mine
        await comm.send_input({"type": "room.update", "payload": {"type": "room", "room": moved}})
        seen = await _drain(comm)
        assert [m["type"] for m in seen if m["type"] not in LATE] == [], seen  # no game view of seat 1
        seat0 = await database_sync_to_async(_view_of)(game_id, 0)
        await comm.send_json_to({"type": "action", "action": {"type": "ping_not_an_action", "seq": seat0["seq"]}})
        answer = await comm.receive_json_from(timeout=5)
        assert answer["type"] == "error", answer  # still open, still answering as seat 0's socket
    finally:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_room_message_without_the_socket_user_closes_it(fresh_channel_layer):
    """A room message in which the socket's user holds no seat (removed, or left) closes the socket with
    4403 once the database agrees: it must not go on forwarding a seat's views. (A message that is older
    than the socket's snapshot, or that the database contradicts, leaves it open: tests/rooms
    test_consumers.)"""
    from rooms.models import Seat

    code, game_id, keys = await database_sync_to_async(_socket_world)()
    comm = await _open(code, keys[0])
    try:
        room = await database_sync_to_async(lambda: room_data(rooms_with_seats().get(code=code)))()
        await database_sync_to_async(lambda: Seat.objects.filter(room__code=code, index=0).update(user=None))()
        gone = json.loads(json.dumps(room))
        gone["seats"][0]["user"] = None
        gone["version"] += 1
        await comm.send_input({"type": "room.update", "payload": {"type": "room", "room": gone}})
        for _ in range(20):
            out = await comm.receive_output(timeout=5)
            if out["type"] == "websocket.close":
                break
        assert out == {"type": "websocket.close", "code": 4403}, out
    finally:
        await comm.disconnect()


# ------------------------------------------------------------------------------------ races
def _join_at_once(code: str, users: list) -> dict:
    """Each user joins room ``code`` over HTTP from its own thread, released together."""
    barrier = threading.Barrier(len(users))
    answers = {}

    def join(user):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
        barrier.wait()
        res = client.post(f"/api/rooms/{code}/join")
        answers[user.pk] = (res.status_code, res.json())
        connection.close()

    threads = [threading.Thread(target=join, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return answers


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_users_joining_the_last_seat_at_once_one_wins_the_other_is_room_full():
    for _ in range(3):
        host, a, b = UserFactory(), UserFactory(), UserFactory()
        room = room_services.room_create(user=host, game="chinchon", seats=2)
        answers = _join_at_once(room.code, [a, b])
        assert sorted(s for s, _ in answers.values()) == [200, 409], answers
        loser = next(body for s, body in answers.values() if s == 409)
        assert loser["code"] == "room_full"
        seats = list(Seat.objects.filter(room=room).order_by("index").values_list("user_id", flat=True))
        assert seats[0] == host.pk and seats[1] in (a.pk, b.pk)
        assert Room.objects.get(pk=room.pk).version == 2


@pytest.mark.django_db
def test_chat_fields_are_strings_only(world):
    """``{"text": 5}`` was stored as the text "5": a number is not a chat text (nor an emoji or a phrase id)."""
    client = world.clients["member"]
    for body in ({"text": 5}, {"text": 1.5}, {"emoji": 1}, {"phrase": 0}, {"text": ["hi"]}):
        res = check(world, client, "POST", f"/api/rooms/{world.open_room.code}/messages", json.dumps(body))
        assert res.status_code == 400 and res.json()["code"] == "invalid", (body, res.json())
        assert list(res.json()["fields"]) == list(body)


@pytest.mark.django_db(transaction=True)
async def test_odd_socket_tokens_are_4401_not_a_crash(fresh_channel_layer):
    """``?token=%00`` reached PostgreSQL as a NUL and the handshake crashed (DataError)."""
    code, _, keys = await database_sync_to_async(_socket_world)()
    for query in ("token=%00", "token=a%00b", f"token={keys[0]}%00", "token=%ED%A0%80", "token=%FF",
                  "token=" + "x" * 5000):
        comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/?{query}")
        connected, _ = await comm.connect(timeout=5)
        assert connected
        assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}, query[:40]
        await comm.disconnect()
