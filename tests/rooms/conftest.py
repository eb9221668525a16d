"""Fixtures of the rooms tests: API clients for users and a ``new_room`` helper."""

import pytest

from tests.factories import GuestFactory, UserFactory


@pytest.fixture
def host(db, make_client):
    """A registered user's client (the host in most tests)."""
    return make_client(UserFactory(display_name="Host"))


@pytest.fixture
def other(db, make_client):
    """Another registered user's client."""
    return make_client(UserFactory(display_name="Other"))


@pytest.fixture
def third(db, make_client):
    """A third registered user's client."""
    return make_client(UserFactory(display_name="Third"))


@pytest.fixture
def guest_client(db, make_client):
    """A guest's client."""
    return make_client(GuestFactory(display_name="Guest"))


@pytest.fixture
def new_room(host):
    """``new_room(client=host, **body)`` -> the created ``room`` (asserts 201); 4 seats unless ``seats``
    is given (the API's default is ``"auto"``: tests/rooms/test_seats_auto.py)."""

    def _new(client=None, **body):
        body.setdefault("game", "chinchirorin")
        body.setdefault("seats", 4)
        res = (client or host).post("/api/rooms", body, format="json")
        assert res.status_code == 201, res.json()
        return res.json()

    return _new
