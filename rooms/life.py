"""A room's life: create and change it, start and rematch its game (and the ranked queue's rooms), follow
its game's end, a moderator closing it, idle rooms closing. Lock contract: :mod:`rooms.locking`.
"""


from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from config.audit import audit_record
from config.errors import ApiError, invalid_field
from games import services as games_services
from games.engine.registry import get_engine
from rooms import selectors
from rooms.locking import (
    _UNSET,
    CLOSE_ROOM_CLOSED,
    RANKED_TURN_SECONDS,
    _changed,
    _check_rules,
    _finish,
    _lock,
    _reason,
    _require_host,
    _room_for_moderation,
    new_code,
    send_on_commit,
)
from rooms.models import (
    DEFAULT_SEATS,
    SEATS_AUTO,
    Room,
    RoomStatus,
    Seat,
)
from rooms.serializers import resolved_rules


@transaction.atomic
def room_create(*, user, game: str, seats: int | str = DEFAULT_SEATS, rules: dict | None = None,
                turn_seconds=_UNSET, ranked: bool = False, cpu_level: str = "normal",
                cpu_speed: str = "normal", spectators_allowed: bool = False,
                voice_allowed: bool = True) -> Room:
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
                                           spectators_allowed=spectators_allowed, voice_allowed=voice_allowed,
                                           cpu_level=cpu_level, cpu_speed=cpu_speed)
            break
        except IntegrityError:  # the code is in use by a room not closed: draw another
            continue
    else:  # pragma: no cover - 31**6 codes
        raise ApiError("server_busy", "Could not allocate a room code; try again.", 503)
    Seat.objects.bulk_create([Seat(room=room, index=i, user=user if i == 0 else None) for i in range(seats)])
    return room


@transaction.atomic
def room_update(*, code: str, user, data: dict) -> Room:
    """Change the room's settings (``PATCH``): any of ``game, seats, rules, turn_seconds, ranked,
    cpu_level, cpu_speed, spectators_allowed, voice_allowed``. ``rules`` replaces the stored settings; a new ``game``
    without ``rules`` resets them; for Chinchón a stored ``decks`` is dropped when ``seats`` changes (it
    follows the seats). ``spectators_allowed`` alone may change while playing too; turned off, every
    spectator socket closes (4403). ``voice_allowed`` too (turned off, everyone in voice leaves it).

    Raises 404, 403 ``not_host``, 409 ``already_started`` (while playing, but for
    ``spectators_allowed`` and ``voice_allowed`` alone), 400 ``invalid`` naming
    ``seats``/``rules.<setting>``/``ranked`` (CPU or guest seated), 409 ``seat_taken`` (fewer seats would
    drop an occupied one).
    """
    room, seats = _lock(code)
    _require_host(room, user)
    room.spectators_allowed = data.get("spectators_allowed", room.spectators_allowed)
    room.voice_allowed = data.get("voice_allowed", room.voice_allowed)
    if room.status == RoomStatus.PLAYING:
        if set(data) <= {"spectators_allowed", "voice_allowed"}:
            _changed(room, "spectators_allowed", "voice_allowed")
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
             "cpu_speed", "spectators_allowed", "voice_allowed")
    return room


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
    send_on_commit(room.group, message)
    return room


def rooms_close_idle(*, now=None) -> int:
    """Close every room not playing and idle for 24 h (their codes may then be reused). Returns how many."""
    return Room.objects.exclude(status=RoomStatus.CLOSED).filter(selectors.idle_filter(now)).update(
        status=RoomStatus.CLOSED)
