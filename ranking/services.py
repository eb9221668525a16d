"""Ranking services (HackSoftware style: ``<entity>_<action>``): friends, the ranked queue among friends,
rating a finished game, and recording its statistics, XP and achievements.

Errors are :class:`config.errors.ApiError` in the API.md shape. Live messages go out after commit.

**Decisions**
- Friends are allowed for every user, guests included (a guest who registers keeps its id and so its
  friends); ranked play (the queue, ranked rooms) requires registration.
- Friends come from invitations (joining a room by its code makes host and joiner friends: the
  ``rooms.signals.room_joined`` receiver) and from accepted friend requests.
- The queue matches the caller with N-1 *waiting friends of the caller* (they need not be friends of
  each other), closest rating to the caller's first, then longest waiting, then lowest id. Matching
  happens when someone joins the queue; entries wait :data:`QUEUE_TTL` (10 minutes) at most.
"""

from __future__ import annotations

import logging
import secrets
import zlib
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext

from accounts.sanctions import user_group
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from games.engine.errors import InvalidRules
from games.engine.registry import get_engine
from games.events import group_send
from games.models import Game, GameAction, GamePlayer
from ranking import achievements, elo, gamelog
from ranking.eligibility import MIN_DECISIONS, game_credits
from ranking.models import (
    START_RATING,
    AchievementAward,
    FriendCode,
    FriendRequest,
    Friendship,
    GameRecord,
    QueueEntry,
    Rating,
    RatingChange,
    XpGrant,
)
from ranking.selectors import GAMES, friend_ids
from rooms import services as rooms_services
from rooms.models import CODE_ALPHABET, RoomStatus, Seat

logger = logging.getLogger(__name__)

QUEUE_TTL = timedelta(seconds=getattr(settings, "RANKING_QUEUE_TTL_SECONDS", 600))
"""How long a queue entry waits for a match before it expires (default 10 minutes)."""

FRIEND_CODE_LENGTH = 8

QUEUE_TURN_SECONDS = 60
"""Turn length of rooms made by the queue (API.md: default rules, 60 s turns)."""


# ------------------------------------------------------------------------------------------- live delivery
def send_on_commit(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` once the current transaction commits (at once outside a transaction);
    a channel-layer failure is logged, never raised (the database is the truth: clients resync)."""
    transaction.on_commit(lambda: group_send(group, message))


# -------------------------------------------------------------------------------------------------- friends
def _lock_users(*user_ids: int) -> list:
    """Lock the users' rows in id order (serialises friend changes between the same two users)."""
    return list(get_user_model().objects.select_for_update().filter(id__in=set(user_ids)).order_by("id"))


@transaction.atomic
def friendship_make(*, user_a_id: int, user_b_id: int, source: str) -> bool:
    """Make two users friends (idempotent) and drop any pending request between them.

    ``source``: ``Friendship.Source`` value. Returns True when the friendship is new. Same user twice:
    nothing happens (False).
    """
    if user_a_id == user_b_id:
        return False
    low, high = sorted((user_a_id, user_b_id))
    _lock_users(low, high)
    FriendRequest.objects.filter(
        Q(from_user_id=low, to_user_id=high) | Q(from_user_id=high, to_user_id=low)
    ).delete()
    _, created = Friendship.objects.get_or_create(user_low_id=low, user_high_id=high,
                                                  defaults={"source": source})
    return created


def _target_user(user_id: int):
    target = get_user_model().objects.filter(id=user_id, is_active=True).first()
    if target is None:
        raise ApiError("not_found", "No such user.", 404)
    return target


@transaction.atomic
def friend_request_send(*, user, to_user_id: int) -> tuple[str, bool]:
    """``POST /api/friends``: ask ``to_user_id`` to be a friend, or accept its request to the caller.

    Returns ``(status, changed)``: ``("friends", True)`` when a request the other way was accepted,
    ``("friends", False)`` when already friends, ``("requested", True|False)`` for a new or an already
    pending request. Raises 400 ``invalid`` (``user_id``: oneself), 404 ``not_found`` (no such active user).
    """
    if to_user_id == user.id:
        raise ApiError("invalid", "user_id: you cannot befriend yourself.", 400,
                       fields={"user_id": ["You cannot befriend yourself."]})
    target = _target_user(to_user_id)
    low, high = sorted((user.id, target.id))
    _lock_users(low, high)
    if Friendship.objects.filter(user_low_id=low, user_high_id=high).exists():
        return "friends", False
    if FriendRequest.objects.filter(from_user_id=target.id, to_user_id=user.id).exists():
        friendship_make(user_a_id=user.id, user_b_id=target.id, source=Friendship.Source.REQUEST)
        return "friends", True
    _, created = FriendRequest.objects.get_or_create(from_user_id=user.id, to_user_id=target.id)
    return "requested", created


@transaction.atomic
def friend_remove(*, user, other_user_id: int) -> bool:
    """``DELETE /api/friends``: remove a friend, cancel the caller's request or decline the other's.

    Idempotent; returns True when anything was deleted.
    """
    low, high = sorted((user.id, other_user_id))
    n1, _ = Friendship.objects.filter(user_low_id=low, user_high_id=high).delete()
    n2, _ = FriendRequest.objects.filter(
        Q(from_user_id=user.id, to_user_id=other_user_id) | Q(from_user_id=other_user_id, to_user_id=user.id)
    ).delete()
    return bool(n1 or n2)


def friend_code_get(*, user, renew: bool = False):
    """The caller's :class:`~ranking.models.FriendCode`, made on first use; ``renew``: a new code (the old
    one stops working). Codes are 8 characters of the room-code alphabet (no look-alikes)."""
    def fresh() -> str:
        return "".join(secrets.choice(CODE_ALPHABET) for _ in range(FRIEND_CODE_LENGTH))

    row = FriendCode.objects.filter(user=user).first()
    if row is not None and not renew:
        return row
    for _ in range(10):
        try:
            with transaction.atomic():
                if row is None:
                    return FriendCode.objects.create(user=user, code=fresh())
                row.code = fresh()
                row.save(update_fields=["code", "created_at"])
                return row
        except IntegrityError:  # a code in use (or a concurrent first use): try again
            row = FriendCode.objects.filter(user=user).first()
            if row is not None and not renew:
                return row
    raise ApiError("server_busy", "Could not allocate a friend code; try again.", 503)  # pragma: no cover


@transaction.atomic
def friend_add_by_code(*, user, code: str):
    """``POST /api/friends {code}``: become friends at once with the holder of friend code ``code`` (any
    case; source ``invite``: the code was shared to be used). Returns ``(other user, changed)``. Raises 404
    ``not_found`` (no such code, or its holder is not active), 400 ``invalid`` naming ``code`` (one's own).
    """
    row = FriendCode.objects.filter(code=str(code).upper(), user__is_active=True).select_related("user").first()
    if row is None:
        raise ApiError("not_found", gettext("No such friend code."), 404)
    if row.user_id == user.id:
        raise invalid_field("code", gettext("That is your own friend code."))
    changed = friendship_make(user_a_id=user.id, user_b_id=row.user_id, source=Friendship.Source.INVITE)
    return row.user, changed


def on_room_joined(*, room_id=None, user_id=None, host_id=None) -> None:
    """``rooms.signals.room_joined`` handler: joining a room by its code makes joiner and host friends.

    Never raises (a failure is logged): the join has already committed.
    """
    if not user_id or not host_id or user_id == host_id:
        return
    try:
        friendship_make(user_a_id=int(user_id), user_b_id=int(host_id), source=Friendship.Source.INVITE)
    except Exception:  # noqa: BLE001 - a signal receiver must not break the rooms flow
        logger.exception("friendship from room %s join failed", room_id)


# ---------------------------------------------------------------------------------------------------- queue
def _queue_lock(game: str) -> None:
    """Serialise queue matching of one game: a transaction-scoped advisory lock on PostgreSQL (two
    friends joining at once would otherwise both miss each other). SQLite serialises writers itself."""
    if connection.vendor == "postgresql":
        key = zlib.crc32(f"ranking.queue:{game}".encode())
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def _ratings(game: str, user_ids) -> dict[int, int]:
    out = {uid: START_RATING for uid in user_ids}
    for uid, rating in Rating.objects.filter(game=game, user_id__in=list(user_ids)).values_list("user_id", "rating"):
        out[uid] = rating
    return out


def queue_rules(*, game: str, preset: str = "", style: str = "") -> dict:
    """The room rules a queue entry asks for: ``{"preset": ...}`` (chinchón) or ``{"style": ...}``
    (chinchirorin), ``{}`` for the defaults. A preset whose re-entry costs coins (``wild_ace``) gets
    ``reentry_fee: 0``: the queue seats strangers, and coins move between friends only."""
    rules = {k: v for k, v in (("preset", preset), ("style", style)) if v}
    try:
        fee = preset and getattr(get_engine(game).validate_rules(rules), "reentry_fee", None)
    except InvalidRules:  # queue_join refuses these rules itself
        return rules
    if fee:
        rules["reentry_fee"] = 0
    return rules


@transaction.atomic
def queue_join(*, user, game: str, seats: int, preset: str = "", style: str = "") -> QueueEntry:
    """``POST /api/queue``: put the caller in the ranked queue for ``game`` with ``seats`` seats and the
    rules asked for: ``preset`` (chinchón: standard, traditional, wild_ace) or ``style`` (chinchirorin:
    streamer, common); "" takes the default.

    Replaces any earlier entry of the caller, except a match still live: while the room it matched the
    caller into is open or playing with the caller seated there, a join changes nothing and returns that
    matched entry (repeated or concurrent joins made a new ranked room each). If at least ``seats - 1``
    friends of the caller are waiting for the same game, seat count, preset and style, the closest in
    rating to the caller (then the longest waiting) are matched with it at once: a ranked room with those
    rules and 60 s turns is made by
    ``rooms.services.room_create_ranked_for_queue``, every entry becomes ``matched`` with the room code,
    and each player's sockets get (after commit) ``{"type": "queue.matched", "payload": {"type": "queue",
    "status": "matched", "room": code}}`` on the group :func:`user_group`. Raises 403
    ``registration_required`` for a guest; 400 ``invalid`` naming ``game``, ``seats``, ``preset`` or
    ``style`` (checked by the engine against the game's rules and seat range; ``preset`` only for
    chinchón, ``style`` only for chinchirorin).
    """
    if getattr(user, "is_guest", False):
        raise ApiError("registration_required", gettext("Ranked play needs a registered account."), 403)
    if game not in GAMES:
        raise invalid_field("game", gettext("Must be one of {choices}.").format(choices=", ".join(GAMES)))
    for name, value, owner in (("preset", preset, "chinchon"), ("style", style, "chinchirorin")):
        if value and game != owner:
            raise invalid_field(name, gettext("Only for {game}.").format(game=owner))
    rules = queue_rules(game=game, preset=preset, style=style)
    try:
        get_engine(game).validate_rules(rules, seats)
    except InvalidRules as exc:
        raise invalid_field(exc.field, gettext(exc.template).format(**exc.params)) from exc
    _queue_lock(game)
    live = _live_match(user)
    if live is not None:
        return live
    now = timezone.now()
    entry, _ = QueueEntry.objects.update_or_create(
        user=user,
        defaults={"game": game, "seats": seats, "preset": preset, "style": style,
                  "status": QueueEntry.Status.WAITING, "room_code": "", "created_at": now,
                  "expires_at": now + QUEUE_TTL, "matched_at": None},
    )
    _queue_try_match(entry, now=now)
    return entry


def _live_match(user) -> QueueEntry | None:
    """The caller's matched entry whose room is still open or playing with the caller seated in it (not
    left), else ``None``."""
    entry = QueueEntry.objects.filter(user=user, status=QueueEntry.Status.MATCHED).first()
    if entry is None or not Seat.objects.filter(
            room__code=entry.room_code, room__status__in=(RoomStatus.OPEN, RoomStatus.PLAYING),
            user=user, left=False).exists():
        return None
    return entry


def _queue_try_match(entry: QueueEntry, *, now) -> None:
    friends = friend_ids(entry.user_id)
    if not friends:
        return
    candidates = list(
        QueueEntry.objects.select_for_update()
        .filter(game=entry.game, seats=entry.seats, preset=entry.preset, style=entry.style,
                status=QueueEntry.Status.WAITING, expires_at__gt=now,
                user_id__in=friends, user__is_active=True, user__is_guest=False)
        .exclude(user_id=entry.user_id)
        .select_related("user")
    )
    if len(candidates) < entry.seats - 1:
        return
    ratings = _ratings(entry.game, [entry.user_id] + [c.user_id for c in candidates])
    mine = ratings[entry.user_id]
    candidates.sort(key=lambda c: (abs(ratings[c.user_id] - mine), c.created_at, c.user_id))
    chosen = candidates[: entry.seats - 1]

    users = [entry.user] + [c.user for c in chosen]
    rules = queue_rules(game=entry.game, preset=entry.preset, style=entry.style)
    room = rooms_services.room_create_ranked_for_queue(game=entry.game, seats=entry.seats, users=users, rules=rules)
    ids = [u.id for u in users]
    QueueEntry.objects.filter(user_id__in=ids).update(status=QueueEntry.Status.MATCHED, room_code=room.code,
                                                       matched_at=now)
    entry.status, entry.room_code, entry.matched_at = QueueEntry.Status.MATCHED, room.code, now
    payload = {"type": "queue", "status": "matched", "room": room.code}
    for uid in ids:
        send_on_commit(user_group(uid), {"type": "queue.matched", "payload": payload})


@transaction.atomic
def queue_leave(*, user) -> bool:
    """``DELETE /api/queue``: leave the queue (a matched entry is forgotten too). Idempotent; True when an
    entry was deleted."""
    n, _ = QueueEntry.objects.filter(user=user).delete()
    return bool(n)


def queue_expire(*, now=None) -> int:
    """Delete waiting entries past ``expires_at`` and matched entries older than a day; returns how many.
    (Expiry is also applied lazily: an expired entry is never matched and reads as ``expired``.)"""
    now = now or timezone.now()
    n, _ = QueueEntry.objects.filter(
        Q(status=QueueEntry.Status.WAITING, expires_at__lte=now)
        | Q(status=QueueEntry.Status.MATCHED, matched_at__lte=now - timedelta(days=1))
    ).delete()
    return n


# -------------------------------------------------------------------------------------- rating a game
def _standing_places(game) -> dict[int, int]:
    """``{seat: place}`` from a finished game's ``result.standing`` (malformed rows are skipped)."""
    out: dict[int, int] = {}
    result = game.result if isinstance(game.result, dict) else {}
    for row in result.get("standing") or []:
        try:
            seat, place = int(row["seat"]), int(row["place"])
        except (KeyError, TypeError, ValueError):
            continue
        if place >= 1:
            out[seat] = place
    return out


def _human_players(game):
    """The game's human ``GamePlayer`` rows (a user, not a CPU), in seat order (a queryset)."""
    return GamePlayer.objects.filter(game=game, cpu=False, user__isnull=False).order_by("seat")


def _human_seats(game) -> dict[int, int]:
    """``{seat: user_id}`` of the game's human seats (a user, not a CPU), one seat per user."""
    return _first_seat_per_user(_human_players(game).values_list("seat", "user_id"))


def _first_seat_per_user(seats) -> dict[int, int]:
    """``{seat: user_id}`` from ``(seat, user_id)`` pairs in seat order, keeping a user's first seat only."""
    out: dict[int, int] = {}
    seen: set[int] = set()
    for seat, user_id in seats:
        if user_id not in seen:
            out[seat] = user_id
            seen.add(user_id)
    return out


_RECORD_LOCK_SPACE = zlib.crc32(b"ranking.game_record") & 0x7FFFFFFF  # the high half of its advisory lock keys


def _record_lock(game_id: int) -> None:
    """Serialise :func:`game_record` runs for one game: a transaction-scoped advisory lock on PostgreSQL
    (the task may run twice, or twice at once). SQLite serialises writers itself."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [(_RECORD_LOCK_SPACE << 32) | (game_id & 0xFFFFFFFF)])


def _human_acted(game) -> bool:
    return bool(getattr(game, "human_acted", False)) or GameAction.objects.filter(game=game, by="player").exists()



PAIR_DAILY_RATED = 3
"""Rated games a pair of players may play together in :data:`PAIR_WINDOW`; from the next one on, their
pair counts with weight 0 (a two-player game then is not rated)."""

PAIR_WINDOW = timedelta(hours=24)


def _decisions_before_quitting(game, seats) -> dict[int, int | None]:
    """``{seat: n}``: for each human seat in ``seats`` that quit — resigned (its own ``resign``), was
    timed out or played for (an action ``by`` timeout or away), or left — how many decisions of its own
    (actions ``by`` player other than ``resign``) it had made before; ``None`` for a seat that never quit."""
    made: dict[int, int] = dict.fromkeys(seats, 0)
    quit_at: dict[int, int | None] = dict.fromkeys(seats)
    rows = GameAction.objects.filter(game=game, seat__in=list(seats)).order_by("seq").values_list("seat", "by", "action")
    for seat, by, action in rows:
        kind = action.get("type") if isinstance(action, dict) else None
        if by == "player" and kind != "resign":
            made[seat] += 1
        elif quit_at[seat] is None and (by in ("timeout", "away") or kind == "resign"):
            quit_at[seat] = made[seat]
    for seat in GamePlayer.objects.filter(game=game, seat__in=list(seats), left=True).values_list("seat", flat=True):
        if quit_at[seat] is None:
            quit_at[seat] = made[seat]
    return quit_at


def game_quit_too_early(game, seats=None) -> bool:
    """Whether a human seat of ``game`` (of ``seats``, default all) quit (resigned, left, timed out)
    before :data:`MIN_DECISIONS` decisions of its own: such a ranked game is recorded as not rated (its
    result stands for stats)."""
    quit_at = _decisions_before_quitting(game, _human_seats(game) if seats is None else seats)
    return any(n is not None and n < MIN_DECISIONS for n in quit_at.values())


def _pair_weights(game, order: list[int], seats: dict[int, int]) -> list[list[float]]:
    """The pair weights of :func:`ranking.elo.raw_changes`: 0 for two players who already had
    :data:`PAIR_DAILY_RATED` rated games of this game together in the last :data:`PAIR_WINDOW`, else 1.
    Read under the rating rows' lock, so two games of the same pair finishing together count in turn."""
    users = [seats[s] for s in order]
    since = timezone.now() - PAIR_WINDOW
    by_game: dict[int, set[int]] = {}
    for game_id, user_id in RatingChange.objects.filter(
            game_name=game.game, user_id__in=users, created_at__gte=since).exclude(game=game).values_list(
            "game_id", "user_id"):
        by_game.setdefault(game_id, set()).add(user_id)
    together: dict[frozenset, int] = {}
    for players in by_game.values():
        for a in players:
            for b in players:
                if a < b:
                    together[frozenset((a, b))] = together.get(frozenset((a, b)), 0) + 1
    return [[0.0 if a != b and together.get(frozenset((a, b)), 0) >= PAIR_DAILY_RATED else 1.0 for b in users]
            for a in users]


def game_is_rated(game) -> bool:
    """Whether a game is to be rated (DESIGN.md "Ratings"): finished, ranked, not aborted, at least one
    action by a human player (timeouts, away and CPU moves do not count), at least two human seats in its
    final standing, and no human seat that quit before :data:`MIN_DECISIONS` decisions
    (:func:`game_quit_too_early`). Resigned and played-for seats are rated as their players. (The daily
    cap per pair, :data:`PAIR_DAILY_RATED`, is applied by :func:`game_rate` under the lock.)"""
    if game is None or game.status != Game.FINISHED or not game.ranked:
        return False
    result = game.result if isinstance(game.result, dict) else {}
    if result.get("reason") == "aborted":
        return False
    places = _standing_places(game)
    humans = [s for s in _human_seats(game) if s in places]
    return len(humans) >= 2 and _human_acted(game) and not game_quit_too_early(game, humans)


def game_rate(*, game_id: int) -> list:
    """Rate a finished ranked game once; returns its ``RatingChange`` rows (``[]`` when not rated).
    Whether it is rated (:func:`game_is_rated`) is read before any transaction: it depends on the
    finished game's own rows, which no longer change; an unrated game (every unranked one) costs that
    read alone.

    Lock contract: the players' ``Rating`` rows (created at 1500/0 if missing) are locked with
    ``select_for_update`` in user-id order, then the game is checked for existing changes *under the lock*,
    so a task run twice, or two runs at once, rate it exactly once (``unique(game, user)`` backs this);
    two games sharing a player are applied one after the other, each reading the other's result.
    Ratings and K (by each player's rated-game count) are read under that lock, before any update from
    this game; see :mod:`ranking.elo`. The daily cap per pair (:data:`PAIR_DAILY_RATED` rated games of
    the same pair in :data:`PAIR_WINDOW`) is read under that lock too: a pair over it counts with weight 0,
    and a player all of whose pairs are over it gets no change (not rated).
    """
    game = Game.objects.filter(pk=game_id).first()
    if not game_is_rated(game):
        return []
    with transaction.atomic():
        return _rate(game)


def _rate(game) -> list:
    """:func:`game_rate`'s work for a rated ``game``, in its transaction."""
    existing = list(RatingChange.objects.filter(game=game).order_by("seat"))
    if existing:
        return existing
    places = _standing_places(game)
    seats = {s: u for s, u in _human_seats(game).items() if s in places}
    user_ids = sorted(seats.values())
    Rating.objects.bulk_create([Rating(user_id=u, game=game.game) for u in user_ids], ignore_conflicts=True)
    rows = {r.user_id: r for r in Rating.objects.select_for_update().filter(game=game.game, user_id__in=user_ids)
            .order_by("user_id")}
    existing = list(RatingChange.objects.filter(game=game).order_by("seat"))
    if existing:  # another run rated it while we waited for the lock
        return existing
    order = sorted(seats)
    inputs = [elo.SeatInput(rating=rows[seats[s]].rating, games=rows[seats[s]].games, place=places[s]) for s in order]
    weights = _pair_weights(game, order, seats)
    changes = elo.rating_changes(inputs, weights)
    out = []
    for i, (s, inp, delta) in enumerate(zip(order, inputs, changes, strict=True)):
        if not any(w for j, w in enumerate(weights[i]) if j != i):
            continue  # every pair of this seat is over the daily cap: not rated for this player
        row = rows[seats[s]]
        row.rating = inp.rating + delta
        row.games = inp.games + 1
        row.save(update_fields=["rating", "games", "updated_at"])
        out.append(RatingChange(game=game, user_id=row.user_id, game_name=game.game, seat=s, place=places[s],
                                before=inp.rating, after=row.rating, change=delta, k=elo.k_factor(inp.games + 1)))
    RatingChange.objects.bulk_create(out)
    return out


# ------------------------------------------------------------------- statistics, XP and achievements
def xp_grant(*, user_id: int, amount: int, reason: str, ref: str) -> bool:
    """Grant ``amount`` XP (> 0) to ``user_id`` for ``reason`` (``"achievement"``, ``"challenge"``...) and
    ``ref`` (e.g. the achievement's id): an ``XpGrant`` row, once per ``(user, reason, ref)``. Returns True
    when granted now, False when that grant exists already (idempotent; safe under concurrency: the unique
    constraint decides). Raises ``ValueError`` for an amount that is not a positive int."""
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise ValueError("amount must be a positive int")
    try:
        with transaction.atomic():
            XpGrant.objects.create(user_id=user_id, amount=amount, reason=reason, ref=str(ref))
    except IntegrityError:
        return False
    return True


def _game_events(game) -> list[dict]:
    out: list[dict] = []
    for events in GameAction.objects.filter(game=game).order_by("seq").values_list("events", flat=True):
        if isinstance(events, list):
            out.extend(e for e in events if isinstance(e, dict))
    return out


@transaction.atomic
def game_record(*, game_id: int) -> list:
    """Record a finished (not aborted) game's statistics for each human seat (``GameRecord``, once per
    game and user), its XP, and the achievements it earned (``AchievementAward``, once per user), each
    new award announced after commit to the game's room group (``game.group``) as ``{"type":
    "room.achievement", "payload": {"type": "achievement", "seat": n, "achievement": {id, name,
    description}}}``. Run :func:`game_rate` first (rating achievements read its result). Idempotent:
    returns the records created by this call (two runs for one game take turns: :func:`_record_lock`).

    Queries: the game, the lock, the seats, what is recorded, the log, the rating changes (of a ranked
    game: an unranked one has none), then the new records in one insert, every recorded user's counts in
    one, their achievements in one: the same for any seat count; each achievement earned adds its award
    and XP rows.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.FINISHED:
        return []
    result = game.result if isinstance(game.result, dict) else {}
    if result.get("reason") == "aborted":
        return []
    places = _standing_places(game)
    _record_lock(game.pk)  # before reading what is recorded: two runs for this game write one after the other
    rows = list(_human_players(game))
    players = {p.seat: p for p in rows}
    humans = {s: u for s, u in _first_seat_per_user((p.seat, p.user_id) for p in rows).items() if s in places}
    done = set(GameRecord.objects.filter(game=game).values_list("user_id", flat=True))
    todo = {s: u for s, u in sorted(humans.items()) if u not in done}
    if not todo:
        return []
    n_seats = max(len(places), max(places) + 1 if places else 0)
    final = {}
    for row in result.get("standing") or []:
        if isinstance(row, dict) and "seat" in row:
            final[row.get("seat")] = row.get("points", row.get("score"))
    facts = gamelog.seat_facts(game.game, n_seats, _game_events(game), result.get("standing"))
    firsts = [s for s, p in places.items() if p == 1]
    rated = {c.user_id: c for c in RatingChange.objects.filter(game=game)} if game.ranked else {}
    credits = {c.user_id: c for c in game_credits(game).values()}  # what counts (ranking.eligibility)
    finished_at = game.finished_at or timezone.now()
    starting = (game.rules or {}).get("starting_points") if isinstance(game.rules, dict) else None
    created, seat_facts = [], {}
    for seat, user_id in todo.items():
        f = seat_facts[seat] = facts.get(seat) or gamelog.SeatFacts()
        won = places[seat] == 1 and len(firsts) == 1
        outcome = "win" if won else ("draw" if places[seat] == 1 else "loss")
        played_for = bool(getattr(players.get(seat), "played_for", False))
        credit = credits.get(user_id)
        counts = credit is not None and credit.counts and (not (f.resigned or played_for) or f.eliminated)
        xp = achievements.xp_for(won=won and credit.win_counts, hands_finished=f.hands_finished,
                                 cards_discarded=f.cards_discarded, resigned=f.resigned, played_for=played_for,
                                 eliminated=f.eliminated) if counts else 0
        created.append(GameRecord(
            game=game, user_id=user_id, game_name=game.game, seat=seat, place=places[seat], seats=len(places),
            outcome=outcome, ranked=game.ranked, rated=user_id in rated, resigned=f.resigned,
            played_for=played_for, eliminated=f.eliminated, counts=counts, win_counts=counts and credit.win_counts,
            xp=xp, hands_finished=f.hands_finished,
            cards_discarded=f.cards_discarded, pinzoro=f.pinzoro, arashi=f.arashi, shigoro=f.shigoro,
            hifumi=f.hifumi, minus_ten=f.minus_ten, chinchon=f.chinchon, finished_at=finished_at))
    GameRecord.objects.bulk_create(created)
    user_ids = list(todo.values())
    per_user = GameRecord.objects.filter(user_id__in=user_ids).values("user_id").order_by().annotate(
        games=Count("id", filter=Q(counts=True)), wins=Count("id", filter=Q(win_counts=True)),
        rated_games=Count("id", filter=Q(rated=True)), rated_wins=Count("id", filter=Q(rated=True, outcome="win")),
    )
    counts = {row.pop("user_id"): row for row in per_user}
    have: dict[int, set] = {u: set() for u in user_ids}
    for uid, ach_id in AchievementAward.objects.filter(user_id__in=user_ids).values_list("user_id", "achievement"):
        have[uid].add(ach_id)
    for record in created:
        if not record.counts:
            continue  # a game that does not count earns no achievement (ranking.eligibility)
        seat, user_id, f = record.seat, record.user_id, seat_facts[record.seat]
        ctx = achievements.SeatContext(
            game_name=game.game, won=record.win_counts, rated=user_id in rated, facts=f, **counts[user_id],
            rating_after=rated[user_id].after if user_id in rated else None,
            final_points=final.get(seat) if isinstance(final.get(seat), int) else None,
            starting_points=starting if isinstance(starting, int) else None,
        )
        for ach in achievements.earned(ctx):
            if ach.id in have[user_id]:
                continue
            _, new = AchievementAward.objects.get_or_create(user_id=user_id, achievement=ach.id,
                                                            defaults={"game": game, "seat": seat})
            if new:
                xp_grant(user_id=user_id, amount=ach.xp, reason="achievement", ref=ach.id)
            if new and game.group:
                send_on_commit(game.group, {"type": "room.achievement", "payload": {
                    "type": "achievement", "seat": seat, "achievement": ach.as_dict()}})
    return created


def game_process_finished(*, game_id: int) -> dict:
    """What ``ranking.tasks.rate_game`` does: :func:`game_rate` then :func:`game_record`, each in its
    own transaction and idempotent. Returns ``{"rated": n changes, "recorded": n new records,
    "recorded_ranked": how many of those are of a ranked game}``."""
    changes = game_rate(game_id=game_id)
    records = game_record(game_id=game_id)
    return {"rated": len(changes), "recorded": len(records), "recorded_ranked": sum(1 for r in records if r.ranked)}


# --------------------------------------------------------------------------------------------- moderation
ADJUST_MAX = 1000
"""The largest rating adjustment a moderator may make at once, either way (rating points)."""


@transaction.atomic
def rating_adjust(*, user, game: str, amount: int, reason: str, by):
    """A moderator's rating adjustment: ``user``'s rating in ``game`` moves by ``amount`` points (±1..1000)
    for ``reason``; written as a :class:`~ranking.models.RatingChange` with no game (``reason``,
    ``adjusted_by``, ``k`` 0) so it shows in the player's rating history; the rated-game count is not
    touched. Locks the rating row (created at 1500 if missing); one audit row. Returns the change.

    Raises 400 ``invalid`` naming ``game``, ``amount`` or ``reason``.
    """
    if game not in GAMES:
        raise invalid_field("game", f"Must be one of {', '.join(GAMES)}.")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0 or abs(amount) > ADJUST_MAX:
        raise invalid_field("amount", f"A non-zero integer within ±{ADJUST_MAX}.")
    reason = (reason or "").strip()[:200]
    if not reason:
        raise invalid_field("reason", "Give a reason.")
    Rating.objects.get_or_create(user=user, game=game)
    row = Rating.objects.select_for_update().get(user=user, game=game)
    before = row.rating
    row.rating = before + amount
    row.save(update_fields=["rating", "updated_at"])
    change = RatingChange.objects.create(game=None, user=user, game_name=game, before=before, after=row.rating,
                                         change=amount, k=0, reason=reason, adjusted_by=by)
    audit_record(actor=by, action="rating_adjust", target=row, reason=reason,
                 changes={"rating": [before, row.rating]}, amount=amount, game=game)
    return change
