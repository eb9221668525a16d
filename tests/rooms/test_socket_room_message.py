"""Every change of a room broadcasts it: a socket's first open and last close (the seat's ``connected``,
the ``spectators``), a start or a rematch (its game and status), a join, a host's seat change. The
``room`` message they broadcast is built in the transaction from the rows it locked and read, so nothing
is queried after the commit (the message goes out as committed, with the host and every seat as they
are)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rooms import services
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _room_messages(monkeypatch, django_capture_on_commit_callbacks, fn) -> tuple[list[dict], int]:
    """Run ``fn``; then its after-commit callbacks, counting their queries. Returns the ``room``
    messages sent and that count."""
    sent = []
    monkeypatch.setattr("rooms.locking.group_send", lambda group, message: sent.append(message))
    monkeypatch.setattr("games.events.group_send_many", lambda messages: None)  # the game's presence
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        fn()
    with CaptureQueriesContext(connection) as after:
        for callback in callbacks:
            callback()
    return [m["payload"]["room"] for m in sent if m["type"] == "room.update"], len(after.captured_queries)


def test_a_seats_first_socket_and_last_close_broadcast_the_room_without_a_query_after_commit(
        monkeypatch, django_capture_on_commit_callbacks):
    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=3)
    services.room_join(code=room.code, user=other)
    services.room_start(code=room.code, user=host)

    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_socket_opened(room_id=room.pk, user=other))
    assert queries == 0
    (sent,) = rooms
    assert sent["host"]["display_name"] == "Ann"
    assert [(s["index"], (s["user"] or {}).get("display_name"), s["connected"]) for s in sent["seats"]] == [
        (0, "Ann", False), (1, "Bob", True), (2, None, False)]

    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_socket_closed(room_id=room.pk, user_id=other.pk, seat=1))
    assert queries == 0
    (sent,) = rooms
    assert [s["connected"] for s in sent["seats"]] == [False, False, False]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_socket_closing_while_the_host_changes_broadcasts_the_new_host(monkeypatch):
    """The room is locked without its host joined: a close that waited for the lock while another
    transaction handed the host role over reads the new host (a statement joining the host would bring
    back the host row it read before the wait, and PostgreSQL re-checks only the locked row: no host)."""
    import threading
    import time

    from django.db import connections, transaction

    from rooms.models import Room

    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=2)
    services.room_join(code=room.code, user=other)
    services.room_socket_opened(room_id=room.pk, user=other)
    sent = []
    monkeypatch.setattr("rooms.locking.group_send", lambda group, message: sent.append(message))
    locked, errors = threading.Event(), []

    def hand_over():
        try:
            with transaction.atomic():
                r = Room.objects.select_for_update().get(pk=room.pk)
                locked.set()
                time.sleep(0.5)  # the close below is waiting for the room's lock meanwhile
                r.host = other
                r.save(update_fields=["host"])
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    def close():
        try:
            locked.wait(5)
            services.room_socket_closed(room_id=room.pk, user_id=other.pk, seat=1)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=hand_over), threading.Thread(target=close)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert errors == []
    (message,) = [m for m in sent if m["type"] == "room.update"]
    assert (message["payload"]["room"]["host"] or {}).get("display_name") == "Bob"
    assert [s["connected"] for s in message["payload"]["room"]["seats"]] == [False, False]


def test_a_start_and_a_rematch_broadcast_the_room_without_a_query_after_commit(
        monkeypatch, django_capture_on_commit_callbacks):
    from django.db import connection as conn

    from games.models import GamePlayer
    from games.services import game_abort

    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=4)
    services.room_join(code=room.code, user=other)
    with CaptureQueriesContext(conn) as start:
        rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                        lambda: services.room_start(code=room.code, user=host))
    assert queries == 0
    (sent,) = rooms
    game_id = sent["game_id"]
    assert (sent["status"], sent["host"]["display_name"]) == ("playing", "Ann")
    assert [((s["user"] or {}).get("display_name"), s["cpu"]) for s in sent["seats"]] == [
        ("Ann", False), ("Bob", False), (None, True), (None, True)]
    # The four players are written by one statement.
    inserts = [q["sql"] for q in start.captured_queries if q["sql"].startswith('INSERT INTO "games_gameplayer"')]
    assert len(inserts) == 1 and GamePlayer.objects.filter(game_id=game_id).count() == 4

    game_abort(game_id=game_id, reason="test")
    services.room_game_ended(game_id=game_id)
    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_rematch(code=room.code, user=host))
    assert queries == 0
    (sent,) = rooms
    assert sent["status"] == "playing" and sent["game_id"] not in (None, game_id)


def test_a_spectators_first_socket_and_last_close_broadcast_the_room_without_a_query_after_commit(
        monkeypatch, django_capture_on_commit_callbacks):
    host, watcher = UserFactory(display_name="Ann"), UserFactory(display_name="Eve")
    room = services.room_create(user=host, game="chinchon", seats=2)
    room.spectators_allowed = True
    room.save(update_fields=["spectators_allowed"])

    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_spectator_opened(room_id=room.pk, user=watcher))
    assert queries == 0
    (sent,) = rooms
    assert [s["display_name"] for s in sent["spectators"]] == ["Eve"]
    assert sent["host"]["display_name"] == "Ann"

    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_spectator_closed(room_id=room.pk, user_id=watcher.pk))
    assert queries == 0
    (sent,) = rooms
    assert sent["spectators"] == []


def test_a_join_and_a_seat_change_broadcast_the_room_without_a_query_after_commit(
        monkeypatch, django_capture_on_commit_callbacks):
    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=3)
    # The join's other after-commit work (host and joiner become friends) is not the broadcast's.
    monkeypatch.setattr("rooms.seats.room_joined", type("Quiet", (), {"send": staticmethod(lambda **kw: None)}))

    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_join(code=room.code, user=other))
    assert queries == 0
    (sent,) = rooms
    assert [((s["user"] or {}).get("display_name"), s["cpu"]) for s in sent["seats"]] == [
        ("Ann", False), ("Bob", False), (None, False)]

    rooms, queries = _room_messages(monkeypatch, django_capture_on_commit_callbacks,
                                    lambda: services.room_set_cpu(code=room.code, user=host, seat=2))
    assert queries == 0
    (sent,) = rooms
    assert [s["cpu"] for s in sent["seats"]] == [False, False, True]
    assert sent["host"]["display_name"] == "Ann"


def test_a_room_message_makes_no_serializer(monkeypatch):
    """The room, its seats and its spectators come from one serializer each for the process: making a
    serializer deep-copies its fields (every field built again), which was most of a room message's cost,
    and leaves them in reference cycles for the garbage collector. The shape is the one those serializers
    give."""
    from rest_framework import serializers as drf

    from rooms import selectors
    from rooms.serializers import SeatSerializer, room_data

    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=3)
    services.room_join(code=room.code, user=other)
    room = selectors.rooms_with_seats().get(pk=room.pk)
    seats = sorted(room.seats.all(), key=lambda s: s.index)
    expected = [dict(d) for d in SeatSerializer(seats, many=True).data]  # built here, as before the change

    made = []
    real_init = drf.Serializer.__init__

    def counting_init(self, *args, **kwargs):
        made.append(type(self).__name__)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(drf.Serializer, "__init__", counting_init)
    data = room_data(room)
    assert made == []  # the process's one RoomSerializer, its context the call's
    assert [s["index"] for s in data["seats"]] == [0, 1, 2]
    assert data["seats"][0]["user"] == {"id": host.pk, "username": host.username, "display_name": "Ann",
                                        "is_guest": host.is_guest}
    assert data["seats"][1]["user"]["display_name"] == "Bob" and data["seats"][2]["user"] is None
    assert [dict(s, user=dict(s["user"]) if s["user"] else None) for s in data["seats"]] == [
        dict(s, user=dict(s["user"]) if s["user"] else None) for s in expected]
    assert data["spectators"] == []


def test_room_shapes_built_at_once_in_two_threads_each_read_their_own_context(monkeypatch):
    """The process's one RoomSerializer reads the context of the ``room_data`` call in progress in its own
    thread: two threads inside it at once (held together at the invite link, read before the seats) each
    get their own link and seats."""
    import threading

    from rooms import selectors
    from rooms import serializers as room_serializers

    host, other = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=host, game="chinchirorin", seats=3)
    services.room_join(code=room.code, user=other)
    room = selectors.rooms_with_seats().get(pk=room.pk)
    room.spectators_allowed = False  # no spectator query: the threads touch no database
    seats = sorted(room.seats.all(), key=lambda s: s.index)
    both_inside = threading.Barrier(2, timeout=30)
    real_invite_url = room_serializers.invite_url

    def invite_url_when_both_are_inside(code, base_url=None):
        both_inside.wait()
        return real_invite_url(code, base_url)

    monkeypatch.setattr(room_serializers, "invite_url", invite_url_when_both_are_inside)
    shapes = {}

    def build(base_url, seat_rows):
        shapes[base_url] = room_serializers.room_data(room, seats=seat_rows, base_url=base_url)

    threads = [threading.Thread(target=build, args=("https://a.example", seats)),
               threading.Thread(target=build, args=("https://b.example", seats[:1]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    a, b = shapes["https://a.example"], shapes["https://b.example"]
    assert a["invite_url"] == f"https://a.example/join/{room.code}"
    assert b["invite_url"] == f"https://b.example/join/{room.code}"
    assert [s["index"] for s in a["seats"]] == [0, 1, 2]
    assert [s["index"] for s in b["seats"]] == [0]
