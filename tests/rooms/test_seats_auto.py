"""``seats: "auto"``: the table follows the party (issue "What client developers ... miss", item 2). The
room offers the rules' most seats while gathering; start seats the humans present plus the CPUs the host
added, in seat order from 0, within the seat range (a lone player gets one CPU opponent)."""

import pytest

from games import services as games_services
from games.models import Game, GamePlayer
from rooms import services
from rooms.models import Room
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _players(game_id: int) -> list:
    return [(p.seat, p.user_id, p.cpu) for p in GamePlayer.objects.filter(game_id=game_id).order_by("seat")]


def test_auto_room_offers_the_most_seats(new_room):
    room = new_room(seats="auto")
    assert (room["seats_auto"], len(room["seats"])) == (True, 8)  # chinchirorin: 2-8 seats
    assert len(new_room(game="chinchon", seats="auto")["seats"]) == 4  # standard: 2-4
    trad = new_room(game="chinchon", seats="auto", rules={"preset": "traditional"})
    assert len(trad["seats"]) == 8 and trad["rules"]["decks"] == 1
    assert new_room(seats=4)["seats_auto"] is False


@pytest.mark.parametrize(("game", "rules", "most"), [("chinchirorin", {}, 8), ("chinchon", {}, 4),
                                                      ("chinchon", {"preset": "traditional"}, 8)])
def test_a_room_created_without_seats_follows_the_party(host, make_client, game, rules, most):
    res = host.post("/api/rooms", {"game": game, "rules": rules}, format="json")
    room = res.json()
    assert (res.status_code, room["seats_auto"], len(room["seats"])) == (201, True, most)
    friend = make_client(UserFactory())
    assert friend.post(f"/api/rooms/{room['code']}/join").status_code == 200
    started = host.post(f"/api/rooms/{room['code']}/start").json()
    assert [(s["index"], s["user"]["id"], s["cpu"]) for s in started["seats"]] == [
        (0, host.user.id, False), (1, friend.user.id, False)]  # two friends: no computer seats


@pytest.mark.parametrize("bad", ["Auto", "4", 4.0, True, None, [4]])
def test_bad_seats_value(host, bad):
    res = host.post("/api/rooms", {"game": "chinchirorin", "seats": bad}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["seats"])


def test_a_lone_player_gets_one_cpu_opponent(host, new_room):
    room = new_room(seats="auto")
    res = host.post(f"/api/rooms/{room['code']}/start")
    assert res.status_code == 201
    started = res.json()
    assert [(s["index"], s["user"] and s["user"]["id"], s["cpu"]) for s in started["seats"]] == [
        (0, host.user.id, False), (1, None, True)]
    assert _players(started["game_id"]) == [(0, host.user.id, False), (1, None, True)]


def test_two_friends_and_the_host_s_cpu_play_three_seats_in_order(host, other, third, new_room):
    room = new_room(seats="auto")
    code = room["code"]
    other.post(f"/api/rooms/{code}/join")   # seat 1
    third.post(f"/api/rooms/{code}/join")   # seat 2
    host.post(f"/api/rooms/{code}/cpu", {"seat": 6, "level": "hard"}, format="json")
    other.post(f"/api/rooms/{code}/leave")  # seat 1 empty again
    started = host.post(f"/api/rooms/{code}/start").json()
    # host 0, third 2 -> 1, the CPU 6 -> 2; the other five empty seats are gone
    assert [(s["index"], s["user"] and s["user"]["id"], s["cpu"], s["cpu_level"]) for s in started["seats"]] == [
        (0, host.user.id, False, None), (1, third.user.id, False, None), (2, None, True, "hard")]
    assert _players(started["game_id"]) == [(0, host.user.id, False), (1, third.user.id, False), (2, None, True)]
    view = third.get(f"/api/games/{started['game_id']}").json()
    assert view["you"] == 1 and len(view["players"]) == 3


def test_traditional_five_humans_play_two_decks(make_client, new_room):

    room = new_room(game="chinchon", seats="auto", rules={"preset": "traditional"})
    for _ in range(4):
        make_client(UserFactory()).post(f"/api/rooms/{room['code']}/join")
    host = Room.objects.get(code=room["code"]).host
    services.room_start(code=room["code"], user=host)
    playing = Room.objects.get(code=room["code"])
    assert playing.seat_count == 5
    assert Game.objects.get(pk=playing.game_id).state["rules"]["decks"] == 2


def test_after_the_game_the_room_offers_every_seat_again(host, new_room):
    room = new_room(seats="auto")
    game_id = host.post(f"/api/rooms/{room['code']}/start").json()["game_id"]
    games_services.game_abort(game_id=game_id, reason="test")
    services.room_game_ended(game_id=game_id)
    after = host.get(f"/api/rooms/{room['code']}").json()
    assert (after["status"], len(after["seats"]), after["seats_auto"]) == ("finished", 8, True)
    assert [s["index"] for s in after["seats"] if s["user"] or s["cpu"]] == [0, 1]  # the CPU stays for a rematch


def test_ranked_auto_needs_the_fewest_seats_filled(host, new_room):
    room = new_room(seats="auto", ranked=True)
    res = host.post(f"/api/rooms/{room['code']}/start")
    assert (res.status_code, res.json()["code"]) == (409, "seats_not_filled")
    assert len(host.get(f"/api/rooms/{room['code']}").json()["seats"]) == 8  # nothing changed


def test_patch_switches_between_auto_and_a_count(host, new_room):
    code = new_room(seats=3)["code"]
    res = host.patch(f"/api/rooms/{code}", {"seats": "auto"}, format="json").json()
    assert (res["seats_auto"], len(res["seats"])) == (True, 8)
    res = host.patch(f"/api/rooms/{code}", {"seats": 2}, format="json").json()
    assert (res["seats_auto"], len(res["seats"])) == (False, 2)
    res = host.patch(f"/api/rooms/{code}", {"seats": "auto", "game": "chinchon"}, format="json").json()
    assert (res["seats_auto"], len(res["seats"])) == (True, 4)
