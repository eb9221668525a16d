"""Odd requests a client can send get API.md errors, never a 500."""

import pytest

from tests.ranking.factories import UserFactory

pytestmark = pytest.mark.django_db

BIG = 10**30


@pytest.mark.parametrize("method,path,body,status", [
    ("post", "/api/friends", {"user_id": BIG}, 400),
    ("post", "/api/friends", {"user_id": 1.5}, 400),
    ("post", "/api/friends", {"user_id": None}, 400),
    ("delete", "/api/friends", {"user_id": BIG}, 400),
    ("get", f"/api/users/{BIG}/stats", None, 404),
    ("get", f"/api/users/{BIG}/achievements", None, 404),
    ("get", "/api/users/0/stats", None, 404),
    ("get", f"/api/leaderboard?game=chinchon&page={BIG}", None, 404),
    ("get", "/api/leaderboard?game=chinchon&page=abc", None, 404),
    ("get", f"/api/leaderboard?game=chinchon&page_size={BIG}", None, 200),
    ("get", "/api/leaderboard?game=chinchon&scope=friends&scope=all", None, 200),
    ("post", "/api/queue", {"game": "chinchon", "seats": BIG}, 400),
    ("post", "/api/queue", {"game": None, "seats": 2}, 400),
    ("post", "/api/queue", [1, 2], 400),
    ("put", "/api/queue", {}, 405),
    ("patch", "/api/friends", {}, 405),
])
def test_odd_requests(make_client, method, path, body, status):
    client = make_client(UserFactory())
    res = getattr(client, method)(path, body, format="json") if body is not None else getattr(client, method)(path)
    assert res.status_code == status, res.content
    assert "code" in res.json() or status == 200
