"""The Tournaments API over HTTP: shapes, codes, the friends' list, and the schema."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ranking.services import friendship_make
from tests.factories import GuestFactory, UserFactory
from tests.tournaments.conftest import start_now
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def body(**kw):
    return {"game": "chinchirorin", "format": "swiss", "rounds": 3, "seats": 2,
            "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(), **kw}


def test_create_join_leave_and_look(make_client):
    org, friend = make_client(UserFactory(display_name="Org")), make_client(UserFactory(display_name="Fran"))
    res = org.post("/api/tournaments", body(name=" Friday ", turn_seconds=30, rated=True), format="json")
    assert res.status_code == 201, res.json()
    t = res.json()
    assert (t["name"], t["status"], t["rated"], t["turn_seconds"], t["rounds"], t["round"]) == (
        "Friday", "open", True, 30, 3, 0)
    assert t["invite_url"] == f"http://testserver/tournament/{t['code']}"
    assert [p["display_name"] for p in t["players"]] == ["Org"]
    res = friend.post(f"/api/tournaments/{t['code']}/join")
    assert res.status_code == 200
    assert [(p["display_name"], p["seed"]) for p in res.json()["players"]] == [("Org", 1), ("Fran", 2)]
    assert res.json()["version"] == t["version"] + 1
    got = friend.get(f"/api/tournaments/{t['code'].lower()}")
    assert got.status_code == 200 and got.json()["standings"][0]["player"]["display_name"] == "Org"
    res = friend.post(f"/api/tournaments/{t['code']}/leave")
    assert [p["display_name"] for p in res.json()["players"]] == ["Org"]
    assert friend.post(f"/api/tournaments/{t['code']}/leave").json()["code"] == "not_a_player"


def test_errors_in_the_project_shape(make_client):
    org, other = make_client(UserFactory()), make_client(UserFactory())
    guest = make_client(GuestFactory())
    assert guest.post("/api/tournaments", body(), format="json").json()["code"] == "registration_required"
    res = org.post("/api/tournaments", body(format="round_robin", seats=3), format="json")
    assert res.status_code == 400 and res.json()["code"] == "invalid" and "seats" in res.json()["fields"]
    res = org.post("/api/tournaments", body(turn_seconds=45), format="json")
    assert res.status_code == 400 and "turn_seconds" in res.json()["fields"]
    assert org.post("/api/tournaments/NOPE42/join").status_code == 404
    code = org.post("/api/tournaments", body(), format="json").json()["code"]
    other.post(f"/api/tournaments/{code}/join")
    res = other.delete(f"/api/tournaments/{code}/players/{org.user.pk}")
    assert (res.status_code, res.json()["code"]) == (403, "not_organiser")
    res = org.delete(f"/api/tournaments/{code}/players/999999")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")
    res = org.delete(f"/api/tournaments/{code}/players/{other.user.pk}")
    assert res.status_code == 200 and len(res.json()["players"]) == 1
    assert other.post(f"/api/tournaments/{code}/cancel").json()["code"] == "not_organiser"
    res = org.post(f"/api/tournaments/{code}/cancel")
    assert res.json()["status"] == "cancelled"
    assert other.post(f"/api/tournaments/{code}/join").json()["code"] == "tournament_over"
    assert Tournament.objects.get(code=code).players.count() == 1


def test_running_tournament_shows_tables_with_room_codes(make_client):
    org, other = make_client(UserFactory()), make_client(UserFactory())
    code = org.post("/api/tournaments", body(), format="json").json()["code"]
    other.post(f"/api/tournaments/{code}/join")
    start_now(Tournament.objects.get(code=code))
    t = other.get(f"/api/tournaments/{code}").json()
    assert (t["status"], t["round"]) == ("running", 1)
    [table] = t["tables"]
    assert table["status"] == "playing" and len(table["room"]) == 6
    assert [s["player"]["id"] for s in table["seats"]] == [org.user.pk, other.user.pk]
    room = other.get(f"/api/rooms/{table['room']}").json()
    assert room["status"] == "playing"
    assert other.post(f"/api/tournaments/{code}/join").status_code == 200  # already in: idempotent
    late = make_client(UserFactory())
    assert late.post(f"/api/tournaments/{code}/join").json()["code"] == "already_started"


def test_list_has_mine_and_my_friends_open_ones(make_client):
    me, friend, stranger = (make_client(UserFactory()) for _ in range(3))
    friendship_make(user_a_id=me.user.pk, user_b_id=friend.user.pk, source="request")
    mine = me.post("/api/tournaments", body(), format="json").json()["code"]
    theirs = friend.post("/api/tournaments", body(), format="json").json()["code"]
    stranger.post("/api/tournaments", body(), format="json")
    got = [t["code"] for t in me.get("/api/tournaments").json()["tournaments"]]
    assert got == [theirs, mine]
    assert theirs not in [t["code"] for t in stranger.get("/api/tournaments").json()["tournaments"]]


def test_schema_has_the_tournament_operations(api):
    schema = api.get("/api/schema/?format=json").json()
    ops = {op["operationId"] for path in schema["paths"].values() for op in path.values() if isinstance(op, dict)}
    assert {"tournaments_list", "tournaments_create", "tournaments_get", "tournaments_join", "tournaments_leave",
            "tournaments_cancel", "tournaments_player_remove"} <= ops
    assert "409" in schema["paths"]["/api/tournaments/{code}/join"]["post"]["responses"]


@pytest.mark.parametrize("payload", [
    [], "x", {"game": 5}, body(rounds="many"), body(seats=None), body(starts_at="tomorrow"),
    body(starts_at="9999-12-31T00:00:00Z"), body(rated="maybe"), body(max_players=10**12), body(name="x" * 500),
    body(game="chess"), body(format="knockout"), body(cpu_speed="warp"), body(preset=["a"]),
])
def test_bad_bodies_are_400_never_500(make_client, payload):
    res = make_client(UserFactory()).post("/api/tournaments", payload, format="json")
    assert res.status_code == 400, res.content
    assert res.json()["code"] in ("invalid", "parse_error")
    assert Tournament.objects.count() == 0


def test_out_of_range_ids_and_codes_are_404(make_client):
    org = make_client(UserFactory())
    code = org.post("/api/tournaments", body(), format="json").json()["code"]
    assert org.delete(f"/api/tournaments/{code}/players/{10**30}").status_code == 404
    assert org.get("/api/tournaments/" + "Z" * 300).status_code == 404
