"""Room services: every change to a room goes through one of these (REST, WebSocket, the ranked queue).

Each public service runs in a transaction and locks the room row (``select_for_update``) before reading
its seats, so concurrent joins, leaves and starts are serialized per room. Each change increments
``room.version`` and, after the commit, sends the new ``room`` to the group ``room-<code>``. Errors are
:class:`config.errors.ApiError` with the API.md codes; checks run in the API.md order (404, 403, body,
409) and a refused call changes nothing.

Games are started and told about seats through :mod:`games.services` only.
"""

import logging
import secrets

from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from django.utils.translation import gettext

from accounts.sanctions import standing_error, user_check_standing, user_mute_status, user_standing_now
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from games import services as games_services
from games.engine.errors import InvalidRules
from games.engine.registry import get_engine
from games.events import group_send
from rooms import selectors
from rooms.chat_catalogue import EMOJI, PHRASE_IDS
from rooms.models import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DEFAULT_SEATS,
    SEATS_AUTO,
    ChatMessage,
    Room,
    RoomKick,
    RoomStatus,
    Seat,
    Spectator,
)
from rooms.serializers import ChatPostSerializer, message_data, resolved_rules, room_data
from rooms.signals import room_joined
from rooms.throttles import chat_throttle_check

logger = logging.getLogger(__name__)

RANKED_TURN_SECONDS = 60
_UNSET = object()


# ------------------------------------------------------------------------------------------- delivery
def _changed(room: Room, *fields: str, seats: list[Seat] | None = None) -> None:
    """Save ``room`` with ``version + 1`` and broadcast it after the commit. The ``room`` message is built
    now, in the transaction, from the room as saved and its seats (``seats``: the room's seat rows, users
    loaded, as saved; read here when not given; ``room.host`` taken from its seat, or read here when the
    host is not seated and not loaded), so nothing
    is queried after the commit and the message is the state this transaction commits. Call it after the
    transaction's last change to the room and its seats. The ``room`` shape built is kept on the instance
    as ``room.saved_data`` (its ``invite_url`` without a base): the API answers it (``rooms.apis``) rather
    than reading the room again.

    ``room`` must have been locked without its host joined: a statement that joined the host and waited
    for the lock would bring back the room as committed but the host row it read before the wait
    (PostgreSQL re-checks the locked row only), so a host change committed meanwhile would show as no
    host."""
    room.version += 1
    room.save(update_fields=["version", "last_activity", *fields])
    if seats is None:
        seats = selectors.room_seats(room)
    if room.host_id is not None and not Room.host.is_cached(room):  # a seated host: its row is in hand
        host = next((s.user for s in seats if s.user_id == room.host_id), None)
        if host is not None:
            room.host = host
    room.saved_data = room_data(room, seats=seats)
    message = {"type": "room.update", "payload": {"type": "room", "room": room.saved_data}}
    group = room.group
    transaction.on_commit(lambda: group_send(group, message))


# -------------------------------------------------------------------------------------------- helpers
def new_code() -> str:
    """A random room code: 6 characters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _check_rules(game_name: str, rules: dict, seats: int | str) -> int:
    """Validate ``rules`` for ``seats`` (a count, or ``"auto"``) with the engine and return the room's seat
    rows: ``seats`` itself, or for ``"auto"`` the most seats the rules allow. 400 ``invalid`` naming
    ``rules.<setting>``, ``rules`` or ``seats``."""
    engine = get_engine(game_name)
    try:
        if seats == SEATS_AUTO:
            engine.validate_rules(dict(rules))
            return engine.SEAT_RANGE(dict(rules))[1]
        engine.validate_rules(dict(rules), seats)
        return seats
    except InvalidRules as exc:
        field = exc.field if exc.field in ("seats", "rules") else f"rules.{exc.field}"
        raise invalid_field(field, gettext(exc.template).format(**exc.params)) from exc
    except (TypeError, ValueError) as exc:  # a value of an unexpected JSON type
        raise invalid_field("rules", "Invalid settings.") from exc


def _lock(code: str, user=None) -> tuple[Room, list[Seat]]:
    """The live room of ``code`` locked (its host read when needed) and its seats (users loaded, in index
    order); with ``user``, ``room.kicked`` says whether a moderator removed ``user`` from the room. A room
    still ``playing`` whose game has ended is finished first (:func:`_reconcile`). Raises 404 ``not_found``.

    Constant work, for timing: the room (with its game's status and the caller's kick) and the seats are
    read by two statements whose text and parameters depend on ``code`` and ``user`` only, run alike
    whether the code is malformed, unknown, closed or a room that will refuse the caller, and the 404 is
    raised after both. What still differs is the rows they return (none for an unknown code, the room and
    its seats otherwise); bench/README.md "Room codes" times the refusals side by side.
    """
    rooms = selectors.rooms_with_code(code)
    # The host is not joined here (read when needed, after the lock: see _changed).
    locked = rooms.select_for_update(of=("self",)).annotate(game_status=F("game__status"))
    if user is not None:
        locked = locked.annotate(kicked=Exists(RoomKick.objects.filter(room=OuterRef("pk"), user=user)))
    room = locked.first()
    seats = list(Seat.objects.filter(room__in=rooms).select_related("user").order_by("index"))
    if room is None:
        raise selectors.room_not_found()
    if _reconcile(room):
        seats = selectors.room_seats(room)
    return room, seats


def _require_host(room: Room, user) -> None:
    if room.host_id != user.pk:
        raise ApiError("not_host", "Only the host may do that.", 403)


def _humans(seats: list[Seat]) -> list[Seat]:
    return [s for s in seats if s.user_id is not None]


def _empty_seat(seat: Seat) -> None:
    seat.user = None
    seat.cpu = False
    seat.cpu_level = None
    seat.left = False
    seat.connections = 0


def _next_host(seats: list[Seat], after: int) -> Seat | None:
    """The next human still playing after seat ``after`` in seat order (wrapping), or ``None``."""
    n = len(seats)
    for step in range(1, n + 1):
        seat = seats[(after + step) % n]
        if seat.user_id is not None and not seat.left:
            return seat
    return None


def _reconcile(room: Room) -> bool:
    """A room still ``playing`` whose game has ended (its signal lost) is finished now (room locked, its
    game's status read with it as ``game_status`` by :func:`_lock`). True if it was."""
    if room.status == RoomStatus.PLAYING and room.game_status not in (None, "playing"):
        _finish(room)
        return True
    return False


def _finish(room: Room) -> None:
    """Move a locked ``playing`` room to ``finished``: players who left are unseated, the host passes on
    if it left, and with no human left the room closes."""
    seats = selectors.room_seats(room)
    host_seat = next((s for s in seats if s.user_id == room.host_id), None)
    for seat in seats:
        if seat.left:
            _empty_seat(seat)
            seat.save()
    if host_seat is None or host_seat.user_id is None:
        nxt = _next_host(seats, host_seat.index if host_seat else -1)
        room.host_id = nxt.user_id if nxt else None
    room.status = RoomStatus.CLOSED if not _humans(seats) else RoomStatus.FINISHED
    expanded = room.seats_auto and room.status == RoomStatus.FINISHED and _auto_expand(room)
    # The broadcast is built from the seats in hand, unless seats were added just now.
    _changed(room, "status", "host", "seat_count", seats=None if expanded else seats)


def _auto_expand(room: Room) -> bool:
    """A ``seats: "auto"`` room not playing offers the most seats its rules allow again (empty seats added
    after the occupied ones; never fewer than it has). True if seats were added."""
    engine = get_engine(room.game_name)
    try:
        most = engine.SEAT_RANGE(dict(room.rules))[1]
    except InvalidRules:  # stored rules the engine no longer takes: keep the seats as they are
        return False
    if most > room.seat_count:
        Seat.objects.bulk_create([Seat(room=room, index=i) for i in range(room.seat_count, most)])
        room.seat_count = most
        return True
    return False


# -------------------------------------------------------------------------------------------- create
@transaction.atomic
def room_create(*, user, game: str, seats: int | str = DEFAULT_SEATS, rules: dict | None = None,
                turn_seconds=_UNSET, ranked: bool = False, cpu_level: str = "normal",
                cpu_speed: str = "normal", spectators_allowed: bool = False) -> Room:
    """Create a room with ``user`` as host in seat 0 and ``seats`` empty seats after it.

    ``game``: ``chinchirorin``/``chinchon``; ``seats``: a count, or ``"auto"`` (the room offers the most
    seats the rules allow and a start seats the party: :func:`room_start`); ``rules``: settings (validated
    by the engine for ``seats``); ``turn_seconds``: None/30/60 (default None, 60 when ranked). Raises 403
    ``registration_required`` (guest creating a ranked room), 400 ``invalid`` naming ``seats`` or
    ``rules.<setting>``.
    """
    rules = dict(rules or {})
    if ranked and user.is_guest:
        raise ApiError("registration_required", gettext("Ranked rooms are for registered players."), 403)
    auto = seats == SEATS_AUTO
    seats = _check_rules(game, rules, seats)
    if turn_seconds is _UNSET:
        turn_seconds = RANKED_TURN_SECONDS if ranked else None
    for _ in range(20):
        try:
            with transaction.atomic():
                room = Room.objects.create(code=new_code(), host=user, game_name=game, seat_count=seats,
                                           seats_auto=auto, rules=rules, turn_seconds=turn_seconds, ranked=ranked,
                                           spectators_allowed=spectators_allowed,
                                           cpu_level=cpu_level, cpu_speed=cpu_speed)
            break
        except IntegrityError:  # the code is in use by a room not closed: draw another
            continue
    else:  # pragma: no cover - 31**6 codes
        raise ApiError("server_busy", "Could not allocate a room code; try again.", 503)
    Seat.objects.bulk_create([Seat(room=room, index=i, user=user if i == 0 else None) for i in range(seats)])
    return room


# -------------------------------------------------------------------------------------------- update
@transaction.atomic
def room_update(*, code: str, user, data: dict) -> Room:
    """Change the room's settings (``PATCH``): any of ``game, seats, rules, turn_seconds, ranked,
    cpu_level, cpu_speed, spectators_allowed``. ``rules`` replaces the stored settings; a new ``game``
    without ``rules`` resets them; for Chinchón a stored ``decks`` is dropped when ``seats`` changes (it
    follows the seats). ``spectators_allowed`` alone may change while playing too; turned off, every
    spectator socket closes (4403).

    Raises 404, 403 ``not_host``, 409 ``already_started`` (while playing, but for
    ``spectators_allowed`` alone), 400 ``invalid`` naming
    ``seats``/``rules.<setting>``/``ranked`` (CPU or guest seated), 409 ``seat_taken`` (fewer seats would
    drop an occupied one).
    """
    room, seats = _lock(code)
    _require_host(room, user)
    room.spectators_allowed = data.get("spectators_allowed", room.spectators_allowed)
    if room.status == RoomStatus.PLAYING:
        if set(data) <= {"spectators_allowed"}:
            _changed(room, "spectators_allowed")
            return room
        raise ApiError("already_started", "The game is on; change the room after it ends.", 409)
    game = data.get("game", room.game_name)
    auto = data["seats"] == SEATS_AUTO if "seats" in data else room.seats_auto
    seat_count = SEATS_AUTO if auto else data.get("seats", room.seat_count)
    if "rules" in data:
        rules = dict(data["rules"])
    elif game != room.game_name:
        rules = {}
    else:
        rules = dict(room.rules)
        if seat_count != room.seat_count:
            rules.pop("decks", None)
    seat_count = _check_rules(game, rules, seat_count)
    ranked = data.get("ranked", room.ranked)
    if ranked and any(s.cpu or (s.user is not None and s.user.is_guest) for s in seats):
        raise invalid_field("ranked", "Ranked rooms take registered players only: remove CPU and guest seats.")
    if any(not s.is_empty for s in seats[seat_count:]):
        raise ApiError("seat_taken", "An occupied seat would be dropped; empty it first.", 409)
    if "turn_seconds" in data:
        room.turn_seconds = data["turn_seconds"]
    elif ranked and not room.ranked and room.turn_seconds is None:
        room.turn_seconds = RANKED_TURN_SECONDS
    Seat.objects.filter(room=room, index__gte=seat_count).delete()
    Seat.objects.bulk_create([Seat(room=room, index=i) for i in range(room.seat_count, seat_count)])
    room.game_name, room.seat_count, room.rules, room.ranked = game, seat_count, rules, ranked
    room.seats_auto = auto
    room.cpu_level = data.get("cpu_level", room.cpu_level)
    room.cpu_speed = data.get("cpu_speed", room.cpu_speed)
    _changed(room, "game_name", "seat_count", "seats_auto", "rules", "ranked", "turn_seconds", "cpu_level",
             "cpu_speed", "spectators_allowed")
    return room


# ------------------------------------------------------------------------------------ join and leave
@transaction.atomic
def room_join(*, code: str, user) -> Room:
    """Take the lowest free seat (idempotent for a seated player). A player who left mid-game gets the
    seat back (``games.services.game_player_returned``). Sends ``room_joined`` after the commit.

    Raises 404, 403 ``kicked`` (a moderator removed the caller from this room), 403
    ``registration_required`` (guest, ranked room), 409 ``already_started`` (a game is on and the caller
    has no seat in it), 409 ``room_full``: each ``{code, detail}`` only (nothing naming the room), after the
    same two statements whatever the code (:func:`_lock`: a refusal's time tells no more than its code).
    """
    room, seats = _lock(code, user)
    if room.kicked:
        raise _kicked()
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is not None:
        if mine.left and room.status == RoomStatus.PLAYING:
            mine.left = False
            mine.save(update_fields=["left"])
            _player_returned(room, user)
            _changed(room)
        return room
    if room.ranked and user.is_guest:
        raise ApiError("registration_required", "Ranked rooms are for registered players.", 403)
    if room.status == RoomStatus.PLAYING:
        raise ApiError("already_started", "The game is on; join when it ends.", 409)
    free = next((s for s in seats if s.is_empty), None)
    if free is None:
        raise ApiError("room_full", "Every seat is taken.", 409)
    free.user = user
    free.save(update_fields=["user"])
    if room.host_id is None:
        room.host = user
    _changed(room, "host")
    host_id = room.host_id
    if host_id != user.pk:
        transaction.on_commit(lambda: room_joined.send(sender=Room, room_id=room.pk, user_id=user.pk,
                                                       host_id=host_id))
    return room


def _player_returned(room: Room, user) -> None:
    try:
        games_services.game_player_returned(game_id=room.game_id, user=user)
    except ApiError:  # the game ended meanwhile
        logger.info("player_returned ignored for game %s", room.game_id)


@transaction.atomic
def room_leave(*, code: str, user) -> Room:
    """Leave the room. Before a game (or after one) the seat is freed; during a game the player keeps the
    seat, which is played for (``games.services.game_player_left``; not a resignation) until the game
    ends. A leaving host passes the role to the next human in seat order. With no human seated and no
    game playing the room closes.

    Raises 404, 403 ``not_a_player``.
    """
    room, seats = _lock(code)
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is None:
        raise ApiError("not_a_player", "You have no seat in this room.", 403)
    if mine.left:
        return room
    if room.status == RoomStatus.PLAYING:
        mine.left = True
        mine.save(update_fields=["left"])
        try:
            games_services.game_player_left(game_id=room.game_id, user=user)
        except ApiError:
            logger.info("player_left ignored for game %s", room.game_id)
    else:
        _empty_seat(mine)
        mine.save()
    if room.host_id == user.pk:
        nxt = _next_host(seats, mine.index)
        if nxt is not None or room.status != RoomStatus.PLAYING:
            room.host_id = nxt.user_id if nxt else None
    if room.status != RoomStatus.PLAYING and not _humans(seats):
        room.status = RoomStatus.CLOSED
    _changed(room, "host", "status")
    return room


# ------------------------------------------------------------------------------------- seats (host)
@transaction.atomic
def room_set_cpu(*, code: str, user, seat: int, level: str | None = None) -> Room:
    """Put a CPU at ``level`` (default the room's ``cpu_level``) in seat ``seat`` (host only; a CPU
    already there changes level).

    Raises 404, 403 ``not_host``, 400 ``invalid`` naming ``seat`` (no such seat), 409 ``cpu_not_allowed``
    (ranked), ``already_started`` (playing), ``seat_taken`` (a human sits there).
    """
    room, seats = _lock(code)
    _require_host(room, user)
    if not 0 <= seat < len(seats):
        raise invalid_field("seat", gettext("Seats are 0..{last}.").format(last=len(seats) - 1))
    if room.ranked:
        raise ApiError("cpu_not_allowed", "Ranked rooms have no CPU seats.", 409)
    if room.status == RoomStatus.PLAYING:
        raise ApiError("already_started", "The game is on.", 409)
    target = seats[seat]
    if target.user_id is not None:
        raise ApiError("seat_taken", "A player sits there.", 409)
    target.cpu, target.cpu_level = True, level or room.cpu_level
    target.save(update_fields=["cpu", "cpu_level"])
    _changed(room)
    return room


@transaction.atomic
def room_clear_seat(*, code: str, user, index: int) -> Room:
    """Empty seat ``index`` (host only, not while playing): removes a CPU or a player.

    Raises 404 (also for an index the room has not), 403 ``not_host``, 409 ``already_started``,
    400 ``invalid`` naming ``seat`` for the host's own seat (the host leaves instead).
    """
    room, seats = _lock(code)
    _require_host(room, user)
    if not 0 <= index < len(seats):
        raise ApiError("not_found", "No such seat.", 404)
    if room.status == RoomStatus.PLAYING:
        raise ApiError("already_started", "The game is on.", 409)
    target = seats[index]
    if target.user_id == user.pk:
        raise invalid_field("seat", "That is your own seat; leave the room instead.")
    _empty_seat(target)
    target.save()
    _changed(room)
    return room


# ------------------------------------------------------------------------------------ start, rematch
def _auto_seat(room: Room, seats: list[Seat]) -> list[Seat]:
    """A ``seats: "auto"`` room at its start (locked): the humans and CPUs present, in seat order, move to
    seats 0..k-1 and the empty seats go; fewer than the rules' fewest seats (a lone player) get CPUs at
    the room's ``cpu_level`` up to that number (not in a ranked room: its start then fails with
    ``seats_not_filled``). Returns the seats the game is played by."""
    lo = get_engine(room.game_name).SEAT_RANGE(dict(room.rules))[0]
    taken = [s for s in seats if not s.is_empty]
    empty = [s for s in seats if s.is_empty]
    if room.ranked and len(taken) < lo:
        raise ApiError("seats_not_filled", gettext("Ranked games start with every seat taken."), 409)
    fill = max(0, lo - len(taken))  # the lowest empty seats, given CPUs by the start
    Seat.objects.filter(pk__in=[s.pk for s in empty[fill:]]).delete()
    playing = sorted(taken + empty[:fill], key=lambda s: s.index)
    for i, seat in enumerate(playing):
        if seat.index != i:
            seat.index = i
            seat.save(update_fields=["index"])
    room.seat_count = len(playing)
    room.save(update_fields=["seat_count"])
    return playing


def _start_game(room: Room, seats: list[Seat]) -> None:
    """Fill, check and start (room and seats locked)."""
    if room.seats_auto:
        seats = _auto_seat(room, seats)
    empty = [s for s in seats if s.is_empty]
    if room.ranked and empty:
        raise ApiError("seats_not_filled", "Ranked games start with every seat taken.", 409)
    if room.ranked and any(s.cpu for s in seats):
        raise ApiError("cpu_not_allowed", "Ranked rooms have no CPU seats.", 409)
    for seat in empty:
        seat.cpu, seat.cpu_level = True, room.cpu_level
        seat.save(update_fields=["cpu", "cpu_level"])
    game = games_services.game_start(
        game=room.game_name,
        rules=resolved_rules(room.game_name, room.rules, room.seat_count),
        seats=[{"user": s.user, "cpu": s.cpu, "cpu_level": s.cpu_level if s.cpu else None,
                "connected": not s.cpu and s.connections > 0} for s in seats],
        turn_seconds=room.turn_seconds, cpu_speed=room.cpu_speed, ranked=room.ranked, group=room.group,
    )
    room.game = game
    room.status = RoomStatus.PLAYING
    _changed(room, "game", "status", seats=seats)


@transaction.atomic
def room_start(*, code: str, user) -> Room:
    """Start a game (host): unranked, empty seats get CPUs at the room's ``cpu_level``.

    Raises 404, 403 ``not_host``, 409 ``already_started``, ``seats_not_filled`` (ranked with an empty
    seat). Answers the room, ``playing``, with ``game_id``.
    """
    room, seats = _lock(code)
    _require_host(room, user)
    if room.status == RoomStatus.PLAYING:
        raise ApiError("already_started", "The game is already on.", 409)
    _start_game(room, seats)
    return room


@transaction.atomic
def room_rematch(*, code: str, user) -> Room:
    """A new game in a ``finished`` room (host): same seats and rules, a new seed.

    Raises 404, 403 ``not_host``, 409 ``already_started`` (playing), 400 ``invalid`` (no game played
    yet: use start), and what :func:`room_start` raises.
    """
    room, seats = _lock(code)
    _require_host(room, user)
    if room.status == RoomStatus.PLAYING:
        raise ApiError("already_started", "The game is already on.", 409)
    if room.status != RoomStatus.FINISHED:
        raise ApiError("invalid", "No finished game to rematch; start one.", 400)
    _start_game(room, seats)
    return room


@transaction.atomic
def room_create_ranked_for_queue(*, game: str, seats: int, users: list, rules: dict | None = None) -> Room:
    """For the ranked queue: a ranked room of ``seats`` seats for ``users`` (registered, in seat order;
    the first hosts) with ``rules`` (default: the defaults; the queue passes a preset or style) and 60 s
    turns, its game started.

    Raises ``ValueError`` when ``len(users) != seats``, a user is a guest or appears twice, and
    ``ApiError`` 400 for a seat count the game does not allow.
    """
    if len(users) != seats or len({u.pk for u in users}) != seats or any(u.is_guest for u in users):
        raise ValueError("ranked queue rooms seat exactly `seats` distinct registered users")
    room = room_create(user=users[0], game=game, seats=seats, rules=rules, ranked=True,
                       turn_seconds=RANKED_TURN_SECONDS)
    for i, u in enumerate(users[1:], start=1):
        Seat.objects.filter(room=room, index=i).update(user=u)
    room, seat_rows = _lock(room.code)
    _start_game(room, seat_rows)
    return room


# ----------------------------------------------------------------------------------------- game end
def room_game_finishing(*, game_id: int) -> Room | None:
    """In the transaction that ends game ``game_id`` (the game locked: ``games.signals.game_finishing``):
    the room playing it becomes ``finished`` now, as :func:`room_game_ended` does, so that the room commits
    with the game and the answer to the last action follows both. The room is locked with ``SKIP LOCKED``:
    waiting here could deadlock with a transaction that holds the room and waits for the game (a socket
    opening), so a room another transaction holds is finished after the commit instead
    (:func:`room_game_ended`, which then waits its turn). ``None`` when no room plays it, or it was left
    for after the commit."""
    room = Room.objects.select_for_update(skip_locked=True).filter(game_id=game_id).first()
    if room is None:
        # Held by another transaction, or no room plays this game: settled after the commit, idempotently.
        transaction.on_commit(lambda: room_game_ended(game_id=game_id))
        return None
    if room.status != RoomStatus.PLAYING:
        return None
    _finish(room)
    return room


@transaction.atomic
def room_game_ended(*, game_id: int) -> Room | None:
    """The room whose current game ``game_id`` finished or was aborted becomes ``finished`` (closed with no
    human left); players who left during it are unseated. Idempotent; ``None`` when no room plays it."""
    room = Room.objects.select_for_update().filter(game_id=game_id, status=RoomStatus.PLAYING).first()
    if room is None:
        return None
    _finish(room)
    return room


# ------------------------------------------------------------------------------------------ sockets
def _still_in_good_standing(user) -> bool:
    """Whether ``user`` may play as its row is stored now, read before any room is locked and kept locked
    to the commit (a sanction locks the user's row, then the rooms it leaves: the same order). The socket
    checked the user it read at its handshake, then joined the user's group: a ban committed in between
    sent its close to no one, and counting the socket would put the banned player back in the seat. One
    committed before this read is seen here, and one still running is waited for, then seen; one that
    starts after waits for this count, then leaves the seat again and closes the socket, now in the group."""
    return user_standing_now(user.pk, lock=True) is None


@transaction.atomic
def room_socket_opened(*, room_id: int, user) -> Seat | None:
    """Count a socket of ``user`` in ``room_id``. Returns the user's seat, or ``None`` when the user has
    no seat (the socket is refused). The first socket of a seat marks it connected
    (``game_set_connected(True)``, also in the room's finished game: its view shows who is here); a player
    who had left mid-game is back in the seat, unless a moderator kicked them (refused: ``None``), and the
    user may play as stored now (``None`` too: see :func:`_still_in_good_standing`)."""
    if not _still_in_good_standing(user):
        return None
    room = Room.objects.select_for_update().filter(pk=room_id).exclude(status=RoomStatus.CLOSED).first()
    if room is None:
        return None
    seat = Seat.objects.select_for_update().filter(room=room, user=user).first()
    if seat is None:
        return None
    if seat.left and RoomKick.objects.filter(room=room, user=user).exists():
        return None
    playing = room.status == RoomStatus.PLAYING and room.game_id is not None
    if seat.left and playing:
        seat.left = False
        _player_returned(room, user)
    seat.connections += 1
    seat.save(update_fields=["connections", "left"])
    if seat.connections == 1:
        if room.game_id is not None:  # a finished game's view keeps ``connected`` current too
            _set_connected(room.game_id, seat.index, True, user.pk)
        _changed(room)
    return seat


@transaction.atomic
def room_socket_closed(*, room_id: int, user_id: int, seat: int) -> None:
    """Uncount a socket of ``user_id``, opened in seat ``seat`` (the user's seat now, should a ``seats:
    "auto"`` start have moved it); the last one marks the seat disconnected (``game_set_connected(False)``,
    in the room's playing or finished game; the games app applies the away grace period while it plays)."""
    room = Room.objects.select_for_update().filter(pk=room_id).first()
    if room is None:
        return
    row = Seat.objects.select_for_update().filter(room=room, user_id=user_id).first()
    if row is None or row.connections == 0:
        return
    row.connections -= 1
    row.save(update_fields=["connections"])
    if row.connections == 0:
        if room.game_id is not None and room.status != RoomStatus.CLOSED:
            _set_connected(room.game_id, row.index, False, user_id)
        if room.status != RoomStatus.CLOSED:
            _changed(room)


@transaction.atomic
def room_spectator_opened(*, room_id: int, user) -> bool:
    """Count a spectator socket of ``user`` (signed in, without a seat) in ``room_id``. Returns False when
    the room may not be watched now (closed, not :func:`rooms.selectors.room_watchable`, or the user holds
    a seat: a player's socket is a seat's). The first socket of a user adds it to the room's
    ``spectators`` (a ``room`` broadcast). False too for a user who may not play as stored now."""
    if not _still_in_good_standing(user):
        return False
    room = Room.objects.select_for_update().filter(pk=room_id).exclude(status=RoomStatus.CLOSED).first()
    if room is None or not selectors.room_watchable(room) or Seat.objects.filter(room=room, user=user).exists():
        return False
    row, _ = Spectator.objects.select_for_update().get_or_create(room=room, user=user)
    row.connections += 1
    row.save(update_fields=["connections"])
    if row.connections == 1:
        _changed(room)
    return True


@transaction.atomic
def room_spectator_closed(*, room_id: int, user_id: int) -> None:
    """Uncount a spectator socket; the user's last one removes it from the room's ``spectators``."""
    room = Room.objects.select_for_update().filter(pk=room_id).first()
    row = Spectator.objects.select_for_update().filter(room_id=room_id, user_id=user_id).first()
    if room is None or row is None:
        return
    row.connections -= 1
    if row.connections > 0:
        row.save(update_fields=["connections"])
        return
    row.delete()
    if room.status != RoomStatus.CLOSED:
        _changed(room)


def _set_connected(game_id: int, seat: int, connected: bool, user_id: int) -> None:
    try:
        games_services.game_set_connected(game_id=game_id, seat=seat, connected=connected, user_id=user_id)
    except ApiError:
        logger.info("set_connected ignored for game %s", game_id)


# --------------------------------------------------------------------------------------------- chat
def _chat_body(data) -> dict:
    """Exactly one of ``text`` (the text policy: trimmed, 1–200 grapheme clusters), ``emoji`` (of the
    catalogue), ``phrase`` (an id)."""
    if not isinstance(data, dict):
        raise ApiError("invalid", "A chat message is an object.", 400)
    ser = ChatPostSerializer(data=data)
    ser.is_valid(raise_exception=True)
    given = {k: v for k, v in ser.validated_data.items() if k in ("text", "emoji", "phrase")}
    if len(given) != 1:
        raise ApiError("invalid", "Send exactly one of text, emoji, phrase.", 400,
                       fields={"non_field_errors": ["Send exactly one of text, emoji, phrase."]})
    key, value = next(iter(given.items()))
    if key == "emoji" and value not in EMOJI:
        raise invalid_field("emoji", "Not in the catalogue.")
    if key == "phrase" and value not in PHRASE_IDS:
        raise invalid_field("phrase", "Not in the catalogue.")
    return {key: value}


def _chat_seat(room: Room, user) -> Seat:
    """The caller's seat for chat; raises 403 ``banned``/``suspended``, ``not_a_player`` (no seat, or
    left)."""
    user_check_standing(user)
    seat = Seat.objects.filter(room=room, user=user, left=False).first()
    if seat is None:
        raise ApiError("not_a_player", "Only players seated in the room may chat.", 403)
    return seat


def chat_list(*, code: str, user, before: int | None = None) -> list[ChatMessage]:
    """The room's last 50 messages (before message id ``before``), oldest first; seated players only.
    Raises 404, 403 ``banned``/``not_a_player``."""
    room = selectors.room_get(code=code)
    _chat_seat(room, user)
    return selectors.chat_messages(room=room, before=before)


@transaction.atomic
def chat_post(*, code: str, user, data) -> ChatMessage:
    """Post a chat message (REST and WebSocket alike) and send it to ``room-<code>`` after the commit.

    Raises 404, 403 ``banned``/``suspended``/``not_a_player``/``muted`` (with ``until``), 400 ``invalid`` (not exactly one field, text
    not 1–200 after trimming, emoji or phrase not in the catalogue), 429 ``throttled`` (DRF ``Throttled``;
    5 per 10 s per user by default).
    """
    room = selectors.room_get(code=code)
    seat = _chat_seat(room, user)
    muted = user_mute_status(user)
    if muted is not None:
        raise standing_error(muted)
    body = _chat_body(data)
    chat_throttle_check(user)
    message = ChatMessage.objects.create(room=room, user=user, seat=seat.index, **body)
    Room.objects.filter(pk=room.pk).update(last_activity=timezone.now())
    payload = {"type": "chat", "message": message_data(message, selectors.chat_names(room=room, messages=[message]))}
    transaction.on_commit(lambda: group_send(room.group, {"type": "room.chat", "payload": payload}))
    return message


# ------------------------------------------------------------------------------------- moderation
CLOSE_ROOM_CLOSED = 4404  # the socket close code of a room closed by a moderator
CLOSE_KICKED = 4403  # the socket close code of a player kicked by a moderator (not seated any more)


def _kicked() -> ApiError:
    return ApiError("kicked", "A moderator removed you from this room.", 403)


def _room_for_moderation(room_id: int) -> Room:
    room = Room.objects.select_for_update().filter(pk=room_id).first()
    if room is None:
        raise ApiError("not_found", "No such room.", 404)
    return room


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise invalid_field("reason", "Give a reason.")
    return reason[:200]


@transaction.atomic
def chat_message_hide(*, message_id: int, by, reason: str) -> ChatMessage:
    """Hide a chat message (a moderator ``by``, with ``reason``): it leaves the room's history
    (``GET .../messages``) and, after the commit, every socket of the room gets ``{"type": "chat_hidden",
    "id"}`` so clients remove it. The row stays for the record; one audit row. Idempotent (hiding a hidden
    message changes nothing). Raises 404 ``not_found``, 400 ``invalid`` naming ``reason`` (empty)."""
    reason = _reason(reason)
    message = ChatMessage.objects.select_for_update(of=("self",)).select_related("room").filter(
        pk=message_id).first()
    if message is None:
        raise ApiError("not_found", "No such message.", 404)
    if message.hidden_at is not None:
        return message
    message.hidden_at, message.hidden_by, message.hidden_reason = timezone.now(), by, reason
    message.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
    audit_record(actor=by, action="chat_hide", target=message, reason=reason,
                 changes={"hidden_at": [None, message.hidden_at]}, text=message.text or message.emoji
                 or message.phrase)
    room = message.room
    if room.status != RoomStatus.CLOSED:
        payload = {"type": "chat_hidden", "id": message.pk}
        transaction.on_commit(lambda: group_send(room.group, {"type": "room.chat_hidden", "payload": payload}))
    return message


@transaction.atomic
def room_close(*, room_id: int, by, reason: str) -> Room:
    """Close a room (a moderator ``by``, with ``reason``): a game playing in it is aborted, unrated
    (``games.services.game_abort``, reason ``room_closed``); the room becomes ``closed`` (its code answers
    404 from now on). After the commit its sockets get the ``room`` message (status ``closed``), then
    ``{"type": "room_closed", "detail"}`` and are closed with **4404**. One audit row. Idempotent.
    Raises 404 ``not_found``, 400 ``invalid`` naming ``reason``."""
    reason = _reason(reason)
    room = _room_for_moderation(room_id)
    if room.status == RoomStatus.CLOSED:
        return room
    before = room.status
    aborted = False
    room.status = RoomStatus.CLOSED
    if before == RoomStatus.PLAYING and room.game_id is not None:
        # Closed first: the abort's room_game_finishing (this transaction holds the room) then leaves it be,
        # rather than finishing it and sending a ``finished`` room message ahead of the ``closed`` one.
        room.save(update_fields=["status"])
        aborted = games_services.game_abort(game_id=room.game_id, reason="room_closed")
    _changed(room, "status")
    audit_record(actor=by, action="room_close", target=room, reason=reason,
                 changes={"status": [before, RoomStatus.CLOSED]}, game_aborted=room.game_id if aborted else None)
    message = {"type": "room.closed", "close_code": CLOSE_ROOM_CLOSED,
               "payload": {"type": "room_closed", "detail": "A moderator closed this room."}}
    group = room.group
    transaction.on_commit(lambda: group_send(group, message))
    return room


@transaction.atomic
def room_kick(*, room_id: int, seat: int, by, reason: str) -> RoomKick:
    """Remove the player of seat ``seat`` (a moderator ``by``, with ``reason``). During a game the CPU
    plays the seat until the end (``games.services.game_player_kicked``: the player can no longer act,
    see it or take it back), then it is emptied; otherwise the seat is emptied at once. Either way the
    user may not join the room again (403 ``kicked``) nor open a socket in it (4403); the host passes on
    if it was them. After the commit the room gets the new ``room`` and the user's sockets in this room
    get ``{"type": "kicked", "seat"}`` and are closed with **4403**. One audit row.
    Raises 404 ``not_found`` (room, or no such seat), 400 ``invalid`` naming ``seat`` (no player there)
    or ``reason``, 409 ``room_closed`` (the room is closed)."""
    reason = _reason(reason)
    room = _room_for_moderation(room_id)
    if room.status == RoomStatus.CLOSED:
        raise ApiError("room_closed", "The room is closed.", 409)
    seats = selectors.room_seats(room)
    if not 0 <= seat < len(seats):
        raise ApiError("not_found", "No such seat.", 404)
    target = seats[seat]
    user = target.user
    if user is None:
        raise invalid_field("seat", "No player sits there.")
    kick, _ = RoomKick.objects.get_or_create(room=room, user=user,
                                             defaults={"seat": seat, "by": by, "reason": reason})
    if room.status == RoomStatus.PLAYING and room.game_id is not None:
        target.left = True
        target.save(update_fields=["left"])
        games_services.game_player_kicked(game_id=room.game_id, user=user)
    else:
        _empty_seat(target)
        target.save()
        if not _humans(seats):
            room.status = RoomStatus.CLOSED
    if room.host_id == user.pk:
        nxt = _next_host(seats, seat)
        room.host_id = nxt.user_id if nxt else None
    _changed(room, "host", "status")
    audit_record(actor=by, action="seat_kick", target=room, reason=reason, seat=seat, user_id=user.pk,
                 username=user.username)
    message = {"type": "room.kick", "user_id": user.pk, "close_code": CLOSE_KICKED,
               "payload": {"type": "kicked", "seat": seat}}
    group = room.group
    transaction.on_commit(lambda: group_send(group, message))
    return kick


# ---------------------------------------------------------------------------------------- idle rooms
def rooms_close_idle(*, now=None) -> int:
    """Close every room not playing and idle for 24 h (their codes may then be reused). Returns how many."""
    return Room.objects.exclude(status=RoomStatus.CLOSED).filter(selectors.idle_filter(now)).update(
        status=RoomStatus.CLOSED)
