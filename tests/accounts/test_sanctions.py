"""Standing and sanctions through REST (issue 12 item 1, issue 11 item 1): the record each service writes,
``403 banned`` / ``403 suspended`` (with ``until``) for a valid token, 401 only for unknown tokens, mutes,
automatic end at ``until`` (read from the clock, no job), lifting, seats handed to the CPU, IP blocks, and
the admin going through the services."""

from datetime import timedelta

import pytest
from auditlog.models import LogEntry
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts import sanctions
from accounts.models import IpBlock, Sanction, User
from config.timefmt import iso_ms
from games.models import GamePlayer
from rooms import services as rooms_services
from rooms.models import Seat
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture
def moderator(db):
    return UserFactory(username="mod", is_staff=True, is_superuser=True)


def _later(monkeypatch, delta: timedelta):
    """Move the clock ``delta`` ahead (django.utils.timezone.now, which every module reads)."""
    real = timezone.now
    moment = real() + delta
    monkeypatch.setattr(timezone, "now", lambda: moment)
    return moment


def test_a_ban_is_recorded_and_answers_403_banned_for_a_valid_token(make_client, api, user, moderator):
    client = make_client(user)
    sanction = sanctions.user_ban(user=user, by=moderator, reason="cheating in ranked games")
    row = Sanction.objects.get(pk=sanction.pk)
    assert (row.user_id, row.kind, row.reason, row.until, row.created_by_id, row.lifted_at) == (
        user.pk, "ban", "cheating in ranked games", None, moderator.pk, None)
    fresh = User.objects.get(pk=user.pk)
    assert fresh.banned_at == row.created_at and fresh.is_active is False
    entry = LogEntry.objects.get_for_object(row).get()
    assert (entry.action, entry.actor_id) == (LogEntry.Action.CREATE, moderator.pk)
    for res in (client.get("/api/me"), client.post("/api/rooms", {"game": "chinchon"}, format="json")):
        assert res.status_code == 403
        assert res.json() == {"code": "banned", "detail": "This account is banned. Reason: cheating in ranked games",
                              "reason": "cheating in ranked games", "sanction_id": sanction.pk}
    api.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)  # a token that does not exist: 401
    res = api.get("/api/me")
    assert (res.status_code, res.json()["code"]) == (401, "authentication_failed")
    assert sanctions.user_ban_lift(user=user, by=moderator, reason="appeal upheld") == 1
    assert client.get("/api/me").status_code == 200
    row.refresh_from_db()
    assert (row.lifted_by_id, row.lift_reason) == (moderator.pk, "appeal upheld") and row.lifted_at is not None


def test_a_suspension_answers_403_with_until_and_ends_by_itself(make_client, user, moderator, monkeypatch):
    client = make_client(user)
    until = timezone.now() + 2 * HOUR
    made = sanctions.user_suspend(user=user, by=moderator, reason="abusive chat", until=until)
    res = client.get("/api/me")
    assert res.status_code == 403
    assert res.json() == {"code": "suspended",
                          "detail": f"This account is suspended until {iso_ms(until)}. Reason: abusive chat",
                          "until": iso_ms(until), "reason": "abusive chat", "sanction_id": made.pk}
    res = client.post("/api/auth/login", {"username": user.username, "password": PASSWORD}, format="json")
    assert (res.status_code, res.json()["until"]) == (403, iso_ms(until))
    _later(monkeypatch, 2 * HOUR + timedelta(seconds=1))  # nothing runs: the end time is read from the clock
    assert client.get("/api/me").status_code == 200
    assert Sanction.objects.in_force().filter(user=user).count() == 0


def test_a_mute_refuses_chat_only_until_its_end(make_client, user, moderator, monkeypatch):
    client = make_client(user)
    room = rooms_services.room_create(user=user, game="chinchon", seats=2)
    until = timezone.now() + HOUR
    made = sanctions.user_mute(user=user, by=moderator, reason="spam", until=until)
    res = client.post(f"/api/rooms/{room.code}/messages", {"text": "hi"}, format="json")
    assert res.json() == {"code": "muted", "detail": f"You are muted until {iso_ms(until)}. Reason: spam",
                          "until": iso_ms(until), "reason": "spam", "sanction_id": made.pk}
    assert client.get("/api/me").status_code == 200  # playing is not affected
    _later(monkeypatch, HOUR + timedelta(seconds=1))
    assert client.post(f"/api/rooms/{room.code}/messages", {"text": "hi"}, format="json").status_code == 201


def test_a_new_sanction_of_a_kind_replaces_the_one_in_force_and_lifting_is_recorded(user, moderator):
    first = sanctions.user_mute(user=user, by=moderator, reason="spam", until=timezone.now() + HOUR)
    second = sanctions.user_mute(user=user, by=moderator, reason="spam again", until=timezone.now() + 3 * HOUR)
    first.refresh_from_db()
    assert first.lifted_at is not None and first.lift_reason == "Replaced by a new sanction of the same kind."
    assert list(Sanction.objects.in_force().filter(user=user)) == [second]
    assert User.objects.get(pk=user.pk).muted_until == second.until
    assert sanctions.user_mute_lift(user=user, by=moderator) == 1
    assert sanctions.user_mute_lift(user=user, by=moderator) == 0
    assert User.objects.get(pk=user.pk).muted_until is None


def test_bad_sanctions_are_refused_and_change_nothing(user, moderator):
    cases = [
        (sanctions.user_ban, {"reason": "  "}, "reason"),
        (sanctions.user_mute, {"reason": "x", "until": None}, "until"),
        (sanctions.user_suspend, {"reason": "x", "until": timezone.now() - HOUR}, "until"),
    ]
    for service, kwargs, field in cases:
        with pytest.raises(ValidationError) as exc:
            service(user=user, by=moderator, **kwargs)
        assert list(exc.value.message_dict) == [field]
    assert Sanction.objects.count() == 0
    assert User.objects.get(pk=user.pk).banned_at is None


def test_a_banned_players_seats_go_to_the_cpu(user, moderator):
    other, third = UserFactory(), UserFactory()
    playing = rooms_services.room_create(user=other, game="chinchirorin", seats=2)
    rooms_services.room_join(code=playing.code, user=user)
    rooms_services.room_start(code=playing.code, user=other)
    waiting = rooms_services.room_create(user=third, game="chinchon", seats=2)
    rooms_services.room_join(code=waiting.code, user=user)
    sanctions.user_ban(user=user, by=moderator, reason="cheating")
    seat = Seat.objects.get(room=playing, user=user)
    playing.refresh_from_db()
    assert seat.left is True  # played for until the game ends, as when a player leaves
    assert GamePlayer.objects.get(game_id=playing.game_id, user=user).left is True
    assert not Seat.objects.filter(room=waiting, user=user).exists()  # freed before a game


def test_an_ip_block_refuses_guests_and_registration_from_that_network(api, moderator, monkeypatch):
    block = sanctions.ip_block(network="203.0.113.77/24", by=moderator, reason="guest farm",
                               until=timezone.now() + HOUR)
    assert block.network == "203.0.113.0/24"
    inside, outside = {"REMOTE_ADDR": "203.0.113.9"}, {"REMOTE_ADDR": "198.51.100.4"}
    body = {"display_name": "Hana"}
    res = api.post("/api/auth/guest", body, format="json", **inside)
    assert res.json() == {"code": "address_blocked", "detail": "New accounts cannot be created from your network.",
                          "until": iso_ms(block.until)}
    # a client cannot choose its address with X-Forwarded-For (NUM_PROXIES is 0 by default)
    res = api.post("/api/auth/guest", body, format="json", HTTP_X_FORWARDED_FOR="198.51.100.4", **inside)
    assert res.status_code == 403
    reg = {"username": "newname", "password": PASSWORD, "display_name": "N"}
    assert api.post("/api/auth/register", reg, format="json", **inside).status_code == 403
    assert api.post("/api/auth/guest", body, format="json", **outside).status_code == 201
    _later(monkeypatch, HOUR + timedelta(seconds=1))
    assert api.post("/api/auth/guest", body, format="json", **inside).status_code == 201
    assert sanctions.ip_block_lift(block=block, by=moderator) is False  # already over


def test_ip_blocks_cover_ipv6_networks_and_are_lifted(api, moderator):
    block = sanctions.ip_block(network="2001:db8::/48", by=moderator, reason="abuse")
    res = api.post("/api/auth/guest", {"display_name": "Hana"}, format="json", REMOTE_ADDR="2001:db8::5")
    assert (res.status_code, res.json()["until"]) == (403, None)
    assert sanctions.ip_block_lift(block=block, by=moderator) is True
    res = api.post("/api/auth/guest", {"display_name": "Hana"}, format="json", REMOTE_ADDR="2001:db8::5")
    assert res.status_code == 201
    with pytest.raises(ValidationError):
        sanctions.ip_block(network="not-a-network", by=moderator, reason="x")
    assert IpBlock.objects.count() == 1


def test_the_admin_sanctions_through_the_services(client, user, moderator):
    client.force_login(moderator)
    res = client.post("/admin/accounts/sanction/add/", {"user": user.pk, "kind": "ban", "reason": "bots"})
    assert res.status_code == 302, res.content[:2000]
    fresh = User.objects.get(pk=user.pk)
    assert fresh.banned_at is not None and fresh.is_active is False
    sanction = Sanction.objects.get(user=user)
    assert sanction.created_by_id == moderator.pk
    res = client.post("/admin/accounts/sanction/add/", {"user": user.pk, "kind": "mute", "reason": "x"})
    assert res.status_code == 200 and b"Give an end time in the future." in res.content
    # lifting asks for the reason first (nothing lifted), then lifts with it
    res = client.post("/admin/accounts/sanction/", {"action": "lift", "_selected_action": [sanction.pk]})
    assert res.status_code == 200 and b'name="reason"' in res.content
    assert User.objects.get(pk=user.pk).banned_at is not None
    res = client.post("/admin/accounts/sanction/", {"action": "lift", "_selected_action": [sanction.pk],
                                                     "reason": "appeal accepted"})
    assert res.status_code == 302
    assert User.objects.get(pk=user.pk).banned_at is None
    assert Sanction.objects.get(pk=sanction.pk).lift_reason == "appeal accepted"
    res = client.post("/admin/accounts/ipblock/add/", {"network": "192.0.2.1/24", "reason": "spam"})
    assert res.status_code == 302
    assert IpBlock.objects.get().network == "192.0.2.0/24"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_ban_meeting_a_chat_message_being_written_does_not_deadlock(moderator):
    """A chat message's transaction holds its room and inserts a row pointing at the user, whose foreign
    key PostgreSQL checks at COMMIT (Django's keys are deferred) with a KEY SHARE lock on the user's row.
    A ban meanwhile locks that row, then waits for the room to leave it. Locked FOR UPDATE, the row
    refused the key check: each waited for the other (DeadlockDetected). FOR NO KEY UPDATE lets it pass."""
    import threading
    import time

    from django.db import connection, transaction

    from rooms.models import ChatMessage, Room
    from tests.rooms.factories import RoomFactory

    room = RoomFactory(status="open")
    player = room.host
    errors, written = [], threading.Event()

    def chat() -> None:
        try:
            with transaction.atomic():
                Room.objects.select_for_update().get(pk=room.pk)
                ChatMessage.objects.create(room=room, user=player, seat=0, text="hi")
                written.set()
                time.sleep(1.0)  # the ban takes the user's row and waits for the room meanwhile
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    def ban() -> None:
        written.wait(5)
        try:
            sanctions.user_ban(user=player, by=moderator, reason="spam")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=chat), threading.Thread(target=ban)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert ChatMessage.objects.filter(room=room, text="hi").exists()
    assert User.objects.get(pk=player.pk).banned_at is not None
