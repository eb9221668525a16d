"""Issue 12 probe 2: registration and guest upgrade are race-safe on PostgreSQL. Requests sent together
(threads, each on its own connection, released by a barrier; the password check made slow to widen the
window between the username check and the insert) never answer 500 and never make two accounts; the
loser gets the very 400 the sequential case gives."""

import time

import pytest
from rest_framework.test import APIClient

from accounts import services
from accounts.models import User
from tests.concurrency import run_together
from tests.factories import PASSWORD, GuestFactory, token_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def slow_password_check(monkeypatch):
    real = services.validate_password
    monkeypatch.setattr(services, "validate_password", lambda pw, user: (time.sleep(0.2), real(pw, user))[1])


def post_together(bodies, token=None):
    """POST each body to /api/auth/register at once; returns the responses in order."""

    def post(body):
        client = APIClient()
        if token:
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return lambda: client.post("/api/auth/register", body, format="json")

    answers = run_together(*[post(b) for b in bodies])
    errors = [a for a in answers if isinstance(a, Exception)]
    assert not errors, errors
    return answers


def _body(username):
    return {"username": username, "password": PASSWORD, "display_name": "Hana"}


def test_a_double_tap_makes_one_account_and_the_sequential_400():
    answers = post_together([_body("hana")] * 2)
    assert sorted(a.status_code for a in answers) == [201, 400]
    loser = next(a for a in answers if a.status_code == 400)
    sequential = APIClient().post("/api/auth/register", _body("hana"), format="json")
    assert loser.json() == sequential.json() == {
        "code": "invalid", "detail": "username: That username is taken.",
        "fields": {"username": ["That username is taken."]}}
    assert User.objects.filter(username__iexact="hana").count() == 1


def test_names_differing_only_in_case_make_one_account():
    answers = post_together([_body("Case123"), _body("case123")])
    assert sorted(a.status_code for a in answers) == [201, 400]
    assert User.objects.filter(username__iexact="case123").count() == 1


def test_one_guest_registering_twice_at_once_gets_one_account_that_logs_in():
    guest = GuestFactory()
    token = token_for(guest)
    answers = post_together([_body("first-name"), _body("second-name")], token=token)
    assert sorted(a.status_code for a in answers) == [201, 400]
    won = next(a for a in answers if a.status_code == 201).json()
    lost = next(a for a in answers if a.status_code == 400).json()
    assert won["user"]["id"] == guest.pk and won["token"] == token
    assert lost["detail"] == "Already registered; log out to register another account."
    assert User.objects.filter(is_guest=False).count() == 1
    login = APIClient().post("/api/auth/login", {"username": won["user"]["username"], "password": PASSWORD},
                             format="json")
    assert login.status_code == 200 and login.json()["user"]["id"] == guest.pk
