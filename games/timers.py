"""Timers, CPU seats and absence: what changes a game without a player's action (DESIGN.md "Time and
absence"). Entries: :func:`game_handle_timeout` (task ``turn_timeout``), :func:`game_bot_play` (task
``bot_play``), :func:`game_sweep` (the beat task), :func:`game_mark_away` (task ``mark_away``), and the
seat's presence: :func:`game_set_connected`, :func:`game_note_seen`, :func:`game_set_autoplay`,
:func:`game_player_left` / :func:`game_player_returned` / :func:`game_player_kicked`.

Lock contract (:mod:`games.locking`): each entry locks the game (one query) in its own transaction before
reading it and writes through ``_save``; a task that is stale (another ``seq``) or early is a no-op (an
early one re-arms the timers). Tasks are sent by name after the commit, never in eager mode.
"""

from __future__ import annotations

import functools
import threading
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.signals import setting_changed
from django.db import transaction
from django.dispatch import receiver

from config import metrics
from config.celery_app import app as celery_app
from games import locking
from games.bots import chinchirorin as chinchirorin_bot
from games.bots import chinchon as chinchon_bot
from games.engine import rng as rngmod
from games.engine.errors import IllegalAction, InvalidAction, NotYourTurn
from games.lifecycle import game_abort, game_resign_stale
from games.locking import (
    BY_AWAY,
    BY_CPU,
    BY_TIMEOUT,
    EARLY_TOLERANCE,
    MAX_STEPS_PER_WINDOW,
    OUTAGE_SECONDS,
    PRESENCE_NOTE_SECONDS,
    PRESENCE_SECONDS,
    PRESENCE_WRITE_SECONDS,
    STALE_SECONDS,
    TASK_MARK_AWAY,
    _as_id,
    _controller,
    _Ctx,
    _ctx_view,
    _game_over,
    _human_seat,
    _is_reentry,
    _lock_or_none,
    _log,
    _not_a_player,
    _not_found,
    _rearm_on_commit,
    _refresh_times,
    _save,
    _transition,
    _window_seconds,
    log,
)
from games.models import Game, GamePlayer, SweepHeartbeat

BOTS = {"chinchirorin": chinchirorin_bot, "chinchon": chinchon_bot}  # game -> its CPU policy module


def _policy_action(ctx: _Ctx, seat: int) -> dict:
    """A CPU seat's choice: ``games.bots.<game>.choose`` with ``bot_rng(seed, seq)``; the engine default
    if the policy is missing or answers something not offered."""
    legal = ctx.engine.legal_actions(ctx.state, seat)
    try:
        bots = BOTS[ctx.game.game]
        view = dict(ctx.engine.view_for(ctx.state, seat))
        view["you"] = seat
        rng = rngmod.bot_rng(bytes(ctx.game.seed), ctx.game.seq)
        level = ctx.players[seat].cpu_level or "normal"
        try:
            choice = bots.choose(view, legal, level, rng, seat=seat, rules=ctx.game.rules)
        except TypeError:
            choice = bots.choose(view, legal, level, rng)
        if choice in legal or choice in ctx.engine.other_actions(ctx.state, seat):
            return dict(choice)
        _log(ctx.game).warning("game %s: CPU policy offered %r, not a legal action", ctx.game.pk, choice)
    except Exception:
        _log(ctx.game).exception("game %s: CPU policy failed; using the default action", ctx.game.pk)
    return ctx.engine.default_action(ctx.state, seat)


def _act_for(ctx: _Ctx, seat: int, by: str, now: datetime) -> bool:
    """Act for ``seat`` as ``by`` (cpu: its policy; timeout/away: the engine default). False if the
    engine refused (the seat is no longer awaited)."""
    try:
        action = _policy_action(ctx, seat) if by == BY_CPU else ctx.engine.default_action(ctx.state, seat)
        _transition(ctx, seat, action, by, now=now)
    except (NotYourTurn, IllegalAction, InvalidAction):
        _log(ctx.game).exception("game %s: could not act for seat %s", ctx.game.pk, seat)
        return False
    return True



# ------------------------------------------------------------------------- presence without a socket
def _seen_key(game_id: int, user_id: int) -> str:
    return f"game-seen:{game_id}:{user_id}"


@functools.cache
def _presence_cache():
    """The default cache, one instance per process for the presence times. Django's ``cache`` is one
    instance per request context (a request's thread, under ASGI), and django-redis' first command in each
    builds a Redis client: half of what :func:`game_note_seen` cost each action (bench/README.md "Server").
    The Redis client is thread-safe and its connection pool shared, as with ``cache``. Made anew when the
    ``CACHES`` setting changes (tests), as Django's are."""
    return caches.create_connection(DEFAULT_CACHE_ALIAS)


@receiver(setting_changed)
def _forget_presence_cache(*, setting: str, **kwargs) -> None:
    if setting == "CACHES":
        _presence_cache.cache_clear()


def _present_until(ctx: _Ctx, seat: int, now: datetime) -> None:
    """A request by ``seat``'s player (REST): with no socket open, its seat stays present until now +
    ``PRESENCE_SECONDS`` (stored as ``disconnected_at``, from which the away grace counts); the row is
    marked for the transaction's write only when that moves the end by ``PRESENCE_WRITE_SECONDS`` or more."""
    gp = ctx.players[seat]
    if gp.cpu or gp.connected:
        return
    until = now + timedelta(seconds=PRESENCE_SECONDS)
    if gp.disconnected_at is None or gp.disconnected_at <= until - timedelta(seconds=PRESENCE_WRITE_SECONDS):
        gp.disconnected_at = until
        ctx.dirty_players.add(seat)


_SEEN_NOTED: dict[tuple[int, int], datetime] = {}  # (game, user) -> when this process last wrote its time
_SEEN_NOTED_MAX = 4096  # entries before the ones older than PRESENCE_NOTE_SECONDS are dropped
_SEEN_NOTED_LOCK = threading.Lock()


def _noted_recently(game_id: int, user_id: int, now: datetime) -> bool:
    """Whether this process wrote ``user_id``'s time for ``game_id`` less than ``PRESENCE_NOTE_SECONDS``
    before ``now``; if not, records ``now`` as written (the caller writes it)."""
    key = (game_id, user_id)
    with _SEEN_NOTED_LOCK:
        last = _SEEN_NOTED.get(key)
        if last is not None and timedelta(0) <= now - last < timedelta(seconds=PRESENCE_NOTE_SECONDS):
            return True
        if len(_SEEN_NOTED) >= _SEEN_NOTED_MAX:
            cutoff = now - timedelta(seconds=PRESENCE_NOTE_SECONDS)
            for k in [k for k, at in _SEEN_NOTED.items() if at <= cutoff or at > now]:
                del _SEEN_NOTED[k]
            if len(_SEEN_NOTED) >= _SEEN_NOTED_MAX:
                _SEEN_NOTED.clear()
        _SEEN_NOTED[key] = now
        return False


def game_note_seen(*, game_id: int, user, write: bool = True) -> None:
    """Presence for clients without a socket: ``user`` asked for game ``game_id`` (its view, log, an
    action, or ``POST /api/games/{id}/heartbeat``), so its seat is present for ``PRESENCE_SECONDS`` (60 s);
    only after that does the away grace (``AWAY_GRACE_SECONDS``) start. The time is kept in the cache
    (Redis, no query) for a socket that closes later, written at most once per ``PRESENCE_NOTE_SECONDS``
    (5 s) per user and game by each server process (a player acting every second writes it once in five
    requests; its time is then up to 5 s old, against 60 s of presence); the seat row is written (the
    game locked: two queries) at most once per ``PRESENCE_WRITE_SECONDS`` per user and game, and only
    while the seat has no socket. ``write=False``: the cache only (an applied action wrote the row in its
    own statement). Never raises for a cache outage (then the row is written, at most once per
    ``PRESENCE_NOTE_SECONDS`` per user and game and process, as the cache would have been)."""
    now = locking._now()
    if _noted_recently(game_id, user.pk, now):
        return  # and the row: its write follows a cache write, at most once per PRESENCE_WRITE_SECONDS
    try:
        cache = _presence_cache()
        cache.set(_seen_key(game_id, user.pk), now.timestamp(), timeout=int(PRESENCE_SECONDS) + 1)
        if not write or not cache.add(f"{_seen_key(game_id, user.pk)}:w", 1, timeout=PRESENCE_WRITE_SECONDS):
            return
    except Exception:  # noqa: BLE001 - presence is best effort: write the row instead
        log.warning("presence cache unavailable for game %s", game_id, exc_info=True)
    with transaction.atomic():
        ctx = _lock_or_none(game_id)
        if ctx is None or ctx.game.status != Game.PLAYING:
            return
        seat = next((s for s, gp in ctx.players.items() if gp.user_id == user.pk and not gp.cpu), None)
        if seat is None:
            return
        _present_until(ctx, seat, now)
        if ctx.dirty_players:
            ctx.rearm = False
            _save(ctx)


def _last_seen(game_id: int, user_id: int | None) -> datetime | None:
    """When ``user_id`` last asked for the game over REST (within ``PRESENCE_SECONDS``), from the cache."""
    if user_id is None:
        return None
    try:
        at = _presence_cache().get(_seen_key(game_id, user_id))
    except Exception:  # noqa: BLE001 - no cache: as if not seen
        return None
    return datetime.fromtimestamp(at, tz=UTC) if isinstance(at, (int, float)) else None


def _count_timeout(ctx: _Ctx, seat: int) -> None:
    gp = ctx.players[seat]
    if gp.cpu:
        return
    gp.timeouts_in_row += 1
    ctx.dirty_players.add(seat)
    if gp.timeouts_in_row >= 3 and not gp.away:
        gp.away = True
        ctx.presence.add(seat)



# ------------------------------------------------------------------------------ timers and bots
def _heartbeat() -> datetime | None:
    row = SweepHeartbeat.objects.filter(pk=1).first()
    return row.at if row else None


def _lock_if_due(game_id: int, seq: int, time_field: str, now: datetime) -> _Ctx | None:
    """Inside an atomic block: lock the game and return it if it is playing at ``seq`` and its stored
    ``time_field`` (``deadline`` / ``bot_due_at``) has come; else ``None``. A task that came early (a
    redelivery, a clock skew) re-arms the game's timers for the real time instead."""
    ctx = _lock_or_none(game_id)
    if ctx is None:
        return None
    game = ctx.game
    due = getattr(game, time_field)
    if game.status != Game.PLAYING or game.seq != seq or due is None:
        return None
    if due > now + EARLY_TOLERANCE:
        _rearm_on_commit(game)
        return None
    return ctx


def game_handle_timeout(*, game_id: int, seq: int, heartbeat: datetime | None | bool = False) -> bool:
    """The ``turn_timeout`` task: under the lock, if the game is still playing at ``seq`` and its stored
    deadline has passed, every seat still awaited makes its whole decision for the window (a Chinchón turn
    is a draw, then a discard or close), each step its own logged action: a present human the
    engine's ``default_action`` (``by`` timeout; a window counts once; three in a row make the seat away), a played-for seat the
    default (``by`` away), a CPU seat its policy (``by`` cpu); it stops when the window changes.

    Outage: if the sweep heartbeat (``heartbeat``; default: read now) was more than 5 s old when the
    deadline passed, the deadline is renewed to now + the window's length instead. No heartbeat ever
    written: enforced. Returns True if the game changed; a stale or early call is a no-op.
    """
    now = locking._now()
    hb = _heartbeat() if heartbeat is False else heartbeat
    with transaction.atomic():
        ctx = _lock_if_due(game_id, seq, "deadline", now)
        if ctx is None:
            return False
        game = ctx.game
        if hb is not None and (game.deadline - hb).total_seconds() > OUTAGE_SECONDS:
            secs = _window_seconds(game, _is_reentry(ctx)) or 0
            _log(game).warning("game %s: deadline missed during an outage; renewed by %ss", game.pk, secs)
            game.deadline = now + timedelta(seconds=secs)
            _save(ctx)
            return True
        metrics.timer_fired(game.game, (now - game.deadline).total_seconds())
        window = game.window
        for seat in list(ctx.engine.awaiting(ctx.state)):
            if game.status != Game.PLAYING or game.window != window:
                break
            if seat not in ctx.engine.awaiting(ctx.state):
                continue
            gp = ctx.players.get(seat)
            by = BY_CPU if gp is not None and gp.cpu else BY_AWAY if gp is not None and gp.played_for else BY_TIMEOUT
            # A window may hold several steps for one seat (a Chinchón turn: draw, then discard or close):
            # the seat's whole decision is made now, and counts as one timeout.
            acted = False
            for _step in range(MAX_STEPS_PER_WINDOW):
                if (game.status != Game.PLAYING or game.window != window
                        or seat not in ctx.engine.awaiting(ctx.state) or not _act_for(ctx, seat, by, now)):
                    break
                acted = True
            if acted and by == BY_TIMEOUT:
                _count_timeout(ctx, seat)
        if ctx.presence:
            _refresh_times(ctx, now, False)
        _save(ctx)
        return True


def game_bot_play(*, game_id: int, seq: int) -> bool:
    """The ``bot_play`` task: under the lock, if the game is still playing at ``seq`` and its stored
    ``bot_due_at`` has come, every awaited CPU seat (its level's policy, ``bot_rng(seed, seq)``) and every
    awaited played-for human seat (the engine's default; not for a re-entry offer) acts in this one
    round, each its own logged action, while the window stays open. Returns True if anything acted.
    """
    now = locking._now()
    with transaction.atomic():
        ctx = _lock_if_due(game_id, seq, "bot_due_at", now)
        if ctx is None:
            return False
        game = ctx.game
        window = game.window
        acted = False
        for seat in list(ctx.engine.awaiting(ctx.state)):
            if game.status != Game.PLAYING or game.window != window:
                break
            if seat not in ctx.engine.awaiting(ctx.state):
                continue
            by = _controller(ctx, seat)
            if by is not None:
                acted = _act_for(ctx, seat, by, now) or acted
        if not acted:
            game.bot_due_at = None
        _save(ctx)
        return acted


def game_sweep(*, now: datetime | None = None) -> dict:
    """The beat task (every second): act on overdue deadlines and due times whose task was lost, mark
    seats away whose grace period passed, resign humans awaited 24 h, abort games no human acted in for
    24 h, then write the heartbeat. Reads the previous heartbeat first, for the outage rule of
    :func:`game_handle_timeout`. Each game in its own transaction; an error in one is logged and skipped.
    Returns counts ``{timeouts, bots, away, resigned, aborted}``.
    """
    now = now or locking._now()
    hb = _heartbeat()
    counts = dict.fromkeys(("timeouts", "bots", "away", "resigned", "aborted"), 0)

    def run(key: str, fn, **kwargs) -> None:
        try:
            if fn(**kwargs):
                counts[key] += 1
        except Exception:
            log.exception("sweep: %s(%s) failed", fn.__name__, kwargs, extra={"game_id": kwargs.get("game_id"),
                                                                              "seq": kwargs.get("seq")})

    playing = Game.objects.filter(status=Game.PLAYING)
    for gid, seq in playing.filter(deadline__lte=now).values_list("id", "seq"):
        run("timeouts", game_handle_timeout, game_id=gid, seq=seq, heartbeat=hb)
    for gid, seq in playing.filter(bot_due_at__lte=now).values_list("id", "seq"):
        run("bots", game_bot_play, game_id=gid, seq=seq)
    grace = timedelta(seconds=float(getattr(settings, "AWAY_GRACE_SECONDS", 10.0)))
    stale_players = GamePlayer.objects.filter(game__status=Game.PLAYING, cpu=False, connected=False, away=False,
                                              disconnected_at__lte=now - grace)
    for gid, seat, since in stale_players.values_list("game_id", "seat", "disconnected_at"):
        run("away", game_mark_away, game_id=gid, seat=seat, since=since)
    cutoff = now - timedelta(seconds=STALE_SECONDS)
    for gid in playing.filter(human_acted=False, created_at__lte=cutoff).values_list("id", flat=True):
        run("aborted", game_abort, game_id=gid, reason="no_human_action")
    for gid in playing.filter(window_opened_at__lte=cutoff).values_list("id", flat=True):
        run("resigned", game_resign_stale, game_id=gid)
    SweepHeartbeat.objects.update_or_create(pk=1, defaults={"at": now})
    return counts



def game_set_connected(*, game_id: int, seat: int, connected: bool, user_id: int | None = None) -> None:
    """The rooms consumer calls this when a seat's first socket opens (``True``) or its last closes
    (``False``). Opening returns the seat at once (not away, timeouts reset); closing only records
    ``disconnected_at``: the seat becomes away when ``mark_away`` runs after ``AWAY_GRACE_SECONDS`` (or
    the sweeper finds it). Also for a finished game (its view keeps ``connected`` current; no timers).
    ``user_id``: the seat must be that user's (a finished game's seat index may be someone else's in the
    room now). The change goes out as a ``presence`` message only. Locks the game. Unknown game or seat,
    or another user's seat: no-op.
    """
    now = locking._now()
    with transaction.atomic():
        ctx = _lock_or_none(game_id)
        if ctx is None:
            return
        gp = ctx.players.get(seat)
        if gp is None or gp.cpu or (user_id is not None and gp.user_id != user_id):
            return
        ctx.rearm = False
        if connected:
            changed = not gp.connected or gp.away
            gp.connected, gp.disconnected_at = True, None
            if gp.away or gp.timeouts_in_row:
                gp.away, gp.timeouts_in_row = False, 0
                _refresh_times(ctx, now, False)
                ctx.rearm = True
        else:
            changed = gp.connected
            # A request for the game over REST in the last 60 s keeps the seat present until 60 s after it.
            seen = _last_seen(ctx.game.pk, gp.user_id)
            until = seen + timedelta(seconds=PRESENCE_SECONDS) if seen is not None else now
            gp.connected, gp.disconnected_at = False, max(now, until)
        ctx.dirty_players.add(seat)
        if changed:
            ctx.presence.add(seat)
        _save(ctx)
        if not connected and ctx.game.status == Game.PLAYING:
            grace = float(getattr(settings, "AWAY_GRACE_SECONDS", 10.0))
            game_pk, since, glog = ctx.game.pk, gp.disconnected_at, _log(ctx.game)
            grace += max(0.0, (since - now).total_seconds())

            def arm_away() -> None:
                if celery_app.conf.task_always_eager:
                    return
                try:
                    celery_app.send_task(TASK_MARK_AWAY, (game_pk, seat, since.isoformat()), countdown=grace)
                except Exception:
                    glog.exception("could not arm mark_away for game %s seat %s", game_pk, seat)

            transaction.on_commit(arm_away)


def game_mark_away(*, game_id: int, seat: int, since: datetime | None = None) -> bool:
    """The ``mark_away`` task / sweeper: the seat becomes away if it is still disconnected since
    ``since`` (the ``disconnected_at`` the grace period was counted from) and the grace period has
    passed. Locks the game. Returns True if the seat became away."""
    now = locking._now()
    grace = timedelta(seconds=float(getattr(settings, "AWAY_GRACE_SECONDS", 10.0)))
    with transaction.atomic():
        ctx = _lock_or_none(game_id)
        if ctx is None:
            return False
        gp = ctx.players.get(seat)
        if (gp is None or gp.cpu or gp.connected or gp.away or gp.disconnected_at is None
                or ctx.game.status != Game.PLAYING):
            return False
        if since is not None and abs((gp.disconnected_at - since).total_seconds()) > 0.001:
            return False
        if gp.disconnected_at + grace > now + EARLY_TOLERANCE:
            return False
        gp.away = True
        ctx.dirty_players.add(seat)
        ctx.presence.add(seat)
        _refresh_times(ctx, now, False)
        _save(ctx)
        return True


def game_set_autoplay(*, game_id: int, user, on: bool) -> dict:
    """Hand ``user``'s seat to the CPU (``on``) or take it back; returns the user's view. While on, the
    seat is played with the engine's default after the CPU speed delay. Errors: 404 ``not_found``, 403
    ``not_a_player``, 409 ``game_over``. Locks the game."""
    game_id = _as_id(game_id)
    with transaction.atomic():
        # Membership is read from the locked rows: no lookups before the lock to repeat under it.
        ctx = _lock_or_none(game_id) if game_id is not None else None
        if ctx is None:
            raise _not_found()
        gp = _human_seat(ctx, user)
        if gp is None:
            raise _not_a_player()
        seat = gp.seat
        if ctx.game.status != Game.PLAYING:
            raise _game_over()
        gp = ctx.players[seat]
        if on and not gp.autoplay:
            gp.autoplay = True
        elif not on and (gp.autoplay or gp.away):
            gp.autoplay = gp.away = False
            gp.timeouts_in_row = 0
        else:
            return _ctx_view(ctx, seat)
        ctx.dirty_players.add(seat)
        ctx.presence.add(seat)
        _refresh_times(ctx, locking._now(), False)
        _save(ctx)
        return _ctx_view(ctx, seat)


def game_player_left(*, game_id: int, user) -> None:
    """Rooms calls this when ``user`` leaves the room mid-game: the seat is played for (not a
    resignation) until the game ends or :func:`game_player_returned`. Locks the game; no-op if the game is
    over or the user has no seat."""
    _set_left(game_id, user, True)


def game_player_returned(*, game_id: int, user) -> None:
    """Rooms calls this when a player who left mid-game joins again: the seat is theirs at once (not
    left, not away, timeouts reset). Locks the game; no-op if the user has no seat."""
    _set_left(game_id, user, False)


def game_player_kicked(*, game_id: int, user) -> int | None:
    """A moderator removed ``user`` from the game: the seat is played for (``left``) and ``kicked``, so the
    user may no longer act in, see or take back the seat (403 ``not_a_player``). Locks the game; returns
    the seat, or ``None`` if the game is over or the user has no seat."""
    return _set_left(game_id, user, True, kicked=True)


def _set_left(game_id: int, user, left: bool, kicked: bool = False) -> int | None:
    with transaction.atomic():
        ctx = _lock_or_none(game_id)
        if ctx is None:
            return None
        gp = _human_seat(ctx, user)
        if gp is None or ctx.game.status != Game.PLAYING:
            return None
        if left:
            gp.left = True
            gp.kicked = kicked
        else:
            gp.left = gp.away = False
            gp.timeouts_in_row = 0
        ctx.dirty_players.add(gp.seat)
        ctx.presence.add(gp.seat)
        _refresh_times(ctx, locking._now(), False)
        _save(ctx)
        return gp.seat
