"""The Rooms API of API.md: every call's success and its error codes, codes, rules and seat ranges,
ranked rooms, host handover, leaving before and during a game, rematch and ``/api/me/rooms``."""

import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import services as games_services
from games.models import Game, GamePlayer
from rooms import services
from rooms.models import Room, Seat
from rooms.signals import room_joined
from tests.factories import GuestFactory, UserFactory
from tests.rooms.factories import RoomFactory

pytestmark = pytest.mark.django_db

# Written out by hand from API.md: 6 characters, no 0/O, no 1/I/L.
ALPHABET = set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
ROOM_KEYS = {"code", "invite_url", "game", "host", "seats", "seats_auto", "rules", "turn_seconds", "ranked", "cpu_level",
             "cpu_speed", "status", "game_id", "version", "spectators_allowed", "spectators",
             "voice_allowed"}


def _seat_users(room: dict) -> list:
    return [s["user"]["id"] if s["user"] else ("cpu" if s["cpu"] else None) for s in room["seats"]]


# ------------------------------------------------------------------------------------------- create
def test_create_answers_the_room_with_the_host_in_seat_0(host, settings):
    res = host.post("/api/rooms", {"game": "chinchirorin"}, format="json")
    assert res.status_code == 201
    room = res.json()
    assert set(room) == ROOM_KEYS
    assert len(room["code"]) == 6 and set(room["code"]) <= ALPHABET
    assert room["invite_url"] == f"http://testserver/join/{room['code']}"  # PUBLIC_URL unset: the request's
    assert room["game"] == "chinchirorin"
    assert room["host"] == {"id": host.user.id, "username": host.user.username,
                            "display_name": "Host", "is_guest": False}
    # default "auto": the most seats chinchirorin takes (2-8) while the party gathers
    assert ([s["index"] for s in room["seats"]], room["seats_auto"]) == ([0, 1, 2, 3, 4, 5, 6, 7], True)
    assert room["seats"][0] == {"index": 0, "user": room["host"], "cpu": False, "cpu_level": None,
                                "connected": False, "left": False}
    assert all(s["user"] is None and not s["cpu"] for s in room["seats"][1:])
    assert (room["turn_seconds"], room["ranked"], room["cpu_level"], room["cpu_speed"]) == (None, False, "normal",
                                                                                             "normal")
    assert (room["status"], room["game_id"], room["version"]) == ("open", None, 1)
    # every setting resolved (rules/chinchirorin.md "Settings" defaults)
    assert room["rules"] == {"style": "streamer", "pinzoro_multiplier": 5, "hifumi_multiplier": 2,
                             "out_of_bowl": False, "first_dealer": "roll", "rounds": 1,
                             "starting_points": 1000, "bet_options": [10, 20, 50, 100], "max_dealer_hands": 3}


def test_create_needs_authentication(api):
    res = api.post("/api/rooms", {"game": "chinchirorin"}, format="json")
    assert res.status_code == 401
    assert res.json()["code"] == "not_authenticated"
    assert api.post("/api/rooms", {"game": "chinchirorin"}, format="json",
                    HTTP_AUTHORIZATION="Token nope").json()["code"] == "authentication_failed"


@pytest.mark.parametrize("body, field", [
    ({}, "game"),
    ({"game": "poker"}, "game"),
    ({"game": "chinchirorin", "seats": "4"}, "seats"),
    ({"game": "chinchirorin", "seats": True}, "seats"),
    ({"game": "chinchirorin", "seats": 4.0}, "seats"),
    ({"game": "chinchirorin", "turn_seconds": 45}, "turn_seconds"),
    ({"game": "chinchirorin", "turn_seconds": "30"}, "turn_seconds"),
    ({"game": "chinchirorin", "ranked": "yes"}, "ranked"),
    ({"game": "chinchirorin", "cpu_level": "expert"}, "cpu_level"),
    ({"game": "chinchirorin", "cpu_speed": "warp"}, "cpu_speed"),
    ({"game": "chinchirorin", "rules": [1, 2]}, "rules"),
    ({"game": "chinchirorin", "rules": {"pinzoro_multiplier": 11}}, "rules.pinzoro_multiplier"),
    ({"game": "chinchirorin", "rules": {"pinzoro_multiplier": True}}, "rules.pinzoro_multiplier"),
    ({"game": "chinchirorin", "rules": {"colour": "red"}}, "rules.colour"),
    ({"game": "chinchon", "rules": {"preset": "texas"}}, "rules.preset"),
    ({"game": "chinchon", "rules": {"close_limit": 4}}, "rules.close_limit"),
    ({"game": "chinchon", "seats": 2, "preset": "traditional"}, "preset"),  # a setting outside "rules"
    ({"game": "chinchirorin", "colour": "red"}, "colour"),
])
def test_create_refuses_a_bad_field_naming_it(host, body, field):
    res = host.post("/api/rooms", body, format="json")
    assert res.status_code == 400
    assert res.json()["code"] == "invalid"
    assert field in res.json()["fields"]
    assert Room.objects.count() == 0


def test_create_malformed_json_and_wrong_media_type(host):
    res = host.post("/api/rooms", data="{nope", content_type="application/json")
    assert (res.status_code, res.json()["code"]) == (400, "parse_error")
    res = host.post("/api/rooms", data="game=chinchon", content_type="application/x-www-form-urlencoded")
    assert (res.status_code, res.json()["code"]) == (415, "unsupported_media_type")
    res = host.put("/api/rooms", {}, format="json")
    assert (res.status_code, res.json()["code"]) == (405, "method_not_allowed")


@pytest.mark.parametrize("game, rules, seats, ok", [
    ("chinchirorin", {}, 1, False),
    ("chinchirorin", {}, 2, True),
    ("chinchirorin", {}, 8, True),
    ("chinchirorin", {}, 9, False),
    ("chinchon", {}, 1, False),
    ("chinchon", {}, 4, True),
    ("chinchon", {}, 5, False),  # standard: 2-4
    ("chinchon", {"preset": "wild_ace"}, 5, False),
    ("chinchon", {"preset": "traditional"}, 8, True),
    ("chinchon", {"preset": "traditional"}, 9, False),
])
def test_seat_count_follows_the_game(host, game, rules, seats, ok):
    res = host.post("/api/rooms", {"game": game, "rules": rules, "seats": seats}, format="json")
    if ok:
        assert res.status_code == 201
        assert len(res.json()["seats"]) == seats
    else:
        assert res.status_code == 400
        assert list(res.json()["fields"]) == ["seats"]


@pytest.mark.parametrize("seats, decks", [(2, 1), (4, 1), (5, 2), (8, 2)])
def test_chinchon_decks_follow_the_seats(new_room, seats, decks):
    room = new_room(game="chinchon", seats=seats, rules={"preset": "traditional"})
    assert room["rules"]["decks"] == decks


@pytest.mark.parametrize("rules, seats", [
    ({"preset": "traditional", "decks": 1}, 6),
    ({"preset": "traditional", "decks": 2}, 3),
    ({"decks": 2}, 4),  # two decks are traditional only
])
def test_chinchon_decks_that_disagree_are_refused_naming_them(host, rules, seats):
    res = host.post("/api/rooms", {"game": "chinchon", "seats": seats, "rules": rules}, format="json")
    assert res.status_code == 400
    assert "rules.decks" in res.json()["fields"]


def test_patch_seats_moves_the_decks_with_them(host, new_room):
    room = new_room(game="chinchon", seats=4, rules={"preset": "traditional", "decks": 1})
    res = host.patch(f"/api/rooms/{room['code']}", {"seats": 6}, format="json")
    assert res.status_code == 200
    assert res.json()["rules"]["decks"] == 2


def test_ranked_rooms_default_to_60_second_turns(new_room):
    assert new_room(ranked=True)["turn_seconds"] == 60
    assert new_room(ranked=True, turn_seconds=30)["turn_seconds"] == 30
    assert new_room(ranked=True, turn_seconds=None)["turn_seconds"] is None
    assert new_room()["turn_seconds"] is None


def test_guest_cannot_create_a_ranked_room(guest_client):
    res = guest_client.post("/api/rooms", {"game": "chinchon", "ranked": True}, format="json")
    assert (res.status_code, res.json()["code"]) == (403, "registration_required")


# ---------------------------------------------------------------------------------------------- codes
def test_codes_use_the_alphabet_without_look_alikes():
    codes = {services.new_code() for _ in range(3000)}
    assert all(len(c) == 6 for c in codes)
    used = set("".join(codes))
    assert used <= ALPHABET
    assert not used & set("0O1IL")
    assert len(used) == len(ALPHABET)  # 18000 draws reach every character


def test_any_letter_case_finds_the_room(host, other, new_room):
    room = new_room()
    for code in (room["code"].lower(), room["code"].swapcase(), room["code"]):
        res = other.get(f"/api/rooms/{code}")
        assert res.status_code == 200
        assert res.json()["code"] == room["code"]


@pytest.mark.parametrize("code", ["ABCDE", "ABCDEFG", "ABCDE0", "ABCDEO", "ABCDE1", "ABCDEI", "abcdel", "ZZZZZZ"])
def test_unknown_codes_are_404(other, code):
    res = other.get(f"/api/rooms/{code}")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")


def test_codes_are_unique_among_rooms_not_closed(user):
    RoomFactory(code="ABCDEF", host=user, status="closed")
    RoomFactory(code="ABCDEF", host=user, status="closed")
    RoomFactory(code="ABCDEF", host=user)  # the closed ones do not hold the code
    with pytest.raises(IntegrityError), transaction.atomic():
        RoomFactory(code="ABCDEF", host=user, status="finished")


def test_a_closed_room_answers_404(other, user):
    room = RoomFactory(code="QWERTY", host=user, status="closed")
    assert other.get(f"/api/rooms/{room.code}").status_code == 404
    assert other.post(f"/api/rooms/{room.code}/join").status_code == 404


def test_rooms_idle_for_24_hours_close(other, user):
    room = RoomFactory(host=user)
    Room.objects.filter(pk=room.pk).update(last_activity=timezone.now() - timedelta(hours=25))
    assert other.get(f"/api/rooms/{room.code}").status_code == 404
    assert services.rooms_close_idle() == 1
    assert Room.objects.get(pk=room.pk).status == "closed"
    fresh = RoomFactory(host=user)
    assert services.rooms_close_idle() == 0
    assert other.get(f"/api/rooms/{fresh.code}").status_code == 200


# ---------------------------------------------------------------------------------------------- get
def test_any_signed_in_user_may_look(api, other, new_room):
    room = new_room()
    assert other.get(f"/api/rooms/{room['code']}").json() == room
    assert api.get(f"/api/rooms/{room['code']}").status_code == 401


# -------------------------------------------------------------------------------------------- patch
def test_patch_by_the_host_replaces_rules_and_bumps_the_version(host, new_room):
    room = new_room(rules={"rounds": 2, "style": "common"})
    assert (room["rules"]["rounds"], room["rules"]["style"]) == (2, "common")
    res = host.patch(f"/api/rooms/{room['code']}", {"rules": {"pinzoro_multiplier": 3}, "turn_seconds": 30,
                                                     "cpu_level": "hard", "cpu_speed": "fast"}, format="json")
    assert res.status_code == 200
    new = res.json()
    assert new["rules"]["pinzoro_multiplier"] == 3
    assert (new["rules"]["rounds"], new["rules"]["style"]) == (1, "streamer")  # replaced, not merged
    assert (new["turn_seconds"], new["cpu_level"], new["cpu_speed"]) == (30, "hard", "fast")
    assert new["version"] == room["version"] + 1


def test_patch_changing_game_resets_rules_unless_given(host, new_room):
    room = new_room(rules={"rounds": 3})
    res = host.patch(f"/api/rooms/{room['code']}", {"game": "chinchon"}, format="json")
    assert res.status_code == 200
    assert res.json()["game"] == "chinchon"
    assert res.json()["rules"]["preset"] == "standard"
    res = host.patch(f"/api/rooms/{room['code']}", {"game": "chinchirorin", "rules": {"rounds": 2}},
                     format="json")
    assert res.json()["rules"]["rounds"] == 2


def test_patch_errors(host, other, new_room):
    room = new_room(rules={"rounds": 2})
    url = f"/api/rooms/{room['code']}"
    assert other.patch(url, {"seats": 3}, format="json").json()["code"] == "not_host"
    res = host.patch(url, {"rules": {"rounds": 4}}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["rules.rounds"])
    res = host.patch(url, {"seats": 9}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["seats"])
    res = host.patch(url, {"game": "chinchon", "seats": 6}, format="json")  # standard chinchón: 2-4
    assert (res.status_code, list(res.json()["fields"])) == (400, ["seats"])
    assert host.patch("/api/rooms/ZZZZZZ", {"seats": 3}, format="json").status_code == 404
    after = host.get(url).json()
    assert after == room  # refused changes change nothing


def test_patch_dropping_an_occupied_seat_is_seat_taken(host, other, new_room):
    room = new_room(seats=4)
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")  # seat 1
    host.post(f"{url}/cpu", {"seat": 3}, format="json")
    assert host.patch(url, {"seats": 3}, format="json").json()["code"] == "seat_taken"
    assert host.delete(f"{url}/seats/3").status_code == 200
    res = host.patch(url, {"seats": 2}, format="json")
    assert res.status_code == 200
    assert _seat_users(res.json()) == [host.user.id, other.user.id]
    assert host.patch(url, {"seats": 1}, format="json").status_code == 400
    res = host.patch(url, {"seats": 5}, format="json")
    assert [s["index"] for s in res.json()["seats"]] == [0, 1, 2, 3, 4]
    assert Seat.objects.filter(room__code=room["code"]).count() == 5


def test_patch_ranked_with_a_guest_or_cpu_seated_names_ranked(host, make_client, new_room):
    room = new_room()
    url = f"/api/rooms/{room['code']}"
    host.post(f"{url}/cpu", {"seat": 2}, format="json")
    res = host.patch(url, {"ranked": True}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["ranked"])
    host.delete(f"{url}/seats/2")
    make_client(GuestFactory()).post(f"{url}/join")
    res = host.patch(url, {"ranked": True}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["ranked"])
    host.delete(f"{url}/seats/1")
    res = host.patch(url, {"ranked": True}, format="json")
    assert res.status_code == 200
    assert (res.json()["ranked"], res.json()["turn_seconds"]) == (True, 60)


# --------------------------------------------------------------------------------------------- join
def test_join_takes_the_lowest_free_seat_and_is_idempotent(host, other, third, new_room):
    room = new_room()
    url = f"/api/rooms/{room['code']}"
    host.post(f"{url}/cpu", {"seat": 1}, format="json")
    res = other.post(f"{url}/join")
    assert res.status_code == 200
    assert _seat_users(res.json()) == [host.user.id, "cpu", other.user.id, None]
    again = other.post(f"{url}/join")
    assert again.status_code == 200
    assert again.json() == res.json()  # nothing changed, not even the version
    assert _seat_users(third.post(f"{url}/join").json()) == [host.user.id, "cpu", other.user.id, third.user.id]


def test_join_errors(host, other, third, guest_client, new_room):
    room = new_room(seats=2)
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    assert (third.post(f"{url}/join").status_code, third.post(f"{url}/join").json()["code"]) == (409, "room_full")
    ranked = new_room(ranked=True)
    res = guest_client.post(f"/api/rooms/{ranked['code']}/join")
    assert (res.status_code, res.json()["code"]) == (403, "registration_required")
    assert third.post("/api/rooms/ZZZZZZ/join").status_code == 404
    started = new_room(seats=3)
    host.post(f"/api/rooms/{started['code']}/start")
    res = third.post(f"/api/rooms/{started['code']}/join")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")


def test_joining_sends_room_joined_after_the_commit(host, other, new_room, django_capture_on_commit_callbacks):
    room = new_room()
    got = []

    def receiver(sender, **kwargs):
        got.append(kwargs)

    room_joined.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            other.post(f"/api/rooms/{room['code']}/join")
        with django_capture_on_commit_callbacks(execute=True):
            other.post(f"/api/rooms/{room['code']}/join")  # idempotent: no second signal
    finally:
        room_joined.disconnect(receiver)
    room_id = Room.objects.get(code=room["code"]).pk
    assert [{k: v for k, v in g.items() if k != "signal"} for g in got] == [
        {"room_id": room_id, "user_id": other.user.id, "host_id": host.user.id}]


# -------------------------------------------------------------------------------------------- leave
def test_leave_before_the_start_frees_the_seat_and_passes_the_host(host, other, third, new_room):
    room = new_room()
    url = f"/api/rooms/{room['code']}"
    third.post(f"{url}/join")  # seat 1
    other.post(f"{url}/join")  # seat 2
    host.post(f"{url}/cpu", {"seat": 3}, format="json")
    res = host.post(f"{url}/leave")
    assert res.status_code == 200
    assert res.json()["host"]["id"] == third.user.id  # the next human in seat order
    assert _seat_users(res.json()) == [None, third.user.id, other.user.id, "cpu"]
    res = other.post(f"{url}/leave")
    assert res.json()["host"]["id"] == third.user.id
    assert host.post(f"{url}/leave").json()["code"] == "not_a_player"
    res = third.post(f"{url}/leave")  # the last human: the room closes
    assert res.json()["status"] == "closed"
    assert other.get(url).status_code == 404


def test_host_passes_in_seat_order_wrapping_around(host, other, third, new_room):
    room = new_room()
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")  # seat 1
    third.post(f"{url}/join")  # seat 2
    other.post(f"{url}/leave")
    host.post(f"{url}/join")  # host already seated: idempotent
    res = other.post(f"{url}/join")  # back, now in seat 1 again (lowest free)
    assert _seat_users(res.json())[1] == other.user.id
    third_room = host.post(f"{url}/leave").json()
    assert third_room["host"]["id"] == other.user.id


def _start(client, code) -> dict:
    res = client.post(f"/api/rooms/{code}/start")
    assert res.status_code == 201, res.json()
    return res.json()


def test_leave_during_a_game_keeps_the_seat_until_the_game_ends(host, other, new_room,
                                                               django_capture_on_commit_callbacks):
    room = new_room(seats=3)
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    started = _start(host, room["code"])
    res = other.post(f"{url}/leave")
    assert res.status_code == 200
    seat = res.json()["seats"][1]
    assert (seat["user"]["id"], seat["left"]) == (other.user.id, True)
    assert GamePlayer.objects.get(game_id=started["game_id"], seat=1).left is True
    assert Game.objects.get(pk=started["game_id"]).status == "playing"  # not a resignation
    # the player comes back by joining
    back = other.post(f"{url}/join").json()
    assert back["seats"][1]["left"] is False
    assert GamePlayer.objects.get(game_id=started["game_id"], seat=1).left is False
    other.post(f"{url}/leave")
    # the host leaves too: no other human still playing, so the host stays
    assert host.post(f"{url}/leave").json()["host"]["id"] == host.user.id
    with django_capture_on_commit_callbacks(execute=True):
        games_services.game_abort(game_id=started["game_id"], reason="test")
    assert Room.objects.get(code=room["code"]).status == "closed"  # everyone had left
    assert other.get(url).status_code == 404


def test_an_aborted_game_returns_the_room_to_finished(host, other, new_room, django_capture_on_commit_callbacks):
    room = new_room(seats=2)
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    started = _start(host, room["code"])
    host.post(f"{url}/leave")  # mid-game: the host passes to the other player
    with django_capture_on_commit_callbacks(execute=True):
        games_services.game_abort(game_id=started["game_id"], reason="test")
    after = other.get(url).json()
    assert after["status"] == "finished"
    assert after["game_id"] == started["game_id"]
    assert _seat_users(after) == [None, other.user.id]  # the leaver is unseated at the end
    assert after["host"]["id"] == other.user.id


# ---------------------------------------------------------------------------------------------- cpu
def test_cpu_seats(host, other, new_room):
    room = new_room(cpu_level="easy")
    url = f"/api/rooms/{room['code']}"
    res = host.post(f"{url}/cpu", {"seat": 2}, format="json")
    assert res.status_code == 200
    assert res.json()["seats"][2] == {"index": 2, "user": None, "cpu": True, "cpu_level": "easy",
                                      "connected": False, "left": False}
    res = host.post(f"{url}/cpu", {"seat": 2, "level": "hard"}, format="json")
    assert res.json()["seats"][2]["cpu_level"] == "hard"
    assert other.post(f"{url}/cpu", {"seat": 3}, format="json").json()["code"] == "not_host"
    res = host.post(f"{url}/cpu", {"seat": 4}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["seat"])
    res = host.post(f"{url}/cpu", {"seat": "1"}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["seat"])
    res = host.post(f"{url}/cpu", {"seat": 1, "level": "godlike"}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["level"])
    res = host.post(f"{url}/cpu", {"seat": 0}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "seat_taken")
    ranked = new_room(ranked=True)
    res = host.post(f"/api/rooms/{ranked['code']}/cpu", {"seat": 1}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "cpu_not_allowed")


def test_delete_seat(host, other, new_room):
    room = new_room()
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    host.post(f"{url}/cpu", {"seat": 2}, format="json")
    assert other.delete(f"{url}/seats/2").json()["code"] == "not_host"
    assert _seat_users(host.delete(f"{url}/seats/2").json()) == [host.user.id, other.user.id, None, None]
    assert _seat_users(host.delete(f"{url}/seats/1").json()) == [host.user.id, None, None, None]
    assert host.delete(f"{url}/seats/4").status_code == 404
    res = host.delete(f"{url}/seats/0")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["seat"])
    _start(host, room["code"])
    res = host.delete(f"{url}/seats/2")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")


# -------------------------------------------------------------------------------------------- start
def test_start_fills_empty_seats_with_cpus_and_answers_201_with_the_game(host, other, new_room):
    room = new_room(seats=4, cpu_level="hard", cpu_speed="fast", turn_seconds=30)
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    assert other.post(f"{url}/start").json()["code"] == "not_host"
    res = host.post(f"{url}/start")
    assert res.status_code == 201
    body = res.json()
    assert body["status"] == "playing"
    assert isinstance(body["game_id"], int)
    assert [(s["cpu"], s["cpu_level"]) for s in body["seats"]] == [(False, None), (False, None), (True, "hard"),
                                                                   (True, "hard")]
    game = Game.objects.get(pk=body["game_id"])
    assert (game.game, game.turn_seconds, game.cpu_speed, game.ranked, game.group) == (
        "chinchirorin", 30, "fast", False, f"room-{room['code']}")
    players = list(GamePlayer.objects.filter(game=game).order_by("seat"))
    assert [(p.user_id, p.cpu, p.cpu_level) for p in players] == [
        (host.user.id, False, None), (other.user.id, False, None), (None, True, "hard"), (None, True, "hard")]
    res = host.post(f"{url}/start")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")
    res = host.patch(url, {"seats": 3}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")


def test_a_player_alone_with_cpus_plays_at_once(host, new_room):
    room = new_room(game="chinchon", seats=2)
    body = _start(host, room["code"])
    assert body["status"] == "playing"
    assert Game.objects.get(pk=body["game_id"]).rules["decks"] == 1


def test_ranked_start_needs_every_seat_taken(host, other, make_client, new_room):
    room = new_room(ranked=True, seats=3, game="chinchon")
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    res = host.post(f"{url}/start")
    assert (res.status_code, res.json()["code"]) == (409, "seats_not_filled")
    assert Room.objects.get(code=room["code"]).status == "open"
    make_client(UserFactory()).post(f"{url}/join")
    body = _start(host, room["code"])
    game = Game.objects.get(pk=body["game_id"])
    assert (game.ranked, game.turn_seconds) == (True, 60)
    assert not any(s["cpu"] for s in body["seats"])


# ------------------------------------------------------------------------------------------ rematch
def test_rematch_starts_a_new_game_with_the_same_seats_and_rules(host, other, new_room,
                                                                django_capture_on_commit_callbacks):
    room = new_room(seats=3, rules={"rounds": 2})
    url = f"/api/rooms/{room['code']}"
    other.post(f"{url}/join")
    res = host.post(f"{url}/rematch")
    assert (res.status_code, res.json()["code"]) == (400, "invalid")  # nothing to rematch yet
    first = _start(host, room["code"])
    res = host.post(f"{url}/rematch")
    assert (res.status_code, res.json()["code"]) == (409, "already_started")
    with django_capture_on_commit_callbacks(execute=True):
        games_services.game_abort(game_id=first["game_id"], reason="test")
    assert other.post(f"{url}/rematch").json()["code"] == "not_host"
    res = host.post(f"{url}/rematch")
    assert res.status_code == 201
    second = res.json()
    assert second["game_id"] != first["game_id"]
    assert second["status"] == "playing"
    assert _seat_users(second) == _seat_users(first)
    g1, g2 = Game.objects.get(pk=first["game_id"]), Game.objects.get(pk=second["game_id"])
    assert g1.rules == g2.rules and g2.rules["rounds"] == 2
    assert bytes(g1.seed) != bytes(g2.seed)


# ----------------------------------------------------------------------------------------- me/rooms
def test_my_rooms_lists_the_rooms_not_closed_with_game_id(host, other, new_room):
    a = new_room()
    b = new_room(seats=2)
    c = new_room()
    other.post(f"/api/rooms/{b['code']}/join")
    started = _start(host, b["code"])
    host.post(f"/api/rooms/{c['code']}/leave")  # closes c
    res = host.get("/api/me/rooms")
    assert res.status_code == 200
    assert [(r["code"], r["game_id"]) for r in res.json()] == [(b["code"], started["game_id"]), (a["code"], None)]
    assert [r["code"] for r in other.get("/api/me/rooms").json()] == [b["code"]]
    assert set(res.json()[0]) == ROOM_KEYS


def test_chat_catalogue(other):
    res = other.get("/api/chat/catalogue")
    assert res.status_code == 200
    body = res.json()
    assert body["emoji"] and all(isinstance(e, str) for e in body["emoji"])
    assert body["phrases"] and all(set(p) == {"id", "text"} for p in body["phrases"])


# ---------------------------------------------------------------------------------------- the queue
def test_room_for_the_ranked_queue_is_started_with_everyone_seated(db):
    users = [UserFactory(), UserFactory(), UserFactory()]
    room = services.room_create_ranked_for_queue(game="chinchon", seats=3, users=users)
    room.refresh_from_db()
    assert (room.status, room.ranked, room.turn_seconds, room.host_id) == ("playing", True, 60, users[0].id)
    assert list(room.seats.order_by("index").values_list("user_id", flat=True)) == [u.id for u in users]
    game = Game.objects.get(pk=room.game_id)
    assert game.ranked and game.rules["preset"] == "standard"
    with pytest.raises(ValueError):
        services.room_create_ranked_for_queue(game="chinchon", seats=3, users=users[:2])
    assert re.fullmatch(r"[A-Z2-9]{6}", room.code)


def test_update_refuses_an_unknown_field_and_changes_nothing(host):
    code = host.post("/api/rooms", {"game": "chinchon", "seats": 2}, format="json").json()["code"]
    res = host.patch(f"/api/rooms/{code}", {"seats": 3, "preset": "wild_ace"}, format="json")
    assert res.status_code == 400
    assert res.json()["fields"] == {"preset": ["Unknown field; game settings go inside \"rules\"."]}
    room = Room.objects.get(code=code)
    assert room.seat_count == 2


# ----------------------------------------------------------------------------------- answer as committed
def test_a_change_answers_the_room_it_broadcast_without_reading_it_again(host, make_client, monkeypatch,
                                                                         django_capture_on_commit_callbacks):
    """Join, CPU seat, start, leave and rematch answer the room their transaction committed and broadcast
    (the socket's ``room`` message), with the invite link on the request's address; the room is not read
    again for the answer."""
    from rooms import apis

    sent = []
    monkeypatch.setattr("rooms.locking.group_send", lambda group, message: sent.append(message))
    monkeypatch.setattr("games.events.group_send_many", lambda messages: None)
    code = host.post("/api/rooms", {"game": "chinchirorin", "seats": 3}, format="json").json()["code"]
    guest = make_client(UserFactory(display_name="Guest"))

    def reread(*args, **kwargs):
        raise AssertionError("the room was read again for the answer")

    monkeypatch.setattr(apis.selectors, "rooms_with_seats", reread)
    calls = [(guest, "post", f"/api/rooms/{code}/join", None, 200),
             (host, "post", f"/api/rooms/{code}/cpu", {"seat": 2}, 200),
             (host, "post", f"/api/rooms/{code}/start", None, 201),
             (guest, "post", f"/api/rooms/{code}/leave", None, 200)]
    for client, method, path, body, status in calls:
        sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            res = getattr(client, method)(path, body, format="json")
        assert res.status_code == status, res.json()
        (message,) = [m["payload"]["room"] for m in sent if m["type"] == "room.update"]
        assert message["invite_url"] == f"/join/{code}"  # a path: each socket makes it absolute
        assert res.json() == {**message, "invite_url": f"http://testserver/join/{code}"}
    assert res.json()["seats"][1]["left"] is True and res.json()["status"] == "playing"

    room = Room.objects.get(code=code)
    with django_capture_on_commit_callbacks(execute=True):  # the room finishes (rooms.receivers)
        games_services.game_abort(game_id=room.game_id, reason="test")
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        res = host.post(f"/api/rooms/{code}/rematch", format="json")
    assert res.status_code == 201, res.json()
    (message,) = [m["payload"]["room"] for m in sent if m["type"] == "room.update"]
    assert res.json() == {**message, "invite_url": f"http://testserver/join/{code}"}
    assert res.json()["game_id"] not in (None, room.game_id)
