"""Issue 12 item 4, "the same shape and time": the refusals of ``POST /api/rooms/{code}/join`` and ``GET
/api/rooms/{code}`` do the same work and answer the same way whether the code is malformed, unknown, of a
closed room or of a room the caller may not join (full, started, ranked for a guest, kicked).

The work is compared as the SQL each request runs (PostgreSQL, the database served), literals replaced:
the same statements in the same order, whatever matched. No clock is read here; the timings are in
bench/README.md ("Room codes")."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from rooms import services
from rooms.models import Room, RoomStatus
from tests.factories import GuestFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

UNKNOWN = "ABCDEF"  # well formed, no room has it (the rooms below draw random codes: checked)


def _normalised(sql: str) -> str:
    """``sql`` with its literals (quoted strings, numbers) and savepoint names replaced by ``?``."""
    sql = re.sub(r'"s\d+_x\d+"', "?", sql)
    sql = re.sub(r"'(?:[^']|'')*'", "?", sql)
    return re.sub(r"\b\d+(?:\.\d+)?\b", "?", sql)


def _request(client, method: str, url: str):
    """``(response, [normalised SQL of the request])``."""
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(url)
    return response, [_normalised(q["sql"]) for q in captured.captured_queries]


def _headers(response) -> set[str]:
    return {name.lower() for name in response.headers} - {"content-length"}


@pytest.fixture
def rooms(make_client):
    """Rooms of every kind a code can name, and who is refused where: ``{case: (client, code, status,
    error code)}``."""
    host, other, caller = (make_client(UserFactory()) for _ in range(3))
    guest = make_client(GuestFactory())

    def room(**kwargs) -> Room:
        made = services.room_create(user=host.user, game="chinchon", seats=2, **kwargs)
        assert made.code != UNKNOWN
        return made

    full = room()
    services.room_join(code=full.code, user=other.user)
    started = room()
    services.room_start(code=started.code, user=host.user)  # the empty seat gets a CPU: playing
    ranked = room(ranked=True)
    kicked = room()
    services.room_join(code=kicked.code, user=caller.user)
    services.room_kick(room_id=kicked.pk, seat=1, by=host.user, reason="abuse")
    closed = room()
    Room.objects.filter(pk=closed.pk).update(status=RoomStatus.CLOSED)
    idle = room()  # idle 24 h: closed for the API
    Room.objects.filter(pk=idle.pk).update(last_activity=timezone.now() - timedelta(hours=25))
    assert Room.objects.get(pk=started.pk).status == RoomStatus.PLAYING
    return {
        "malformed": (caller, "OOO-OO", 404, "not_found"),
        "too short": (caller, "ABC", 404, "not_found"),
        "unknown": (caller, UNKNOWN, 404, "not_found"),
        "closed": (caller, closed.code, 404, "not_found"),
        "idle": (caller, idle.code, 404, "not_found"),
        "full": (caller, full.code, 409, "room_full"),
        "started": (caller, started.code, 409, "already_started"),
        "ranked, guest": (guest, ranked.code, 403, "registration_required"),
        "kicked": (caller, kicked.code, 403, "kicked"),
    }


def _refusals(rooms, method: str, path: str, cases) -> dict:
    """``{case: (response, statements)}`` after checking each answer's status and code."""
    out = {}
    for case in cases:
        client, code, status, error = rooms[case]
        response, statements = _request(client, method, path.format(code=code))
        assert (response.status_code, response.json()["code"]) == (status, error), case
        out[case] = (response, statements)
    return out


def test_join_refusals_run_the_same_statements_and_answer_alike(rooms):
    seen = _refusals(rooms, "post", "/api/rooms/{code}/join", rooms)
    reference = seen["unknown"][1]
    assert sum("FOR UPDATE" in s for s in reference) == 1  # the room is locked once, whatever matched
    for case, (response, statements) in seen.items():
        assert statements == reference, case
        assert set(response.json()) == {"code", "detail"}, case
        assert rooms[case][1] not in response.json()["detail"], case
        assert _headers(response) == _headers(seen["unknown"][0]), case


def test_look_up_refusals_run_the_same_statements_and_answer_alike(rooms):
    seen = _refusals(rooms, "get", "/api/rooms/{code}", ["malformed", "too short", "unknown", "closed", "idle"])
    reference = seen["unknown"][1]
    assert any("rooms_room" in s for s in reference)  # the code is looked up even when it cannot be one
    for case, (response, statements) in seen.items():
        assert statements == reference, case
        assert set(response.json()) == {"code", "detail"}, case
        assert _headers(response) == _headers(seen["unknown"][0]), case


def test_a_room_you_may_join_is_still_joined_and_one_you_sit_in_rejoined(make_client):
    """The joins that succeed are unchanged: the lowest free seat, and idempotent for a seated player."""
    host = make_client(UserFactory())
    room = services.room_create(user=host.user, game="chinchirorin", seats=3)
    newcomer = make_client(UserFactory())
    first = newcomer.post(f"/api/rooms/{room.code.lower()}/join")
    again = newcomer.post(f"/api/rooms/{room.code}/join")
    assert first.status_code == again.status_code == 200
    seated = [s["user"]["id"] if s["user"] else None for s in again.json()["seats"]]
    assert seated == [host.user.pk, newcomer.user.pk, None]


def test_a_room_whose_game_ended_unannounced_is_finished_by_the_next_join(make_client):
    """The game's status is read with the room's lock now: a room left ``playing`` after its game ended
    (the signal lost) is still finished before the join is decided: the seat of the player who left
    mid-game is freed and taken."""
    from games.models import Game

    host, other, late = (make_client(UserFactory()) for _ in range(3))
    room = services.room_create(user=host.user, game="chinchirorin", seats=2)
    services.room_join(code=room.code, user=other.user)
    services.room_start(code=room.code, user=host.user)
    services.room_leave(code=room.code, user=other.user)  # played for until the game ends
    room.refresh_from_db()
    Game.objects.filter(pk=room.game_id).update(status=Game.FINISHED)  # no game_finished signal
    res = late.post(f"/api/rooms/{room.code}/join")
    assert res.status_code == 200, res.json()
    assert (res.json()["status"], res.json()["seats"][1]["user"]["id"]) == ("finished", late.user.pk)
