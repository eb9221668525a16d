"""The Accounts API of API.md: every call's success and failure, guest upgrade, revoked tokens,
throttling, and the error shape."""

import hashlib
import json

import pytest

from accounts.models import ApiToken, User
from accounts.sanctions import user_ban
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_guest_plays_with_only_a_display_name(api):
    res = api.post("/api/auth/guest", {"display_name": "  Hana  "}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert body["user"]["display_name"] == "Hana"
    assert body["user"]["is_guest"] is True
    assert set(body["user"]) == {"id", "username", "display_name", "is_guest"}
    stored = ApiToken.objects.get(user_id=body["user"]["id"])
    assert stored.digest == hashlib.sha256(body["token"].encode()).hexdigest() != body["token"]
    me = api.get("/api/me", HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert me.status_code == 200
    assert me.json()["id"] == body["user"]["id"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 33, "bad\x00name"])
def test_guest_refuses_bad_display_names(api, name):
    res = api.post("/api/auth/guest", {"display_name": name}, format="json")
    assert res.status_code == 400
    body = res.json()
    assert body["code"] == "invalid"
    assert "display_name" in body["fields"]
    assert User.objects.count() == 0


def test_guest_missing_field(api):
    res = api.post("/api/auth/guest", {}, format="json")
    assert res.status_code == 400
    assert res.json()["fields"]["display_name"] == ["This field is required."]


def test_register_new_account_then_login(api):
    res = api.post("/api/auth/register", {"username": "kenji", "password": PASSWORD, "display_name": "Kenji"},
                   format="json")
    assert res.status_code == 201, res.json()
    assert res.json()["user"]["is_guest"] is False
    res = api.post("/api/auth/login", {"username": "kenji", "password": PASSWORD}, format="json")
    assert res.status_code == 200
    assert res.json()["user"]["username"] == "kenji"


def test_guest_upgrades_in_place_keeping_its_id(api, make_client, guest):
    client = make_client(guest)
    res = client.post("/api/auth/register", {"username": "sakura", "password": PASSWORD, "display_name": "Sakura"},
                      format="json")
    assert res.status_code == 201, res.json()
    body = res.json()
    assert body["user"]["id"] == guest.id
    assert body["user"]["is_guest"] is False
    assert User.objects.count() == 1
    guest.refresh_from_db()
    assert guest.username == "sakura" and guest.check_password(PASSWORD)


def test_registered_user_cannot_register_again(make_client, user):
    res = make_client(user).post("/api/auth/register", {"username": "other1", "password": PASSWORD,
                                                        "display_name": "O"}, format="json")
    assert res.status_code == 400
    assert res.json()["code"] == "invalid"


def test_register_refuses_taken_username_any_case(api, user):
    res = api.post("/api/auth/register", {"username": user.username.upper(), "password": PASSWORD,
                                          "display_name": "Dup"}, format="json")
    assert res.status_code == 400
    assert "username" in res.json()["fields"]


@pytest.mark.parametrize("password", ["123", "password", "12345678901"])
def test_register_applies_password_validators(api, password):
    res = api.post("/api/auth/register", {"username": "yuki", "password": password, "display_name": "Yuki"},
                   format="json")
    assert res.status_code == 400
    assert "password" in res.json()["fields"]
    assert not User.objects.filter(username="yuki").exists()


def test_register_refuses_reserved_and_bad_usernames(api):
    for name in ["guest-abc", "a b", "x"]:
        res = api.post("/api/auth/register", {"username": name, "password": PASSWORD, "display_name": "N"},
                       format="json")
        assert res.status_code == 400, name
        assert "username" in res.json()["fields"]


def test_login_takes_the_username_in_any_case(api):
    """Usernames are unique whatever their case, so "KENJI" names the account "kenji" (phones capitalise)."""
    api.post("/api/auth/register", {"username": "kenji", "password": PASSWORD, "display_name": "Kenji"},
             format="json")
    res = api.post("/api/auth/login", {"username": "KENJI", "password": PASSWORD}, format="json")
    assert res.status_code == 200, res.json()
    assert res.json()["user"]["username"] == "kenji"
    res = api.post("/api/auth/login", {"username": "KENJI", "password": "nope"}, format="json")
    assert res.status_code == 400


def test_login_wrong_password(api, user):
    res = api.post("/api/auth/login", {"username": user.username, "password": "nope"}, format="json")
    assert res.status_code == 400
    assert res.json()["code"] == "invalid"


def test_banned_user_is_told_so_on_login_and_with_the_token(api, make_client, user):
    """Issue 12 probe 1: a banned user's valid token answers 403 banned (API.md), not 401."""
    client = make_client(user)
    user_ban(user=user, by=None, reason="cheating")
    res = client.get("/api/me")
    assert (res.status_code, res.json()["code"]) == (403, "banned")
    res = api.post("/api/auth/login", {"username": user.username, "password": PASSWORD}, format="json")
    assert (res.status_code, res.json()["code"]) == (403, "banned")
    res = api.post("/api/auth/login", {"username": user.username, "password": "wrong-one"}, format="json")
    assert (res.status_code, res.json()["code"]) == (400, "invalid")  # no standing told without the password


def test_logout_revokes_the_token(make_client, user):
    client = make_client(user)
    assert client.post("/api/auth/logout").status_code == 204
    res = client.get("/api/me")
    assert res.status_code == 401
    assert res.json()["code"] == "authentication_failed"


def test_me_requires_auth(api):
    res = api.get("/api/me")
    assert res.status_code == 401
    assert res.json() == {"code": "not_authenticated", "detail": "Authentication credentials were not provided."}


def test_me_shows_default_ratings(make_client, user):
    body = make_client(user).get("/api/me").json()
    assert body["ratings"] == {"chinchirorin": {"rating": 1500, "games": 0}, "chinchon": {"rating": 1500, "games": 0}}


def test_bad_token_is_authentication_failed(api):
    res = api.get("/api/me", HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert res.status_code == 401
    assert res.json()["code"] == "authentication_failed"


def test_guest_creation_is_throttled(api):
    from rest_framework.throttling import SimpleRateThrottle

    rates = dict(SimpleRateThrottle.THROTTLE_RATES)
    SimpleRateThrottle.THROTTLE_RATES = {**rates, "guest": "3/min"}
    try:
        codes = [api.post("/api/auth/guest", {"display_name": f"g{i}"}, format="json").status_code for i in range(4)]
        assert codes == [201, 201, 201, 429]
        res = api.post("/api/auth/guest", {"display_name": "g"}, format="json")
        assert res.json()["code"] == "throttled"
        assert int(res["Retry-After"]) > 0
    finally:
        SimpleRateThrottle.THROTTLE_RATES = rates


def test_login_is_throttled(api, user):
    from rest_framework.throttling import SimpleRateThrottle

    rates = dict(SimpleRateThrottle.THROTTLE_RATES)
    SimpleRateThrottle.THROTTLE_RATES = {**rates, "login": "2/min"}
    try:
        codes = [api.post("/api/auth/login", {"username": user.username, "password": "x"}, format="json").status_code
                 for _ in range(3)]
        assert codes == [400, 400, 429]
    finally:
        SimpleRateThrottle.THROTTLE_RATES = rates


def test_malformed_json_is_parse_error(api):
    res = api.generic("POST", "/api/auth/guest", "{not json", content_type="application/json")
    assert res.status_code == 400
    assert res.json()["code"] == "parse_error"


def test_oversized_body_is_too_large(api):
    body = json.dumps({"display_name": "x" * (65 * 1024)})
    res = api.generic("POST", "/api/auth/guest", body, content_type="application/json")
    assert res.status_code == 413
    assert res.json()["code"] == "too_large"
    assert User.objects.count() == 0


def test_non_json_is_unsupported_media_type(api):
    res = api.post("/api/auth/guest", "display_name=x", content_type="application/x-www-form-urlencoded")
    assert res.status_code == 415
    assert res.json()["code"] == "unsupported_media_type"


def test_wrong_method(api):
    res = api.get("/api/auth/guest")
    assert res.status_code == 405
    assert res.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize("path", ["/api/nothing-here", "/api/games/abc", "/api/rooms/x/y/z"])
def test_unknown_url_is_not_found_in_shape_even_in_debug(api, settings, path):
    settings.DEBUG = True  # Django's technical 404 page would answer without the catch-all
    res = api.get(path)
    assert res.status_code == 404
    assert res.json() == {"code": "not_found", "detail": "Not found."}


def test_json_array_body_is_invalid_not_500(api):
    res = api.generic("POST", "/api/auth/guest", "[1,2]", content_type="application/json")
    assert res.status_code == 400
    assert res.json()["code"] == "invalid"
