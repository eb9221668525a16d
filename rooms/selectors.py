"""Read-only queries of rooms and chat."""

from datetime import timedelta

from django.db import connection
from django.db.models import Prefetch, Q, QuerySet, Subquery
from django.utils import timezone

from accounts.models import ApiToken
from accounts.selectors import token_key_valid
from accounts.tokens import token_digest, token_seen
from config.compiled import CompiledQuery, Param
from config.errors import ApiError
from config.textpolicy import names_told_apart
from rooms.models import CODE_ALPHABET, CODE_LENGTH, ChatMessage, Room, RoomStatus, Seat, Spectator

CHAT_PAGE = 50
IDLE_CLOSE_AFTER = timedelta(hours=24)


_KEY, _ROOM = Param("key", 1), Param("room_id", 2)
# A socket's action reads its token (with the user) and its room's current game in one statement; on
# PostgreSQL the SQL is compiled once per process (config.compiled).
def _socket_actor(key: str, room_id: int) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(digest=key).select_related("user").annotate(
        room_game_id=Subquery(Room.objects.filter(pk=room_id).values("game_id")[:1]))


_SOCKET_ACTOR_READ = CompiledQuery(lambda: _socket_actor(str(_KEY), _ROOM), [_KEY, _ROOM])


def socket_actor_get(*, key: str, room_id: int) -> tuple[ApiToken | None, int | None]:
    """``(token, game id)`` for an action sent on a token socket of the room ``room_id``: the token ``key``
    with its user loaded (``None`` for a key no token has, as :func:`accounts.selectors.token_get`), and the
    id of the game the room holds now (``None`` with no game, or when the token is unknown), read in ONE
    query (the socket action's budget: this and ``games.services.game_apply_action``'s four)."""
    if not token_key_valid(key):
        return None, None
    digest = token_digest(key)
    if connection.vendor == "postgresql":
        rows = _SOCKET_ACTOR_READ.run(key=digest, room_id=room_id)
    else:
        rows = list(_socket_actor(digest, room_id)[:1])
    token = token_seen(rows[0]) if rows else None
    return (token, token.room_game_id) if token is not None else (None, None)


def idle_filter(now=None) -> Q:
    """Rooms idle for 24 h: no game playing and no change (or chat) since. They count as closed (404)
    until ``rooms_close_idle`` marks them so."""
    now = now or timezone.now()
    return ~Q(status=RoomStatus.PLAYING) & Q(last_activity__lt=now - IDLE_CLOSE_AFTER)


def live_rooms() -> QuerySet[Room]:
    """Rooms neither closed nor idle for 24 h."""
    return Room.objects.exclude(status=RoomStatus.CLOSED).exclude(idle_filter())


def normalize_code(code: str) -> str | None:
    """The code in upper case, or ``None`` when it cannot be a room code (length or alphabet)."""
    if not isinstance(code, str) or len(code) != CODE_LENGTH:
        return None
    code = code.upper()
    return code if all(ch in CODE_ALPHABET for ch in code) else None


def rooms_with_seats(rooms: QuerySet[Room] | None = None) -> QuerySet[Room]:
    """``rooms`` (default all) with host, seats and seated users loaded (what the ``room`` shape reads; its
    ``spectators`` are read only for a room that lets users watch: :func:`room_spectators`)."""
    return (Room.objects.all() if rooms is None else rooms).select_related("host").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
    )


def room_spectators(room: Room) -> list[Spectator]:
    """Who watches ``room`` now (users loaded, first come first); none, without a query, when the room does
    not let users watch."""
    if not room.spectators_allowed:
        return []
    return list(Spectator.objects.filter(room=room).select_related("user").order_by("since", "id"))


def room_watchable(room: Room) -> bool:
    """Whether users without a seat may watch ``room`` now: the host allows it and no ranked game is in
    progress."""
    return room.spectators_allowed and not (room.ranked and room.status == RoomStatus.PLAYING)


def game_watchable(*, game_id: int) -> bool:
    """Whether users without a seat may watch game ``game_id``: it is the current game of a room (not
    closed) that is :func:`room_watchable`. One query."""
    room = live_rooms().filter(game_id=game_id).only("spectators_allowed", "ranked", "status").first()
    return room is not None and room_watchable(room)


NO_CODE = ""  # what a code that cannot be one is looked up as: no room has it (see rooms_with_code)


def rooms_with_code(code: str) -> QuerySet[Room]:
    """The live rooms (:func:`live_rooms`) with ``code`` in any letter case: one at most.

    A code that cannot be one (length, alphabet) is looked up too, as :data:`NO_CODE`: the same statement
    with another parameter. So every refusal of a code does the same database work, and the time of an
    answer does not tell a malformed code from an unknown, closed or existing one (README "Security").
    """
    return live_rooms().filter(code=normalize_code(code) or NO_CODE)


def room_not_found() -> ApiError:
    """The answer to a code that names no live room: 404 ``not_found``, nothing about the code."""
    return ApiError("not_found", "No room with that code.", 404)


def room_get(*, code: str) -> Room:
    """The room not closed with ``code`` (any letter case), host loaded: one statement, the same one for
    any code (:func:`rooms_with_code`). Raises ``ApiError`` 404 ``not_found`` for an unknown, malformed or
    closed code."""
    room = rooms_with_code(code).select_related("host").first()
    if room is None:
        raise room_not_found()
    return room


def room_seats(room: Room) -> list[Seat]:
    """The room's seats in index order, users loaded. (Seats change only under the room's row lock.)"""
    return list(Seat.objects.filter(room=room).select_related("user").order_by("index"))


def rooms_for_user(user) -> QuerySet[Room]:
    """The rooms not closed where ``user`` holds a seat, newest first (``GET /api/me/rooms``); not those a
    moderator kicked the user from (the seat is only played for until the game ends)."""
    ids = Seat.objects.filter(user=user).exclude(room__kicks__user=user).values("room_id")
    return rooms_with_seats(live_rooms().filter(pk__in=ids)).order_by("-id")


def chat_messages(*, room: Room, before: int | None = None, limit: int = CHAT_PAGE) -> list[ChatMessage]:
    """The last ``limit`` messages of ``room`` (with id < ``before`` when given), oldest first; messages a
    moderator hid are left out."""
    qs = ChatMessage.objects.filter(room=room, hidden_at__isnull=True).select_related("user")
    if before is not None:
        qs = qs.filter(id__lt=before)
    return list(reversed(qs.order_by("-id")[:limit]))


def chat_names(*, room: Room, messages: list[ChatMessage]) -> dict[int, str]:
    """``{user_id: name as shown}`` for the authors of ``messages`` and the players seated in ``room``:
    names that look alike (TR39 skeleton) get the suffix `` #<seat + 1>`` (a seated player's seat, else
    the seat the message was sent from). One query (the seats)."""
    names, seats = {}, {}
    for message in messages:
        names[message.user_id], seats[message.user_id] = message.user.display_name, message.seat
    for seat in Seat.objects.filter(room=room, user__isnull=False).select_related("user"):
        names[seat.user_id], seats[seat.user_id] = seat.user.display_name, seat.index
    return names_told_apart(names, seats)
