"""Issue 37 item 5: alternate accounts. Addresses and page device ids of sign-ups, logins and sockets
kept for TRACE_DAYS and listed on the user's admin page; a banned or suspended guest's device refused
new guests; address blocks refusing logins and sockets too; blocks wider than /16 (IPv4) or /48 (IPv6)
refused."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts import sanctions
from accounts.models import IpBlock, Trace, User
from accounts.traces import traces_purge
from config.asgi import application
from rooms import services as rooms
from tests.factories import PASSWORD, UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator

DEVICE = "device-0123456789"


def _guest(api, name, device=DEVICE, address="198.51.100.7"):
    return api.post("/api/auth/guest", {"display_name": name}, format="json", HTTP_X_DEVICE_ID=device,
                    REMOTE_ADDR=address)


@pytest.mark.django_db
def test_blocks_wider_than_the_settings_are_refused(moderator, mod):
    for network in ("0.0.0.0/0", "10.0.0.0/15", "2001:db8::/47", "::/0"):
        with pytest.raises(ValidationError) as exc:
            sanctions.ip_block(network=network, by=moderator, reason="spam")
        assert list(exc.value.message_dict) == ["network"]
    assert sanctions.ip_block(network="10.1.2.3/16", by=moderator, reason="spam").network == "10.1.0.0/16"
    assert sanctions.ip_block(network="2001:db8::/48", by=moderator, reason="spam").network == "2001:db8::/48"
    res = mod.post("/admin/accounts/ipblock/add/", {"network": "0.0.0.0/0", "reason": "everyone"})
    assert res.status_code == 200 and b"Too wide: at most a /16 network for IPv4." in res.content
    assert IpBlock.objects.count() == 2


@pytest.mark.django_db
def test_an_address_block_refuses_logins_too(api, moderator):
    UserFactory(username="hana")
    sanctions.ip_block(network="203.0.113.0/24", by=moderator, reason="credential stuffing")
    login = {"username": "hana", "password": PASSWORD}
    res = api.post("/api/auth/login", login, format="json", REMOTE_ADDR="203.0.113.9")
    assert (res.status_code, res.json()["code"], res.json()["until"]) == (403, "address_blocked", None)
    assert api.post("/api/auth/login", login, format="json", REMOTE_ADDR="192.0.2.1").status_code == 200


@pytest.mark.django_db
def test_a_sanctioned_guests_device_gets_no_new_guest_for_as_long(api, moderator):
    first = _guest(api, "Spammer").json()["user"]
    until = timezone.now() + timedelta(hours=3)
    sanctions.user_suspend(user=User.objects.get(pk=first["id"]), by=moderator, reason="spam", until=until)
    res = _guest(api, "Spammer", address="192.0.2.50")
    assert (res.status_code, res.json()["code"]) == (403, "device_blocked")
    assert res.json()["until"].startswith(until.strftime("%Y-%m-%dT%H:%M"))
    assert _guest(api, "Someone else", device="other-device-42").status_code == 201
    sanctions.user_ban(user=User.objects.get(pk=first["id"]), by=moderator, reason="spam again")
    res = _guest(api, "Spammer")
    assert (res.status_code, res.json()["until"]) == (403, None)
    sanctions.user_ban_lift(user=User.objects.get(pk=first["id"]), by=moderator, reason="appeal")
    sanctions.user_suspend_lift(user=User.objects.get(pk=first["id"]), by=moderator, reason="appeal")
    assert _guest(api, "Reformed").status_code == 201


@pytest.mark.django_db
def test_the_user_page_lists_accounts_sharing_an_address_or_device_and_old_traces_go(api, mod):
    ann, bob, cat = UserFactory(username="ann"), UserFactory(username="bob"), UserFactory(username="cat")
    for user, address, device in ((ann, "198.51.100.1", "ann-laptop-1"), (bob, "198.51.100.1", "bob-phone-1"),
                                  (cat, "192.0.2.9", "ann-laptop-1")):
        assert api.post("/api/auth/login", {"username": user.username, "password": PASSWORD}, format="json",
                        REMOTE_ADDR=address, HTTP_X_DEVICE_ID=device).status_code == 200
    page = mod.get(f"/admin/accounts/user/{ann.pk}/change/")
    rows = [(r["user"].username, r["addresses"], r["devices"]) for r in page.context["ov"]["sharing"]]
    assert sorted(rows) == [("bob", ["198.51.100.1"], []), ("cat", [], ["ann-laptop-1"])]
    assert f"/admin/accounts/user/{bob.pk}/change/" in page.content.decode()
    Trace.objects.filter(user=cat).update(created_at=timezone.now() - timedelta(days=31))
    assert traces_purge() == 1
    assert Trace.objects.filter(user=cat).count() == 0 and Trace.objects.count() == 2


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_channel_layer")
async def test_an_address_block_refuses_sockets_with_4411():
    def setup():
        ann = UserFactory()
        moderator = UserFactory(is_staff=True)
        room = rooms.room_create(user=ann, game="chinchirorin", seats=2)
        sanctions.ip_block(network="203.0.113.0/24", by=moderator, reason="abuse")
        return room.code, token_for(ann), ann

    code, key, ann = await database_sync_to_async(setup)()
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}&device=sock-device-1")
    comm.scope["client"] = ("203.0.113.20", 5555)
    assert (await comm.connect(timeout=5))[0]
    error = await comm.receive_json_from(timeout=5)
    assert (error["type"], error["code"]) == ("error", "address_blocked")
    assert (await comm.receive_output(timeout=5))["code"] == 4411
    ok = WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}&device=sock-device-1")
    ok.scope["client"] = ("192.0.2.20", 5555)
    assert (await ok.connect(timeout=5))[0]
    assert (await ok.receive_json_from(timeout=5))["type"] == "room"
    await ok.disconnect()
    traces = await database_sync_to_async(lambda: list(Trace.objects.filter(user=ann).values_list(
        "kind", "address", "device")))()
    assert traces == [("socket", "192.0.2.20", "sock-device-1")]
