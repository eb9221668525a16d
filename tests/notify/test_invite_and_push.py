"""Invitations' refusals, and Web Push (VAPID) against a push service run in the test: a tiny HTTP server
receiving the encrypted message, decrypted here with the browser's keys (``http_ece``, RFC 8291) to assert
the payload (issue #39 item 5)."""

import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.core.cache import cache

from notify.models import PushSubscription
from notify.push import push_key, push_to_user
from notify.services import push_subscribe
from ranking.services import friendship_make
from rooms import services as rooms_services
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on 127.0.0.1: records each POST (path, headers, body) and answers ``status``."""

    def __init__(self):
        self.received, self.status = [], 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                service.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def push_service(settings):
    settings.PUSH_ENDPOINT_SCHEMES = ["http"]
    settings.PUSH_ENDPOINT_HOSTS = ["127.0.0.1"]
    service = PushService()
    yield service
    service.close()


class Browser:
    """A browser's push keys: its P-256 key pair and 16-byte auth secret."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.p256dh = b64url(self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))

    def subscription(self, endpoint: str) -> dict:
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
                "expirationTime": None}

    def decrypt(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


@pytest.fixture
def friends(make_client):
    ann, cid = UserFactory(display_name="Ann"), UserFactory(display_name="Cid")
    friendship_make(user_a_id=ann.pk, user_b_id=cid.pk, source="request")
    return make_client(ann), make_client(cid)


def test_an_invitation_by_web_push_when_no_user_socket_is_open(friends, push_service, django_capture_on_commit_callbacks):
    ann, cid = friends
    browser = Browser()
    res = cid.post("/api/push/subscriptions", browser.subscription(f"{push_service.url}/sub/1"), format="json")
    assert (res.status_code, res.json()) == (201, {"endpoint": f"{push_service.url}/sub/1"})
    code = ann.post("/api/rooms", {"game": "chinchon"}, format="json").json()["code"]
    with django_capture_on_commit_callbacks(execute=True):
        assert ann.post(f"/api/rooms/{code}/invite", {"user_id": cid.user.pk}, format="json").status_code == 200
    [(path, headers, body)] = push_service.received
    assert path == "/sub/1" and headers["content-encoding"] == "aes128gcm" and int(headers["ttl"]) > 0
    public_key = ann.get("/api/push/key").json()["public_key"]
    assert len(unb64url(public_key)) == 65
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid" and f"k={public_key}" in params  # signed with the server's VAPID key
    assert browser.decrypt(body) == {"title": "An invitation", "type": "invitation", "room": code,
                                     "invite_url": f"http://testserver/join/{code}", "game": "chinchon",
                                     "from": {"id": ann.user.pk, "display_name": "Ann"}}


def test_a_turn_by_web_push_and_a_gone_subscription_is_dropped(push_service, django_capture_on_commit_callbacks):
    host, other = UserFactory(), UserFactory()
    browser = Browser()
    push_subscribe(user=other, endpoint=f"{push_service.url}/sub/2", p256dh=browser.p256dh, auth=b64url(browser.auth))
    room = rooms_services.room_create(user=host, game="chinchirorin", seats=2, rules={"first_dealer": "seat"})
    rooms_services.room_join(code=room.code, user=other)
    with django_capture_on_commit_callbacks(execute=True):
        rooms_services.room_start(code=room.code, user=host)
    room.refresh_from_db()
    [(_, _, body)] = push_service.received  # seat 1 (other) is awaited for its bet; the dealer is not
    assert browser.decrypt(body) == {"title": "Your turn", "type": "turn", "game_id": room.game_id,
                                     "game": "chinchirorin", "room": room.code, "url": f"/room/{room.code}",
                                     "deadline": None}
    push_service.status = 410
    assert push_to_user(other.pk, {"type": "turn"}) == 0
    assert not PushSubscription.objects.filter(user=other).exists()
    assert cache.get(push_key(other.pk)) is None  # nothing more is pushed to other


@pytest.mark.parametrize(("change", "field"), [
    ({"endpoint": "https://evil.example/collect"}, "endpoint"),
    ({"endpoint": "http://fcm.googleapis.com/x"}, "endpoint"),
    ({"keys": {"p256dh": b64url(b"\x04" + b"1" * 63), "auth": b64url(b"a" * 16)}}, "keys"),
    ({"keys": {"p256dh": b64url(b"\x04" + b"1" * 64), "auth": b64url(b"a" * 15)}}, "keys"),
])
def test_a_subscription_must_point_at_a_push_service_with_browser_keys(make_client, change, field):
    client = make_client(UserFactory())
    body = {"endpoint": "https://fcm.googleapis.com/fcm/send/abc",
            "keys": {"p256dh": b64url(b"\x04" + b"1" * 64), "auth": b64url(b"a" * 16)}, **change}
    res = client.post("/api/push/subscriptions", body, format="json")
    assert (res.status_code, res.json()["code"], list(res.json()["fields"])) == (400, "invalid", [field])
    assert not PushSubscription.objects.exists()
    good = {"endpoint": "https://fcm.googleapis.com/fcm/send/abc",
            "keys": {"p256dh": b64url(b"\x04" + b"1" * 64), "auth": b64url(b"a" * 16)}}
    ok = client.post("/api/push/subscriptions", good, format="json")
    assert ok.status_code == 201
    gone = client.delete("/api/push/subscriptions", {"endpoint": "https://fcm.googleapis.com/fcm/send/abc"},
                         format="json")
    assert gone.status_code == 204 and not PushSubscription.objects.exists()
    assert client.delete("/api/push/subscriptions", {"endpoint": "https://x"}, format="json").status_code == 404


def test_invitation_refusals(friends, make_client):
    ann, cid = friends
    stranger = make_client(UserFactory())
    code = ann.post("/api/rooms", {"game": "chinchirorin"}, format="json").json()["code"]
    res = ann.post(f"/api/rooms/{code}/invite", {"user_id": stranger.user.pk}, format="json")
    assert (res.status_code, res.json()["code"], list(res.json()["fields"])) == (400, "invalid", ["user_id"])
    res = ann.post(f"/api/rooms/{code}/invite", {"user_id": ann.user.pk}, format="json")
    assert (res.status_code, res.json()["code"]) == (400, "invalid")
    res = stranger.post(f"/api/rooms/{code}/invite", {"user_id": cid.user.pk}, format="json")
    assert (res.status_code, res.json()["code"]) == (403, "not_in_room")
    assert ann.post("/api/rooms/ZZZZZZ/invite", {"user_id": cid.user.pk}, format="json").status_code == 404
    assert ann.post(f"/api/rooms/{code}/invite", {"user_id": "x"}, format="json").status_code == 400
    cid.post(f"/api/rooms/{code}/join")
    res = ann.post(f"/api/rooms/{code}/invite", {"user_id": cid.user.pk}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "already_seated")
    ann.post(f"/api/rooms/{code}/start")
    res = ann.post(f"/api/rooms/{code}/invite", {"user_id": cid.user.pk}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")
