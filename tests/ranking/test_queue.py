"""The ranked queue among friends: matching by closest rating, expiry, guests refused, leaving, the
socket message."""

from datetime import timedelta
from types import SimpleNamespace

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from ranking import services
from ranking.models import QueueEntry
from tests.ranking.factories import (
    FriendshipFactory,
    GuestFactory,
    QueueEntryFactory,
    RatingFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rooms_made(monkeypatch):
    """Replace the rooms service with a recorder (the real one is used in test_queue_makes_a_real_room)."""
    made = []

    def fake(*, game, seats, users, rules=None):
        made.append({"game": game, "seats": seats, "users": [u.id for u in users]})
        if rules:
            made[-1]["rules"] = rules
        return SimpleNamespace(code=f"QQQ{len(made):03d}")

    monkeypatch.setattr("rooms.services.room_create_ranked_for_queue", fake)
    return made


def join(client, game="chinchirorin", seats=2):
    return client.post("/api/queue", {"game": game, "seats": seats}, format="json")


def test_guest_is_refused(make_client, rooms_made):
    res = join(make_client(GuestFactory()))
    assert res.status_code == 403
    assert res.json()["code"] == "registration_required"
    assert not QueueEntry.objects.exists()


def test_alone_waits_then_a_friend_matches(make_client, rooms_made, django_capture_on_commit_callbacks):
    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    ca, cb = make_client(a), make_client(b)
    assert ca.get("/api/queue").json()["status"] == "none"
    res = join(ca)
    assert res.status_code == 201
    body = res.json()
    assert body["status"] == "waiting" and body["room"] is None and body["game"] == "chinchirorin"
    assert body["seats"] == 2 and body["expires_at"].endswith("Z")

    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(services.user_group(a.id), channel)
    with django_capture_on_commit_callbacks(execute=True):
        res = join(cb)
    assert res.json()["status"] == "matched"
    code = res.json()["room"]
    assert rooms_made == [{"game": "chinchirorin", "seats": 2, "users": [b.id, a.id]}]
    assert ca.get("/api/queue").json()["status"] == "matched"
    assert ca.get("/api/queue").json()["room"] == code
    msg = async_to_sync(layer.receive)(channel)
    assert msg == {"type": "queue.matched", "payload": {"type": "queue", "status": "matched", "room": code}}
    async_to_sync(layer.group_discard)(services.user_group(a.id), channel)


def test_strangers_do_not_match(make_client, rooms_made):
    a, b = UserFactory(), UserFactory()
    join(make_client(a))
    assert join(make_client(b)).json()["status"] == "waiting"
    assert rooms_made == []


def test_closest_rating_first(make_client, rooms_made):
    me = UserFactory()
    RatingFactory(user=me, rating=1500)
    far, near, mid = UserFactory(), UserFactory(), UserFactory()
    for friend, rating in ((far, 1700), (near, 1480), (mid, 1550)):
        FriendshipFactory(a=me, b=friend)
        RatingFactory(user=friend, rating=rating)
        QueueEntryFactory(user=friend, seats=3)
    stranger = UserFactory()
    RatingFactory(user=stranger, rating=1500)
    QueueEntryFactory(user=stranger, seats=3)
    res = join(make_client(me), seats=3)
    assert res.json()["status"] == "matched"
    # |1480-1500| = 20, |1550-1500| = 50, |1700-1500| = 200
    assert rooms_made[0]["users"] == [me.id, near.id, mid.id]
    assert QueueEntry.objects.get(user=far).status == "waiting"
    assert QueueEntry.objects.get(user=stranger).status == "waiting"


def test_same_game_and_seats_only(make_client, rooms_made):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    FriendshipFactory(a=a, b=c)
    QueueEntryFactory(user=b, game="chinchon", seats=2)
    QueueEntryFactory(user=c, game="chinchirorin", seats=3)
    assert join(make_client(a)).json()["status"] == "waiting"
    assert rooms_made == []


def test_expired_entries_are_not_matched(make_client, rooms_made):
    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    past = timezone.now() - timedelta(minutes=11)
    QueueEntryFactory(user=b, created_at=past)
    assert make_client(b).get("/api/queue").json()["status"] == "expired"
    assert join(make_client(a)).json()["status"] == "waiting"
    assert rooms_made == []
    # the cleanup task deletes it
    from ranking.tasks import queue_expire

    assert queue_expire.delay().get() == 1
    assert make_client(b).get("/api/queue").json()["status"] == "none"
    assert QueueEntry.objects.filter(user=a).exists()


def test_leave(make_client, rooms_made):
    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    cb = make_client(b)
    join(cb)
    assert cb.delete("/api/queue").status_code == 204
    assert cb.get("/api/queue").json()["status"] == "none"
    assert cb.delete("/api/queue").status_code == 204
    assert join(make_client(a)).json()["status"] == "waiting"
    assert rooms_made == []


def test_joining_again_replaces_the_entry(make_client, rooms_made):
    a = UserFactory()
    ca = make_client(a)
    join(ca, seats=2)
    body = join(ca, game="chinchon", seats=3).json()
    assert body["game"] == "chinchon" and body["seats"] == 3
    assert QueueEntry.objects.filter(user=a).count() == 1


@pytest.mark.parametrize("body", [
    {"game": "poker", "seats": 2},
    {"game": "chinchirorin", "seats": 9},
    {"game": "chinchirorin", "seats": 1},
    {"game": "chinchon", "seats": 5},
    {"game": "chinchirorin", "seats": True},
    {"game": "chinchirorin", "seats": "two"},
    {"game": "chinchirorin"},
    {},
])
def test_bad_bodies(make_client, rooms_made, body):
    res = make_client(UserFactory()).post("/api/queue", body, format="json")
    assert res.status_code == 400, res.json()
    assert res.json()["code"] == "invalid"
    assert res.json()["fields"]


def test_queue_makes_a_real_room(make_client):
    """With the rooms service: a ranked room with both players seated and its game started."""
    from rooms.models import Room

    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    join(make_client(a))
    res = join(make_client(b))
    assert res.status_code == 201, res.json()
    code = res.json()["room"]
    room = Room.objects.get(code=code)
    assert room.ranked and room.turn_seconds == 60 and room.game_name == "chinchirorin"
    assert sorted(s.user_id for s in room.seats.all()) == sorted([a.id, b.id])
    assert room.game_id is not None
    status = make_client(a).get("/api/queue").json()
    assert status["status"] == "matched" and status["room"] == code


def test_joining_again_while_matched_keeps_the_match_and_makes_no_room(make_client):
    """A join repeated while the caller's match room is playing (a double tap, a retry) answers that match
    and makes no second ranked room; once the caller has left that room, a join queues again."""
    from rooms.models import Room
    from rooms.services import room_leave

    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    join(make_client(a))
    code = join(make_client(b)).json()["room"]
    for client in (make_client(a), make_client(b), make_client(a)):
        res = join(client)
        assert (res.status_code, res.json()["status"], res.json()["room"]) == (201, "matched", code)
    assert Room.objects.filter(ranked=True).count() == 1
    room_leave(code=code, user=a)
    res = join(make_client(a))
    assert (res.json()["status"], res.json()["room"]) == ("waiting", None)
    assert Room.objects.filter(ranked=True).count() == 1
