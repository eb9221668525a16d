"""A room's seats: join and leave, the host's seat changes, sockets and spectators counted in and out,
a moderator's kick. Lock contract: :mod:`rooms.locking` (a socket's count also reads the user's standing,
locking the user's row, before the room).
"""


from django.db import transaction
from django.utils.translation import gettext

from accounts.ranks import rank_check
from accounts.sanctions import user_standing_now
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from games import services as games_services
from rooms import selectors
from rooms.locking import (
    CLOSE_KICKED,
    _changed,
    _empty_seat,
    _humans,
    _kicked,
    _lock,
    _next_host,
    _reason,
    _require_host,
    _room_for_moderation,
    logger,
    send_on_commit,
)
from rooms.models import (
    Room,
    RoomKick,
    RoomStatus,
    Seat,
    Spectator,
)
from rooms.signals import room_joined


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


@transaction.atomic
def room_kick(*, room_id: int, seat: int, by, reason: str) -> RoomKick:
    """Remove the player of seat ``seat`` (a moderator ``by``, with ``reason``). During a game the CPU
    plays the seat until the end (``games.services.game_player_kicked``: the player can no longer act,
    see it or take it back), then it is emptied; otherwise the seat is emptied at once. Either way the
    user may not join the room again (403 ``kicked``) nor open a socket in it (4403); the host passes on
    if it was them. After the commit the room gets the new ``room`` and the user's sockets in this room
    get ``{"type": "kicked", "seat"}`` and are closed with **4403**. One audit row.
    Raises 404 ``not_found`` (room, or no such seat), 400 ``invalid`` naming ``seat`` (no player there)
    or ``reason``, 409 ``room_closed`` (the room is closed), 403 ``own_account`` / ``rank_forbidden``
    (``accounts.ranks``: a moderator kicks players only)."""
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
    rank_check(actor=by, target=user)
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
    send_on_commit(room.group, message)
    return kick
