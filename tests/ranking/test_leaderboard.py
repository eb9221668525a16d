"""GET /api/leaderboard: scopes, ranks shared by ties, pagination, who is listed."""

import pytest

from tests.ranking.factories import FriendshipFactory, RatingFactory, UserFactory

pytestmark = pytest.mark.django_db


def rows(res):
    assert res.status_code == 200, res.json()
    return [(r["rank"], r["player"]["id"], r["rating"], r["games"]) for r in res.json()["results"]]


@pytest.fixture
def board():
    users = [UserFactory() for _ in range(6)]
    for u, rating in zip(users, (1600, 1550, 1550, 1500, 1450, 1450), strict=True):
        RatingFactory(user=u, rating=rating, games=3)
    return users


def test_all_scope_ranks_and_ties(make_client, board):
    u = board
    unrated = UserFactory()
    RatingFactory(user=unrated, rating=1500, games=0)  # no rated game: not listed
    RatingFactory(user=u[0], game="chinchon", rating=1700, games=1)  # another game: not listed
    banned = UserFactory(is_active=False)
    RatingFactory(user=banned, rating=2000, games=5)
    res = make_client(u[3]).get("/api/leaderboard?game=chinchirorin")
    assert res.json()["count"] == 6
    assert rows(res) == [
        (1, u[0].id, 1600, 3),
        (2, u[1].id, 1550, 3),
        (2, u[2].id, 1550, 3),
        (4, u[3].id, 1500, 3),
        (5, u[4].id, 1450, 3),
        (5, u[5].id, 1450, 3),
    ]
    assert res.json()["results"][0]["player"] == {"id": u[0].id, "display_name": u[0].display_name}


def test_friends_scope(make_client, board):
    u = board
    FriendshipFactory(a=u[3], b=u[2])
    FriendshipFactory(a=u[5], b=u[3])
    res = make_client(u[3]).get("/api/leaderboard?game=chinchirorin&scope=friends")
    assert rows(res) == [(1, u[2].id, 1550, 3), (2, u[3].id, 1500, 3), (3, u[5].id, 1450, 3)]
    # no friends: only oneself; unrated oneself: empty
    assert rows(make_client(u[0]).get("/api/leaderboard?game=chinchirorin&scope=friends")) == [(1, u[0].id, 1600, 3)]
    assert rows(make_client(UserFactory()).get("/api/leaderboard?game=chinchirorin&scope=friends")) == []


def test_pagination_keeps_global_ranks(make_client, board):
    u = board
    client = make_client(u[0])
    p1 = client.get("/api/leaderboard?game=chinchirorin&page_size=4")
    assert [r[0] for r in rows(p1)] == [1, 2, 2, 4]
    assert p1.json()["next"] and p1.json()["previous"] is None
    p2 = client.get("/api/leaderboard?game=chinchirorin&page_size=4&page=2")
    assert rows(p2) == [(5, u[4].id, 1450, 3), (5, u[5].id, 1450, 3)]
    assert p2.json()["next"] is None
    res = client.get("/api/leaderboard?game=chinchirorin&page=9")
    assert res.status_code == 404 and res.json()["code"] == "not_found"


@pytest.mark.parametrize("query", ["", "?game=poker", "?game=chinchon&scope=world", "?scope=all"])
def test_bad_queries(make_client, query):
    res = make_client(UserFactory()).get(f"/api/leaderboard{query}")
    assert res.status_code == 400
    assert res.json()["code"] == "invalid"


def test_needs_a_token(api):
    assert api.get("/api/leaderboard?game=chinchon").status_code == 401
