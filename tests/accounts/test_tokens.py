"""API tokens (issue 37 item 7): stored hashed (nobody reads one back, the admin included), several per
user (one per device), a registered player's token over after TOKEN_IDLE_DAYS unused, a guest's not."""

import hashlib
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import ApiToken
from tests.factories import PASSWORD, GuestFactory, UserFactory

pytestmark = pytest.mark.django_db


def _me(api, key):
    return api.get("/api/me", HTTP_AUTHORIZATION=f"Token {key}")


def _age(key, days):
    digest = hashlib.sha256(key.encode()).hexdigest()
    ApiToken.objects.filter(digest=digest).update(last_used_at=timezone.now() - timedelta(days=days))


def test_only_a_digest_is_stored_and_each_login_is_its_own_token(api):
    user = UserFactory(username="hana")
    keys = [api.post("/api/auth/login", {"username": "hana", "password": PASSWORD}, format="json").json()["token"]
            for _ in range(2)]
    assert keys[0] != keys[1] and all(len(k) == 40 for k in keys)
    stored = set(ApiToken.objects.filter(user=user).values_list("digest", flat=True))
    assert stored == {hashlib.sha256(k.encode()).hexdigest() for k in keys}
    assert [_me(api, k).status_code for k in keys] == [200, 200]  # two devices
    assert _me(api, keys[0]).status_code == 200
    api.post("/api/auth/logout", HTTP_AUTHORIZATION=f"Token {keys[0]}")
    assert [_me(api, k).status_code for k in keys] == [401, 401]  # logout signs every device out


@override_settings(TOKEN_IDLE_DAYS=30, TOKEN_TOUCH_SECONDS=3600)
def test_a_registered_players_idle_token_ends_a_guests_does_not(api):
    player, guest = UserFactory(username="hana"), GuestFactory()
    key = api.post("/api/auth/login", {"username": "hana", "password": PASSWORD}, format="json").json()["token"]
    guest_key = api.post("/api/auth/guest", {"display_name": "Gus"}, format="json").json()["token"]
    _age(key, 29)
    assert _me(api, key).status_code == 200  # used: idle time starts again
    row = ApiToken.objects.get(user=player)
    assert timezone.now() - row.last_used_at < timedelta(minutes=5)
    _age(key, 31)
    res = _me(api, key)
    assert (res.status_code, res.json()["code"]) == (401, "authentication_failed")
    assert not ApiToken.objects.filter(user=player).exists()
    _age(guest_key, 400)
    assert _me(api, guest_key).status_code == 200
    assert guest.pk != player.pk


def test_nobody_reads_tokens_in_the_admin(admin_client):
    UserFactory()
    assert admin_client.get("/admin/authtoken/tokenproxy/").status_code == 404
    assert b"authtoken" not in admin_client.get("/admin/").content
