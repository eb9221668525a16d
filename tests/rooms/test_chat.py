"""Room chat (API.md "Rooms"): exactly one of text/emoji/phrase, trimming and length, the catalogue,
the 5-per-10-s throttle, muted/banned/non-seated callers, ``?before`` paging of the last 50."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.exceptions import Throttled
from rest_framework.settings import api_settings

from accounts.sanctions import user_mute
from config.timefmt import iso_ms
from rooms.models import ChatMessage
from rooms.throttles import parse_rate
from tests.concurrency import run_together
from tests.factories import UserFactory
from tests.rooms.factories import ChatMessageFactory, RoomFactory

pytestmark = pytest.mark.django_db

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def room(host):
    return RoomFactory(host=host.user)


def _url(room) -> str:
    return f"/api/rooms/{room.code}/messages"


def test_text_is_trimmed_and_answered_as_a_message(host, room):
    res = host.post(_url(room), {"text": "  hello there \n"}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert set(body) == {"id", "seat", "display_name", "text", "created_at"}
    assert (body["seat"], body["display_name"], body["text"]) == (0, "Host", "hello there")
    assert TIME.match(body["created_at"])
    assert ChatMessage.objects.get().text == "hello there"


@pytest.mark.parametrize("text, ok", [("", False), ("   ", False), ("x", True), ("y" * 200, True),
                                      ("z" * 201, False), (" " + "w" * 200 + " ", True)])
def test_text_length_after_trimming(host, room, text, ok):
    res = host.post(_url(room), {"text": text}, format="json")
    assert res.status_code == (201 if ok else 400)
    if not ok:
        assert res.json()["code"] == "invalid"
        assert ChatMessage.objects.count() == 0


@pytest.mark.parametrize("body", [{}, {"text": "hi", "emoji": "👍"}, {"emoji": "👍", "phrase": "gg"},
                                  {"text": "a", "emoji": "👍", "phrase": "gg"}, [], "hi"])
def test_exactly_one_field(host, room, body):
    res = host.post(_url(room), body, format="json")
    assert (res.status_code, res.json()["code"]) == (400, "invalid")
    assert ChatMessage.objects.count() == 0


def test_emoji_and_phrases_come_from_the_catalogue(host, room):
    catalogue = host.get("/api/chat/catalogue").json()
    emoji, phrase = catalogue["emoji"][0], catalogue["phrases"][0]["id"]
    res = host.post(_url(room), {"emoji": emoji}, format="json")
    assert res.status_code == 201
    assert res.json()["emoji"] == emoji and "text" not in res.json()
    res = host.post(_url(room), {"phrase": phrase}, format="json")
    assert res.json()["phrase"] == phrase
    for body, field in (({"emoji": "🦄🦄"}, "emoji"), ({"phrase": "insult"}, "phrase"), ({"emoji": 5}, "emoji")):
        res = host.post(_url(room), body, format="json")
        assert (res.status_code, list(res.json()["fields"])) == (400, [field])


def test_five_messages_per_ten_seconds_then_429_with_retry_after(host, room):
    for i in range(5):
        assert host.post(_url(room), {"text": f"m{i}"}, format="json").status_code == 201
    res = host.post(_url(room), {"text": "one too many"}, format="json")
    assert res.status_code == 429
    assert res.json()["code"] == "throttled"
    assert 1 <= int(res["Retry-After"]) <= 10
    assert ChatMessage.objects.count() == 5


def test_throttle_rate_parser():
    assert parse_rate("5/10s") == (5, 10)
    assert parse_rate("30/min") == (30, 60)
    assert parse_rate("20/2m") == (20, 120)
    assert parse_rate("1/hour") == (1, 3600)
    assert parse_rate(None) == (None, None)
    with pytest.raises(ValueError):
        parse_rate("often")


def test_the_throttle_rate_comes_from_settings(host, room, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                                          "chat": "2/10s"}}
    assert host.post(_url(room), {"text": "a"}, format="json").status_code == 201
    assert host.post(_url(room), {"text": "b"}, format="json").status_code == 201
    assert host.post(_url(room), {"text": "c"}, format="json").status_code == 429


def test_only_seated_humans_chat(other, room):
    for res in (other.post(_url(room), {"text": "hi"}, format="json"), other.get(_url(room))):
        assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    assert other.get("/api/rooms/ZZZZZZ/messages").status_code == 404


def test_muted_users_cannot_post_but_can_read(host, room):
    until = timezone.now() + timedelta(hours=1)
    user_mute(user=host.user, by=None, reason="spam", until=until)
    res = host.post(_url(room), {"text": "hi"}, format="json")
    assert (res.status_code, res.json()["code"], res.json()["until"]) == (403, "muted", iso_ms(until))
    assert host.get(_url(room)).status_code == 200


def test_banned_users_are_refused(api, room):
    banned = room.host
    banned.is_active = False  # deactivated by hand counts as banned too
    banned.save()
    api.force_authenticate(user=banned)
    res = api.post(_url(room), {"text": "hi"}, format="json")
    assert (res.status_code, res.json()["code"]) == (403, "banned")


def test_last_50_oldest_first_and_paging_with_before(host, room):
    ChatMessageFactory.create_batch(60, room=room)
    other_room = RoomFactory(host=UserFactory())
    ChatMessageFactory(room=other_room)
    ids = list(ChatMessage.objects.filter(room=room).order_by("id").values_list("id", flat=True))
    page = host.get(_url(room)).json()
    assert [m["id"] for m in page] == ids[10:]
    older = host.get(_url(room), {"before": page[0]["id"]}).json()
    assert [m["id"] for m in older] == ids[:10]
    assert host.get(_url(room), {"before": ids[0]}).json() == []
    for bad in ("abc", "-1", "1.5", ""):
        res = host.get(_url(room), {"before": bad})
        assert (res.status_code, list(res.json()["fields"])) == (400, ["before"])


@pytest.mark.redis
@pytest.mark.parametrize("scope", ["chat", "login"])
def test_throttled_requests_sent_at_once_are_counted_one_after_the_other(scope, settings):
    """DRF reads a key's history, decides, then writes it: 40 requests at once all read the same history
    and pass together. Counted by one atomic script in Redis (config.throttling), exactly the rate passes:
    5 chat messages of a user, 10 logins of an address."""
    import uuid

    from django.core.cache import cache
    from django.test import RequestFactory

    from accounts.throttles import LoginThrottle
    from rooms.throttles import chat_throttle_check

    assert hasattr(cache, "lock"), "the Redis cache (REDIS_URL) is what production runs"
    user = UserFactory()
    address = f"198.51.100.{uuid.uuid4().int % 250 + 1}"
    LoginThrottle.cache.delete(f"throttle_login_{address}")

    def once() -> bool:
        if scope == "chat":
            try:
                chat_throttle_check(user)
                return True
            except Throttled:
                return False
        return LoginThrottle().allow_request(RequestFactory().post("/api/auth/login", REMOTE_ADDR=address), None)

    passed = run_together(*[once] * 40)
    assert api_settings.DEFAULT_THROTTLE_RATES[scope] == {"chat": "5/10s", "login": "10/min"}[scope]
    assert passed.count(True) == {"chat": 5, "login": 10}[scope]


@pytest.mark.redis
def test_room_code_look_ups_sent_at_once_are_counted_one_after_the_other(settings):
    """The room look-up throttle (30 a minute per user) under 40 look-ups at once: exactly 30 pass."""
    from django.test import RequestFactory

    from rooms.throttles import RoomLookupUserThrottle

    user = UserFactory()
    view = type("LookupView", (), {"lookup_methods": ("GET",)})()
    assert api_settings.DEFAULT_THROTTLE_RATES["room_lookup"] == "30/min"
    def look_up() -> bool:
        request = RequestFactory().get("/api/rooms/ABCDEF")
        request.user = user
        return RoomLookupUserThrottle().allow_request(request, view)

    assert run_together(*[look_up] * 40).count(True) == 30


def test_a_user_creates_at_most_the_hourly_rooms_then_429(make_client):
    """``THROTTLE_ROOM_CREATE`` (60 an hour): the 61st room of a user in the hour is refused with 429
    ``throttled`` and ``Retry-After``, and no room is made; another user is not affected."""
    from rooms.models import Room

    assert api_settings.DEFAULT_THROTTLE_RATES["room_create"] == "60/hour"
    user = UserFactory()
    client = make_client(user)
    body = {"game": "chinchirorin", "seats": 2}
    for _ in range(60):
        assert client.post("/api/rooms", body, format="json").status_code == 201
    res = client.post("/api/rooms", body, format="json")
    assert (res.status_code, res.json()["code"]) == (429, "throttled")
    assert 1 <= int(res["Retry-After"]) <= 3600
    assert Room.objects.filter(host=user).count() == 60
    assert make_client(UserFactory()).post("/api/rooms", body, format="json").status_code == 201
