"""A game that ends finishes its room in the same transaction (``games.signals.game_finishing`` ->
``rooms.services.room_game_finishing``): the room commits with the game, and the last action's answer
follows both. A room row that another transaction holds is never waited for there (that transaction may
itself be waiting for the game: a deadlock); the room is finished after the game's commit instead."""

import threading
import time

import pytest
from django.db import connection, connections, transaction

from games import services as game_services
from games.models import Game
from rooms import services
from rooms.models import Room
from tests.factories import UserFactory

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks (SKIP LOCKED) on PostgreSQL")


def _playing_room(seats: int = 2) -> tuple[Room, list]:
    users = [UserFactory() for _ in range(seats)]
    room = services.room_create(user=users[0], game="chinchirorin", seats=seats)
    for u in users[1:]:
        services.room_join(code=room.code, user=u)
    services.room_start(code=room.code, user=users[0])
    room.refresh_from_db()
    return room, users


@pytest.mark.django_db
def test_the_action_that_ends_a_game_finishes_its_room_in_its_own_transaction(monkeypatch,
                                                                              django_capture_on_commit_callbacks):
    room, users = _playing_room()
    sent = []
    monkeypatch.setattr("rooms.locking.group_send", lambda group, message: sent.append(message))
    monkeypatch.setattr("ranking.tasks.rate_game.delay", lambda game_id: None)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        game_services.game_apply_action(game_id=room.game_id, actor=users[1], expected_seq=0,
                                        action={"type": "resign"})
    # Before any after-commit work: the room is finished by the transaction that ended the game.
    room.refresh_from_db()
    assert (room.status, Game.objects.get(pk=room.game_id).status) == ("finished", "finished")
    for callback in callbacks:
        callback()
    (message,) = [m["payload"]["room"] for m in sent if m["type"] == "room.update"]
    assert (message["status"], message["version"]) == ("finished", room.version)


@pytest.mark.django_db(transaction=True)
def test_a_room_held_by_another_transaction_is_finished_after_the_games_commit(monkeypatch):
    monkeypatch.setattr("ranking.tasks.rate_game.delay", lambda game_id: None)
    room, users = _playing_room()
    held, release, game_done, errors = threading.Event(), threading.Event(), threading.Event(), []

    def hold_the_room():
        try:
            with transaction.atomic():
                Room.objects.select_for_update().get(pk=room.pk)
                held.set()
                release.wait(10)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    def resign():
        try:
            held.wait(5)
            game_services.game_apply_action(game_id=room.game_id, actor=users[1], expected_seq=0,
                                            action={"type": "resign"})
            game_done.set()
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    holder, actor = threading.Thread(target=hold_the_room), threading.Thread(target=resign)
    holder.start()
    actor.start()
    try:
        # The game's transaction commits while the room is held: it did not wait for the room.
        deadline = time.monotonic() + 10
        while Game.objects.get(pk=room.game_id).status != Game.FINISHED and time.monotonic() < deadline:
            time.sleep(0.05)
        assert Game.objects.get(pk=room.game_id).status == Game.FINISHED
        assert Room.objects.get(pk=room.pk).status == "playing"  # left for after the commit
        assert not game_done.is_set()  # ... where the room's own transaction waits its turn
    finally:
        release.set()
        holder.join(20)
        actor.join(20)
    assert errors == []
    assert game_done.is_set() and Room.objects.get(pk=room.pk).status == "finished"
