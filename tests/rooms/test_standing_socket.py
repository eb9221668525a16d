"""Issue 12 probe 1 on a real connected socket (``config.asgi.application`` with the Redis channel
layer): a ban, a suspension or a logout closes the user's open sockets at once (4409, 4410, 4401), and
every action and chat re-checks the standing, so a socket that missed the close applies nothing."""

import json
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts import sanctions
from accounts.models import ApiToken, User
from accounts.services import user_logout
from config.timefmt import iso_ms
from games.models import Game, GamePlayer
from rooms.models import Room
from tests.factories import UserFactory
from tests.rooms import test_consumers
from tests.rooms.test_consumers import TIMEOUT, _closed_with_after_messages, _open, _socket, _start, _until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.usefixtures("fresh_channel_layer")]

# The socket tests' fixture: two players in a 2-seat room.
players = test_consumers.players


async def _bettor(room, host, other):
    """Start the game (seat 0 deals, so seat 1 — ``other`` — is awaited for a bet); ``other``'s socket
    and view."""
    game_id = await _start(room, host)
    comm = await _open(room.code, other)
    view = (await _until(comm, lambda m: m["type"] == "game"))[-1]["view"]
    assert view["awaiting"] == [1]
    return game_id, comm, view


async def _seq(game_id) -> int:
    return (await database_sync_to_async(Game.objects.get)(pk=game_id)).seq


async def test_a_ban_closes_the_open_socket_with_4409_and_nothing_more_is_applied(players):
    room, host, other = players
    game_id, comm, view = await _bettor(room, host, other)
    moderator = await database_sync_to_async(UserFactory)(is_staff=True)
    await database_sync_to_async(sanctions.user_ban)(user=other, by=moderator, reason="cheating")
    got = []
    while True:
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            break
        got.append(out)
    assert out["code"] == 4409
    assert '"code": "banned"' in got[-1]["text"]
    # the seat is played for (left), the game did not move for the banned player
    gp = await database_sync_to_async(GamePlayer.objects.get)(game_id=game_id, seat=1)
    assert gp.left is True
    assert await _seq(game_id) == 0
    # a new socket with the same token is refused with 4409 too
    again = await _socket(room.code, other)
    assert (await again.connect(timeout=TIMEOUT))[0]
    assert await _closed_with_after_messages(again) == 4409


async def test_every_action_rechecks_the_standing_even_when_the_close_was_missed(players):
    """The ban written without the group message (as if the channel layer dropped it): the next action on
    the open socket is refused with ``banned`` and the socket closed; the bet is not applied."""
    room, host, other = players
    game_id, comm, view = await _bettor(room, host, other)
    await database_sync_to_async(User.objects.filter(pk=other.pk).update)(banned_at=timezone.now())
    bet = view["legal_actions"][0]
    await comm.send_json_to({"type": "action", "action": {**bet, "seq": view["seq"]}})
    err = (await _until(comm, lambda m: m["type"] == "error"))[-1]
    assert err == {"type": "error", "code": "banned", "detail": "This account is banned."}
    assert await _closed_with_after_messages(comm) == 4409
    assert await _seq(game_id) == 0


async def test_a_suspension_closes_with_4410_and_chat_is_refused_after_a_missed_close(players):
    room, host, other = players
    comm = await _open(room.code, other)
    await _until(comm, lambda m: m["type"] == "room")
    until = timezone.now() + timedelta(hours=1)
    await database_sync_to_async(User.objects.filter(pk=other.pk).update)(suspended_until=until)
    await comm.send_json_to({"type": "chat", "text": "still here?"})
    err = (await _until(comm, lambda m: m["type"] == "error"))[-1]
    assert (err["code"], err["until"]) == ("suspended", iso_ms(until))
    assert await _closed_with_after_messages(comm) == 4410
    comm = await _open(room.code, host)
    await _until(comm, lambda m: m["type"] == "room")
    await database_sync_to_async(sanctions.user_suspend)(user=host, by=None, reason="x", until=until)
    assert await _closed_with_after_messages(comm) == 4410


async def test_logout_closes_the_open_sockets_with_4401(players):
    room, host, other = players
    game_id, comm, view = await _bettor(room, host, other)
    second = await _open(room.code, other)
    await _until(second, lambda m: m["type"] == "game")
    await database_sync_to_async(user_logout)(user=other)
    assert await _closed_with_after_messages(comm) == 4401
    assert await _closed_with_after_messages(second) == 4401
    assert await _seq(game_id) == 0


async def test_a_revoked_token_refuses_the_next_action_with_4401(players):
    room, host, other = players
    game_id, comm, view = await _bettor(room, host, other)
    await database_sync_to_async(ApiToken.objects.filter(user=other).delete)()  # revoked, no message sent
    bet = view["legal_actions"][0]
    await comm.send_json_to({"type": "action", "action": {**bet, "seq": view["seq"]}})
    err = (await _until(comm, lambda m: m["type"] == "error"))[-1]
    assert err["code"] == "authentication_failed"
    assert await _closed_with_after_messages(comm) == 4401
    assert await _seq(game_id) == 0
    assert (await database_sync_to_async(Room.objects.get)(pk=room.pk)).status == "playing"


@pytest.mark.parametrize(("sanction", "close_code"), [("ban", 4409), ("suspend", 4410)])
async def test_a_sanction_committed_while_the_socket_connects_does_not_seat_the_player_again(
        players, monkeypatch, sanction, close_code):
    """The sanction lands after the handshake read the user and before the socket joined the user's group
    (its close reached no socket): the socket is still refused with the standing's ``error`` and its close
    code, the seat stays left and unconnected, and the game does not count the player as back."""
    from rooms import consumers
    from rooms.models import Seat

    room, host, other = players
    game_id = await _start(room, host)
    moderator = await database_sync_to_async(UserFactory)(is_staff=True)
    seated = consumers._seated

    def sanction_then_look(code, user):
        _impose(sanction, other, moderator)  # commits: no socket hears it
        return seated(code, user)

    monkeypatch.setattr(consumers, "_seated", sanction_then_look)
    assert await _refused_at_connect(room.code, other) == (close_code, {"ban": "banned", "suspend": "suspended"}[sanction])
    seat = await database_sync_to_async(Seat.objects.get)(room=room, user=other)
    assert (seat.left, seat.connections) == (True, 0)
    gp = await database_sync_to_async(GamePlayer.objects.get)(game_id=game_id, seat=1)
    assert (gp.left, gp.connected) == (True, False)


async def test_a_ban_committed_while_a_spectator_socket_connects_refuses_it(transactional_db, monkeypatch):
    """The same for a spectator's socket: the ban lands before the socket is counted as watching; it is
    refused with ``banned`` and 4409, and the room lists no spectator."""
    from rooms import consumers
    from rooms import services as rooms_services

    def setup():
        host, player, watcher = UserFactory(), UserFactory(), UserFactory()
        room = rooms_services.room_create(user=host, game="chinchon", seats=2, spectators_allowed=True)
        rooms_services.room_join(code=room.code, user=player)
        return room, watcher, UserFactory(is_staff=True)

    room, watcher, moderator = await database_sync_to_async(setup)()
    watchable = consumers._watchable

    def ban_then_look(code):
        _impose("ban", watcher, moderator)
        return watchable(code)

    monkeypatch.setattr(consumers, "_watchable", ban_then_look)
    assert await _refused_at_connect(room.code, watcher) == (4409, "banned")
    assert not await database_sync_to_async(
        lambda: room.spectators.filter(connections__gt=0).exists())()


def _impose(sanction: str, user, moderator) -> None:
    if sanction == "ban":
        sanctions.user_ban(user=user, by=moderator, reason="bots")
    else:
        sanctions.user_suspend(user=user, by=moderator, reason="bots", until=timezone.now() + timedelta(hours=1))


async def _refused_at_connect(code: str, user) -> tuple[int, str]:
    """Connect ``user``'s socket to room ``code`` and read up to its close: (close code, error code)."""
    comm = await _socket(code, user)
    assert (await comm.connect(timeout=TIMEOUT))[0]
    got = []
    while (out := await comm.receive_output(timeout=TIMEOUT))["type"] != "websocket.close":
        got.append(out)
    errors = [json.loads(m["text"]) for m in got if m.get("text") and '"error"' in m["text"]]
    return out["code"], errors[-1]["code"] if errors else None


class _AdminForm(HTMLParser):
    """The fields a browser would post back from an admin change page's form ``form_id``, as shown."""

    def __init__(self, form_id: str):
        super().__init__()
        self.form_id, self.inside, self.select, self.textarea = form_id, False, None, None
        self.data: dict[str, list[str]] = {}

    def _add(self, name: str, value: str) -> None:
        self.data.setdefault(name, []).append(value)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside or not (a.get("name") or tag == "option"):
            return
        kind = a.get("type", "text")
        if tag == "input" and kind in ("checkbox", "radio"):
            if "checked" in a:
                self._add(a["name"], a.get("value", "on"))
        elif tag == "input" and kind not in ("submit", "button", "file"):
            self._add(a["name"], a.get("value") or "")
        elif tag == "select":
            self.select = a["name"]
        elif tag == "option" and self.select and "selected" in a:
            self._add(self.select, a.get("value", ""))
        elif tag == "textarea":
            self.textarea = a["name"]
            self._add(a["name"], "")

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data):
        if self.textarea:
            self.data[self.textarea][-1] += data


async def test_unticking_active_in_the_admin_closes_the_sockets_and_hands_the_seat_to_the_cpu(players):
    """``is_active`` off by hand on the user's admin page (the form posted back as shown, with the box
    unticked) is a ban without its record: the open socket gets the ``banned`` error and 4409, and the
    seat is played for."""
    from django.test import Client

    room, host, other = players
    game_id, comm, view = await _bettor(room, host, other)
    moderator = await database_sync_to_async(UserFactory)(is_staff=True, is_superuser=True)

    def untick() -> int:
        client = Client()
        client.force_login(moderator)
        url = f"/admin/accounts/user/{other.pk}/change/"
        form = _AdminForm("user_form")
        form.feed(client.get(url).content.decode())
        assert form.data.pop("is_active") == ["on"]
        return client.post(url, {**form.data, "_save": "Save"}).status_code

    assert await database_sync_to_async(untick)() == 302
    assert not (await database_sync_to_async(User.objects.get)(pk=other.pk)).is_active
    got = []
    while (out := await comm.receive_output(timeout=TIMEOUT))["type"] != "websocket.close":
        got.append(out)
    assert out["code"] == 4409
    assert '"code": "banned"' in got[-1]["text"]
    gp = await database_sync_to_async(GamePlayer.objects.get)(game_id=game_id, seat=1)
    assert gp.left is True
    assert not await database_sync_to_async(sanctions.Sanction.objects.filter(user=other).exists)()
    assert await _seq(game_id) == 0
