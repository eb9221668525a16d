"""Friends: requests, accepting, removing, invitations through rooms.signals.room_joined."""

import pytest

from ranking import services
from ranking.models import FriendRequest, Friendship
from ranking.selectors import are_friends, friend_ids
from tests.ranking.factories import FriendRequestFactory, FriendshipFactory, GuestFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_request_then_accept_through_the_api(make_client):
    a, b = UserFactory(), UserFactory()
    ca, cb = make_client(a), make_client(b)
    res = ca.post("/api/friends", {"user_id": b.id}, format="json")
    assert res.status_code == 201, res.json()
    assert res.json() == {"status": "requested", "player": {"id": b.id, "display_name": b.display_name}}
    # sending again changes nothing
    assert ca.post("/api/friends", {"user_id": b.id}, format="json").status_code == 200

    listing_a = ca.get("/api/friends").json()
    assert listing_a["friends"] == [] and listing_a["incoming"] == []
    assert [r["player"]["id"] for r in listing_a["outgoing"]] == [b.id]
    listing_b = cb.get("/api/friends").json()
    assert [r["player"]["id"] for r in listing_b["incoming"]] == [a.id]
    assert listing_b["incoming"][0]["at"].endswith("Z")

    res = cb.post("/api/friends", {"user_id": a.id}, format="json")
    assert res.status_code == 201
    assert res.json()["status"] == "friends"
    assert are_friends(a.id, b.id)
    assert not FriendRequest.objects.exists()
    body = ca.get("/api/friends").json()
    assert [f["player"]["id"] for f in body["friends"]] == [b.id]
    assert body["friends"][0]["source"] == "request"
    assert body["outgoing"] == [] and body["incoming"] == []
    # already friends
    res = ca.post("/api/friends", {"user_id": b.id}, format="json")
    assert res.status_code == 200 and res.json()["status"] == "friends"


def test_remove_friend_and_decline_and_cancel(make_client):
    a, b, c, d = UserFactory(), UserFactory(), UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    FriendRequestFactory(from_user=c, to_user=a)
    FriendRequestFactory(from_user=a, to_user=d)
    ca = make_client(a)
    assert ca.delete("/api/friends", {"user_id": b.id}, format="json").status_code == 204
    assert not are_friends(a.id, b.id)
    assert ca.delete("/api/friends", {"user_id": c.id}, format="json").status_code == 204  # decline
    assert ca.delete(f"/api/friends?user_id={d.id}").status_code == 204  # cancel, id in the query
    assert not FriendRequest.objects.exists()
    # idempotent
    assert ca.delete("/api/friends", {"user_id": b.id}, format="json").status_code == 204


def test_bad_bodies(make_client):
    a = UserFactory()
    ca = make_client(a)
    res = ca.post("/api/friends", {"user_id": a.id}, format="json")
    assert res.status_code == 400 and res.json()["code"] == "invalid" and "user_id" in res.json()["fields"]
    res = ca.post("/api/friends", {"user_id": 999999}, format="json")
    assert res.status_code == 404 and res.json()["code"] == "not_found"
    for body in ({}, {"user_id": "x"}, {"user_id": True}, {"user_id": -3}, []):
        res = ca.post("/api/friends", body, format="json")
        assert res.status_code == 400, body
        assert res.json()["code"] == "invalid"
    res = ca.post("/api/friends", "{nope", content_type="application/json")
    assert res.status_code == 400 and res.json()["code"] == "parse_error"
    assert ca.delete("/api/friends").status_code == 400
    assert ca.delete("/api/friends?user_id=abc").status_code == 400


def test_needs_authentication(api):
    res = api.get("/api/friends")
    assert res.status_code == 401 and res.json()["code"] == "not_authenticated"


def test_guests_may_have_friends(make_client):
    g, u = GuestFactory(), UserFactory()
    assert make_client(g).post("/api/friends", {"user_id": u.id}, format="json").status_code == 201
    assert make_client(u).post("/api/friends", {"user_id": g.id}, format="json").status_code == 201
    assert are_friends(g.id, u.id)


def test_room_join_makes_friends_once():
    host, joiner = UserFactory(), UserFactory()
    FriendRequestFactory(from_user=joiner, to_user=host)
    from rooms.signals import room_joined

    room_joined.send(sender=None, room_id=1, user_id=joiner.id, host_id=host.id)
    room_joined.send(sender=None, room_id=1, user_id=joiner.id, host_id=host.id)
    assert Friendship.objects.count() == 1
    f = Friendship.objects.get()
    assert f.source == "invite" and (f.user_low_id, f.user_high_id) == tuple(sorted((host.id, joiner.id)))
    assert not FriendRequest.objects.exists()
    # the host joining its own room, or no host: nothing
    room_joined.send(sender=None, room_id=1, user_id=host.id, host_id=host.id)
    room_joined.send(sender=None, room_id=1, user_id=host.id, host_id=None)
    assert Friendship.objects.count() == 1
    assert friend_ids(host.id) == {joiner.id}


def test_friendship_make_service_is_idempotent():
    a, b = UserFactory(), UserFactory()
    assert services.friendship_make(user_a_id=b.id, user_b_id=a.id, source="invite") is True
    assert services.friendship_make(user_a_id=a.id, user_b_id=b.id, source="request") is False
    assert Friendship.objects.get().source == "invite"
