"""The ranked queue with a preset, a seat count and a Chinchirorin style; finding people by username or
display name (``GET /api/users?search=``); friend codes and links (issue "What client developers ...
miss", item 5)."""

import pytest

from ranking.models import Friendship, QueueEntry
from rooms.models import Room
from tests.ranking.factories import FriendshipFactory, GuestFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_queue_matches_only_the_same_preset_and_makes_that_room(make_client):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    FriendshipFactory(a=a, b=c)
    res = make_client(b).post("/api/queue", {"game": "chinchon", "seats": 2, "preset": "wild_ace"}, format="json")
    assert res.status_code == 201
    assert (res.json()["preset"], res.json()["style"], res.json()["status"]) == ("wild_ace", None, "waiting")
    # c waits for the standard preset: not a match for a's wild_ace entry either
    make_client(c).post("/api/queue", {"game": "chinchon", "seats": 2}, format="json")
    res = make_client(a).post("/api/queue", {"game": "chinchon", "seats": 2, "preset": "wild_ace"}, format="json")
    body = res.json()
    assert body["status"] == "matched"
    room = Room.objects.get(code=body["room"])
    # the queue seats strangers: re-entry is free (coins move among friends only)
    assert room.rules == {"preset": "wild_ace", "reentry_fee": 0} and room.ranked and room.seat_count == 2
    assert room.game.state["rules"]["wild_card"] == "1O"  # the wild_ace preset is played
    assert sorted(s.user_id for s in room.seats.all()) == sorted([a.id, b.id])
    assert QueueEntry.objects.get(user=c).status == "waiting"


def test_queue_style_and_seats_of_the_preset(make_client):
    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    make_client(a).post("/api/queue", {"game": "chinchirorin", "seats": 2, "style": "common"}, format="json")
    body = make_client(b).post("/api/queue", {"game": "chinchirorin", "seats": 2, "style": "common"},
                               format="json").json()
    assert Room.objects.get(code=body["room"]).game.state["rules"]["style"] == "common"
    # traditional is played by 2-8 seats, standard by 2-4
    assert make_client(a).post("/api/queue", {"game": "chinchon", "seats": 6, "preset": "traditional"},
                               format="json").status_code == 201


@pytest.mark.parametrize(("body", "field"), [
    ({"game": "chinchon", "seats": 5}, "seats"),                          # standard: 2-4
    ({"game": "chinchon", "seats": 2, "preset": "texas"}, "preset"),
    ({"game": "chinchon", "seats": 2, "style": "common"}, "style"),       # a chinchirorin setting
    ({"game": "chinchirorin", "seats": 2, "preset": "standard"}, "preset"),
    ({"game": "chinchirorin", "seats": 2, "style": "house"}, "style"),
    ({"game": "chinchirorin", "seats": 9}, "seats"),
])
def test_queue_bad_rules_name_the_field(make_client, body, field):
    res = make_client(UserFactory()).post("/api/queue", body, format="json")
    assert (res.status_code, res.json()["code"], list(res.json()["fields"])) == (400, "invalid", [field])
    assert not QueueEntry.objects.exists()


def test_users_search_by_username_and_display_name(make_client):
    me = UserFactory(username="searcher", display_name="Me")
    hana = UserFactory(username="hana_k", display_name="Hana")
    hanako = UserFactory(username="tanaka", display_name="Hanako")
    guest = GuestFactory(display_name="Shana")
    UserFactory(username="hanabi", display_name="Fireworks", is_active=False)  # banned: never found
    client = make_client(me)

    def found(text):
        res = client.get("/api/users", {"search": text})
        assert res.status_code == 200, res.json()
        return [u["id"] for u in res.json()]

    # "hana": exact display name first, then names starting with it, then the rest
    assert found("HANA") == [hana.id, hanako.id, guest.id]
    assert found("tanaka") == [hanako.id]                 # by username
    assert found("guest-") == []                          # a guest's generated username is not searched
    assert found("Me") == []                              # never oneself
    assert client.get("/api/users", {"search": "hana"}).json()[0] == {
        "id": hana.id, "username": "hana_k", "display_name": "Hana", "is_guest": False}
    for bad in ({}, {"search": ""}, {"search": "x" * 51}):
        res = client.get("/api/users", bad)
        assert (res.status_code, list(res.json()["fields"])) == (400, ["search"])


def test_friend_code_and_link(make_client, settings):
    a, b, g = UserFactory(), UserFactory(), GuestFactory()
    ca = make_client(a)
    settings.PUBLIC_URL = ""  # the link follows the address the request came to, as invite_url does
    code = ca.get("/api/me/friend-code").json()
    assert len(code["code"]) == 8 and code["url"] == f"http://testserver/friend/{code['code']}"
    settings.PUBLIC_URL = "https://play.example"
    assert ca.get("/api/me/friend-code").json()["url"] == f"https://play.example/friend/{code['code']}"
    settings.PUBLIC_URL = ""
    assert ca.get("/api/me/friend-code").json() == code  # stable until renewed
    res = make_client(g).post("/api/friends", {"code": code["code"].lower()}, format="json")
    assert (res.status_code, res.json()) == (201, {"status": "friends",
                                                   "player": {"id": a.id, "display_name": a.display_name}})
    assert make_client(g).post("/api/friends", {"code": code["code"]}, format="json").status_code == 200
    assert Friendship.objects.filter(user_low_id=min(a.id, g.id), user_high_id=max(a.id, g.id)).exists()
    renewed = ca.post("/api/me/friend-code").json()
    assert renewed["code"] != code["code"]
    res = make_client(b).post("/api/friends", {"code": code["code"]}, format="json")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")
    res = ca.post("/api/friends", {"code": renewed["code"]}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["code"])
    res = ca.post("/api/friends", {"code": renewed["code"], "user_id": b.id}, format="json")
    assert res.status_code == 400
