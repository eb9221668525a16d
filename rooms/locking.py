"""The room lock and what every change of a room goes through: the rooms write path's shared part.

**Lock contract.** Each public service (:mod:`rooms.life`, :mod:`rooms.seats`, :mod:`rooms.chat`; re-exported
by :mod:`rooms.services`) runs in a transaction and locks the room row (``select_for_update``: :func:`_lock`
by code, or by id for the sockets and moderators) before reading its seats, so concurrent joins, leaves and
starts are serialized per room. A room's game is locked after the room (never the other way round, but in
``games.signals.game_finishing``, which skips a room held elsewhere). Each change increments
``room.version`` (:func:`_changed`) and, after the commit, sends the new ``room`` to the group
``room-<code>``. Errors are :class:`config.errors.ApiError` with the API.md codes; checks run in the API.md
order (404, 403, body, 409) and a refused call changes nothing. Games are started and told about seats
through :mod:`games.services` only. Log lines go to the ``rooms.services`` logger.
"""

import logging
import secrets

from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils.translation import gettext

from config.errors import ApiError, invalid_field
from config.groups import group_send
from games.engine.errors import InvalidRules
from games.engine.registry import get_engine
from rooms import selectors
from rooms.models import (
    CODE_ALPHABET,
    CODE_LENGTH,
    SEATS_AUTO,
    Room,
    RoomKick,
    RoomStatus,
    Seat,
)
from rooms.serializers import room_data

logger = logging.getLogger("rooms.services")  # one logger for the rooms write path

RANKED_TURN_SECONDS = 60
_UNSET = object()
CLOSE_ROOM_CLOSED = 4404  # the socket close code of a room closed by a moderator
CLOSE_KICKED = 4403  # the socket close code of a player kicked by a moderator (not seated any more)


def send_on_commit(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` after the commit of the current transaction (nothing on a rollback)."""
    transaction.on_commit(lambda: group_send(group, message))


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
    send_on_commit(room.group, message)


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
