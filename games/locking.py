"""The lock and the write of a game: what every change of a game goes through (DESIGN.md "One write
path"). The public entries live in :mod:`games.actions` (a player's action), :mod:`games.timers` (timers,
bots and absence) and :mod:`games.lifecycle` (start, abort, stale resignation); :mod:`games.services`
re-exports them. HackSoft style: ``game_<verb>(*, ...)``, keyword-only.

**Lock contract.** Every function that changes a game takes ``SELECT ... FOR UPDATE`` on its
:class:`~games.models.Game` row (:func:`_lock`, inside ``transaction.atomic``) before reading the state,
and changes its ``GamePlayer``/``GameAction`` rows only under that lock; the coin hooks
(:mod:`games.hooks`) run under it too, locking wallets after the game. Everything is written by
:func:`_save` (one statement on PostgreSQL). Side effects (channel-layer broadcasts, arming Celery timers
and CPU moves, the ``game_finished`` signal) are registered with ``transaction.on_commit``, so nothing is
sent for a transaction that rolls back; ``game_finishing`` is sent in the transaction. Never call these
while holding another game's lock.

**Timers.** After every commit the game's timers are armed: ``turn_timeout(game_id, seq)`` for the
stored ``deadline`` and ``bot_play(game_id, seq)`` for the stored ``bot_due_at`` (sent by task name: this
module does not import :mod:`games.tasks`, which calls the entries). Both are no-ops unless the game is
still at that ``seq`` (late, duplicate and redelivered tasks are harmless); nothing is ever revoked. The
beat task ``game_sweep`` catches whatever a lost task missed. With Celery in eager mode (tests) nothing
is armed: tests drive time with ``game_sweep``, ``game_handle_timeout`` and ``game_bot_play``.

Times are in seconds; ``settings.GAMES_TIME_SCALE`` (default 1.0, tests only) scales turn seconds and
the 60 s re-entry window, nothing else. Log lines of the write path go to the ``games.services`` logger.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import Case, Exists, F, OuterRef, Subquery, When
from django.utils import timezone, translation
from psycopg.types.json import Jsonb

from config import fastjson, metrics
from config.celery_app import app as celery_app
from config.compiled import CompiledQuery, Param
from config.errors import ApiError
from games import events as game_events
from games import hooks, selectors
from games.engine import rng as rngmod
from games.engine.registry import get_engine
from games.models import Game, GameAction, GamePlayer
from games.signals import game_finished, game_finishing, game_turn

log = logging.getLogger("games.services")  # one logger for the whole write path (operators filter on it)

def _log(game: Game) -> logging.LoggerAdapter:
    """The module's logger for lines about ``game``: each record carries ``game_id`` and ``seq`` (fields of
    the JSON log lines, LOG_FORMAT=json)."""
    return logging.LoggerAdapter(log, {"game_id": game.pk, "seq": game.seq})

TURN_SECONDS = (30, 60)
REENTRY_SECONDS = 60  # a re-entry window closes after this even with no turn_seconds
CPU_DELAYS = {"fast": 0.5, "normal": 1.5, "slow": 3.0}  # seconds after a window opens
OUTAGE_SECONDS = 5.0  # heartbeat older than this when a deadline passed: renew, do not enforce
STALE_SECONDS = 24 * 3600  # a human awaited this long resigns; a game with no human action is aborted
EARLY_TOLERANCE = timedelta(milliseconds=50)  # a task may fire this much before its time
PRESENCE_SECONDS = 60.0  # a player's request for a game (REST) keeps its seat present this long
PRESENCE_WRITE_SECONDS = 15.0  # the presence of a seat without a socket is written at most this often
PRESENCE_NOTE_SECONDS = 5.0  # a server process writes a player's request time to the cache at most this often
ACTION_ID_MAX = 64
MAX_STEPS_PER_WINDOW = 4  # a seat's decision in one window is at most this many actions
TASK_TURN_TIMEOUT, TASK_BOT_PLAY, TASK_MARK_AWAY = "games.tasks.turn_timeout", "games.tasks.bot_play", "games.tasks.mark_away"
BY_PLAYER, BY_TIMEOUT, BY_AWAY, BY_CPU, BY_SYSTEM = "player", "timeout", "away", "cpu", "system"
PLAYED_FOR = (BY_TIMEOUT, BY_AWAY, BY_CPU)


def _now() -> datetime:
    """The write path's clock (every module of it reads ``locking._now()``: tests replace this one)."""
    return timezone.now()


def _scale() -> float:
    return float(getattr(settings, "GAMES_TIME_SCALE", 1.0) or 1.0)


def _as_id(value) -> int | None:
    """A game id as an int (a decimal string is accepted), or None; ids beyond bigint are None."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        return None
    return value


# ------------------------------------------------------------------------------------------ errors
def _not_found() -> ApiError:
    return ApiError("not_found", "No such game.", 404)


def _not_a_player() -> ApiError:
    return ApiError("not_a_player", "You are not a player in this game.", 403)


def _invalid_action(detail: str, fields: dict | None = None) -> ApiError:
    return ApiError("invalid_action", detail, 400, fields=fields)


def _rule_detail(exc: Exception, generic: str) -> str:
    """The ``detail`` of an engine refusal: the engine's own sentence (which names the seat, card or bet,
    in English: the engine is pure) when the request's language is English, else ``generic``, a sentence
    of the catalogue that ``ApiError.body`` translates."""
    text = str(exc)
    if text and (translation.get_language() or "en").startswith("en"):
        return text
    return generic


def _game_over() -> ApiError:
    return ApiError("game_over", "The game is over.", 409)


# --------------------------------------------------------------------------------------- internals
@dataclass
class _Ctx:
    """A locked game with its engine, decoded state and players, and what the transaction did."""

    game: Game
    engine: Any
    state: dict
    players: dict[int, GamePlayer]
    seqs: dict[int, tuple[str, list]] = field(default_factory=dict)  # seq -> (by, events with audiences)
    new_actions: list[GameAction] = field(default_factory=list)  # log rows to insert at _save
    views: dict[int, dict] = field(default_factory=dict)  # seat -> view already built for the final state
    prior_seq: int | None = None  # the seq of a known action_id (see _lock's ``action_id``)
    dirty_players: set[int] = field(default_factory=set)
    presence: set[int] = field(default_factory=set)  # seats whose presence changed
    finished: bool = False
    rearm: bool = True
    applied: list[str] = field(default_factory=list)  # ``by`` of each action applied (config.metrics)
    watched: bool = True  # a spectator socket was open on the game's room as of the locked read's start
    opened: bool = False  # a decision window opened (``game_turn`` after the commit)


_GAME_ONCE = ("state", "rules")  # the game's JSON columns, read on the first seat's row only


def _lock_queryset(game_id: int, prior: tuple[int, str] | None = None):
    """The one locked read of :func:`_lock`: ``game_id``'s players joined to the game and their users,
    ``FOR UPDATE OF`` players and game, in seat order, each annotated ``watched`` (a spectator socket is
    open on the room whose game this is: ``rooms.Spectator`` with ``connections`` > 0); ``prior``:
    ``(user id, action_id)`` also annotates ``prior_seq``, the seq of that user's log row with that key.

    The game's columns come with every player's row, but its JSON ones (:data:`_GAME_ONCE`: the state,
    the largest, and the rules) only with the first seat's, as ``game_state`` / ``game_rules`` (NULL on
    the others): decoded once, not once a seat."""
    spectators = apps.get_model("rooms", "Spectator").objects.filter(room__game_id=OuterRef("game_id"),
                                                                      connections__gt=0)
    first_seat = GamePlayer.objects.filter(game_id=OuterRef("game_id")).order_by("seat").values("seat")[:1]
    once = {f"game_{name}": Case(When(seat=Subquery(first_seat), then=F(f"game__{name}")),
                                 output_field=Game._meta.get_field(name)) for name in _GAME_ONCE}
    qs = (GamePlayer.objects.filter(game_id=game_id).select_related("game", "user")
          .defer(*(f"game__{name}" for name in _GAME_ONCE))
          .select_for_update(of=("self", "game")).order_by("seat")
          .annotate(watched=Exists(spectators), **once))
    if prior is not None:
        user_id, key = prior
        seq = GameAction.objects.filter(game_id=OuterRef("game_id"), user_id=user_id, action_id=key).values("seq")[:1]
        qs = qs.annotate(prior_seq=Subquery(seq))
    return qs


_GAME_ID, _USER_ID, _ACTION_KEY = Param("game_id", 1), Param("user_id", 2), Param("action_id", 3)
# On PostgreSQL compiled once per process (config.compiled): the action path's read costs its execution.
_WATCHED_CONSTANTS = (0, 1)  # ``connections > 0`` and the ``SELECT 1`` of the ``watched`` Exists
_LOCK_READ = CompiledQuery(lambda: _lock_queryset(_GAME_ID), [_GAME_ID], constants=_WATCHED_CONSTANTS)
_LOCK_READ_PRIOR = CompiledQuery(lambda: _lock_queryset(_GAME_ID, (_USER_ID, str(_ACTION_KEY))),
                                 [_GAME_ID, _USER_ID, _ACTION_KEY], constants=_WATCHED_CONSTANTS)


def _lock(game_id: int, action_id: tuple[Any, str] | None = None) -> _Ctx:
    """Lock ``game_id``'s row and its players' (inside an atomic block) and load them with the players'
    users, in ONE query (:func:`_lock_queryset`; the rows locked are read again as committed when the lock
    was waited for; on PostgreSQL its SQL is compiled once per process). ``action_id``: ``(user, key)``
    also reads the seq of that user's log row with that key into ``prior_seq`` (same query; as of the
    statement's start: a row committed while the lock was waited for is not seen). Raises
    ``Game.DoesNotExist``."""
    prior = None if action_id is None else (action_id[0].pk, action_id[1])
    if connection.vendor != "postgresql":
        rows = list(_lock_queryset(game_id, prior))
    elif prior is None:
        rows = _LOCK_READ.run(game_id=game_id)
    else:
        rows = _LOCK_READ_PRIOR.run(game_id=game_id, user_id=prior[0], action_id=prior[1])
    if not rows:  # a game always has players; without them there is nothing to play
        game = Game.objects.select_for_update().get(pk=game_id)
        rows_game, prior_seq, watched = game, None, True
    else:
        rows_game, prior_seq, watched = rows[0].game, getattr(rows[0], "prior_seq", None), rows[0].watched
        for name in _GAME_ONCE:
            setattr(rows_game, name, getattr(rows[0], f"game_{name}"))
        for gp in rows:
            gp.game = rows_game  # one Game instance (the others are the same row, without its JSON)
    engine = get_engine(rows_game.game)
    return _Ctx(game=rows_game, engine=engine, state=engine.from_dict(rows_game.state),
                players={p.seat: p for p in rows}, prior_seq=prior_seq, watched=watched)


def _lock_or_none(game_id: int, action_id: tuple[Any, str] | None = None) -> _Ctx | None:
    """:func:`_lock`, or ``None`` for a game that does not exist."""
    try:
        return _lock(game_id) if action_id is None else _lock(game_id, action_id)
    except Game.DoesNotExist:
        return None


def _phase(ctx: _Ctx) -> str:
    return ctx.state.get("phase", "")


def _is_reentry(ctx: _Ctx) -> bool:
    return _phase(ctx) == "reentry"


def _window_seconds(game: Game, reentry: bool) -> float | None:
    """Length of a decision window in seconds (scaled), or ``None`` for no timer."""
    if game.turn_seconds:
        return game.turn_seconds * _scale()
    if reentry:
        return REENTRY_SECONDS * _scale()
    return None


def _humans_still_playing(ctx: _Ctx) -> bool:
    """A human seat that has not resigned, is not out and has not left the room."""
    view_players = {p["seat"]: p for p in ctx.engine.view_for(ctx.state, None).get("players", [])}
    for seat, gp in ctx.players.items():
        if gp.cpu or gp.left:
            continue
        vp = view_players.get(seat, {})
        if not vp.get("resigned") and not vp.get("out"):
            return True
    return False


def _controller(ctx: _Ctx, seat: int) -> str | None:
    """Who acts for an awaited ``seat`` at the due time: ``cpu``, ``away`` (played for) or ``None``
    (the player, or nobody before the deadline: an away seat answers a re-entry offer only then)."""
    gp = ctx.players.get(seat)
    if gp is None:
        return None
    if gp.cpu:
        return BY_CPU
    if gp.played_for and not _is_reentry(ctx):
        return BY_AWAY
    return None


def _cpu_delay(ctx: _Ctx) -> float:
    if not _humans_still_playing(ctx):
        return 0.0
    return CPU_DELAYS.get(ctx.game.cpu_speed, CPU_DELAYS["normal"])


def _refresh_times(ctx: _Ctx, now: datetime, window_changed: bool) -> None:
    """Set ``deadline`` (only when the window changed) and ``bot_due_at`` (always recomputed)."""
    game = ctx.game
    if game.status != Game.PLAYING:
        game.deadline = game.bot_due_at = None
        return
    if window_changed:
        ctx.opened = True
        game.window = ctx.engine.window(ctx.state)
        game.window_opened_at = now
        secs = _window_seconds(game, _is_reentry(ctx))
        game.deadline = now + timedelta(seconds=secs) if secs is not None else None
    opened = game.window_opened_at or now
    if any(_controller(ctx, s) for s in ctx.engine.awaiting(ctx.state)):
        due = opened + timedelta(seconds=_cpu_delay(ctx))
        # A seat handed over mid-window acts now, not at a due time long past.
        game.bot_due_at = due
    else:
        game.bot_due_at = None


def _transition(ctx: _Ctx, seat: int | None, action: dict, by: str, user=None, action_id=None,
                now: datetime | None = None) -> GameAction:
    """Apply one action under the lock: engine apply, seq + 1, window/deadline, the log row.

    Raises the engine's ``InvalidAction`` / ``NotYourTurn`` / ``IllegalAction`` before changing anything.
    """
    now = now or _now()
    game = ctx.game
    new_seq = game.seq + 1
    state_in = hooks.coins.prepare(engine=ctx.engine, state=ctx.state, players=ctx.players)
    new_state, events = ctx.engine.apply(state_in, seat, action, rngmod.rng_for_seq(bytes(game.seed), new_seq))
    old_window = game.window
    ctx.state = new_state
    game.state = ctx.engine.to_dict(new_state)
    game.seq = new_seq
    if by == BY_PLAYER:
        game.human_acted = True
    outcome = ctx.engine.outcome(new_state)
    if outcome is not None:
        game.status = Game.FINISHED
        game.result = outcome
        game.finished_at = now
        ctx.finished = True
    _refresh_times(ctx, now, ctx.engine.window(new_state) != old_window)
    row = GameAction(game=game, seq=new_seq, seat=seat, by=by, user=user, action=action, events=events,
                     action_id=action_id, created_at=now)
    ctx.new_actions.append(row)
    hooks.coins.post(game=game, players=ctx.players, seq=new_seq, events=events)
    ctx.seqs[new_seq] = (by, events)
    ctx.views.clear()  # views built for the previous state are stale
    ctx.applied.append(by)
    return row


def _save(ctx: _Ctx) -> None:
    """Write the game, the new log rows and the changed players (one statement on PostgreSQL: see
    :func:`_write`); register the after-commit side effects (:func:`_on_commit`)."""
    _write(ctx.game, ctx.new_actions, [ctx.players[seat] for seat in sorted(ctx.dirty_players)])
    ctx.new_actions = []
    _on_commit(ctx)


def _on_commit(ctx: _Ctx) -> None:
    """Register what follows the commit of ``ctx``'s transaction: the metrics, the broadcast of its seqs and
    presence changes, the timers, and ``game_finished`` when the game ended; a game that ended also sends
    ``game_finishing`` now, in the transaction (after registering, so that what its receivers register
    follows the game's broadcast). The broadcast is built from what the transaction holds in memory (state,
    players, events, views already built): no query after commit."""
    game = ctx.game
    rows = [(seq, by, events) for seq, (by, events) in sorted(ctx.seqs.items())]
    players = [ctx.players[seat] for seat in sorted(ctx.players)]
    state, views = ctx.state, dict(ctx.views)
    presence = sorted(ctx.presence)
    finished, watched = ctx.finished, ctx.watched
    rearm = ctx.rearm
    applied = list(ctx.applied)
    turn_users = _turn_users(ctx) if ctx.opened and not finished else None

    def after_commit() -> None:
        metrics.actions_applied(game.game, applied)
        if rows:
            game_events.broadcast_game(game, players=players, state=state, rows=rows, views=views,
                                       watched=watched)
        if presence:
            game_events.broadcast_presence(game, [p for p in players if p.seat in presence])
        if rearm:
            arm_timers(game)
        if finished:
            game_finished.send(sender=Game, game_id=game.pk)
        if turn_users is not None:
            game_turn.send(sender=Game, game_id=game.pk, game=game.game, group=game.group,
                           user_ids=turn_users, deadline=game.deadline)

    transaction.on_commit(after_commit)
    if finished:
        game_finishing.send(sender=Game, game_id=game.pk)


def _turn_users(ctx: _Ctx) -> list[int]:
    """The users of the human seats the game awaits now, not played for (``game_turn``)."""
    out = []
    for seat in ctx.engine.awaiting(ctx.state):
        gp = ctx.players.get(seat)
        if gp is not None and not gp.cpu and gp.user_id is not None and not gp.played_for:
            out.append(gp.user_id)
    return out


def _write(game: Game, actions: list[GameAction], players: list[GamePlayer]) -> None:
    """Insert ``actions``, update ``game`` and ``players`` (every column, as ``save()`` does). On PostgreSQL
    this is ONE statement (data-modifying CTEs: ``WITH a0 AS (INSERT ...), p0 AS (UPDATE ...) UPDATE game``),
    one round trip, its text built once per process for each count of rows and players
    (:func:`_write_sql`); elsewhere the ORM's ``bulk_create`` and ``save()``. No model signals are sent
    (none are connected to these models)."""
    if connection.vendor != "postgresql" or game.pk is None:
        if actions:
            GameAction.objects.bulk_create(actions)
        game.save()
        for gp in players:
            gp.save()
        return
    conn = connections[DEFAULT_DB_ALIAS]  # the wrapper itself: every field's prep reads it (the proxy is slow)
    params = []
    for row in actions:
        params += [_param(f, row, True, conn) for f in _columns(GameAction)]
    for obj in (*players, game):  # the statement's order: the CTEs', then the game's
        params += [_param(f, obj, False, conn) for f in _columns(type(obj))]
        params.append(obj.pk)
    with conn.cursor() as cursor:
        cursor.execute(_write_sql(len(actions), len(players)), params)


def _param(f, obj, add: bool, conn):
    """``obj``'s value of field ``f`` as :func:`_write` sends it: as ``save()`` would, but a JSON column
    (the state, an action's events and answer: a few KB per action) encoded by orjson
    (:mod:`config.fastjson`) instead of the standard library's ``json.dumps`` that Django gives psycopg's
    ``Jsonb``. The same JSON value is stored (``jsonb`` keeps no formatting)."""
    value = f.get_db_prep_save(f.pre_save(obj, add), conn)
    if isinstance(value, Jsonb) and getattr(f, "encoder", None) is None:
        value.dumps = fastjson.dumps_bytes
    return value


@functools.cache
def _columns(model) -> tuple:
    """``model``'s concrete fields but the primary key, in the order of its columns."""
    return tuple(f for f in model._meta.concrete_fields if not f.primary_key)


@functools.cache
def _write_sql(n_actions: int, n_players: int) -> str:
    """The text of :func:`_write`'s statement for ``n_actions`` log rows and ``n_players`` changed players:
    ``WITH a0 AS (INSERT INTO gameaction ...), ..., p0 AS (UPDATE gameplayer ... WHERE id = %s), ...
    UPDATE game SET ... WHERE id = %s`` (PostgreSQL)."""
    qn = connection.ops.quote_name

    def update(model) -> str:
        return (f"UPDATE {qn(model._meta.db_table)} SET {', '.join(f'{qn(f.column)} = %s' for f in _columns(model))}"
                f" WHERE {qn(model._meta.pk.column)} = %s")

    insert = (f"INSERT INTO {qn(GameAction._meta.db_table)} ({', '.join(qn(f.column) for f in _columns(GameAction))})"
              f" VALUES ({', '.join(['%s'] * len(_columns(GameAction)))})")
    ctes = [f"a{i} AS ({insert})" for i in range(n_actions)]
    ctes += [f"p{i} AS ({update(GamePlayer)})" for i in range(n_players)]
    sql = update(Game)
    return f"WITH {', '.join(ctes)} {sql}" if ctes else sql


def arm_timers(game: Game) -> None:
    """Arm ``turn_timeout``/``bot_play`` (:mod:`games.tasks`, sent by name) for ``game``'s stored deadline
    and due time at its current ``seq`` (no-op in eager mode, see the module docstring). Call after commit
    only."""
    if game.status != Game.PLAYING or celery_app.conf.task_always_eager:
        return
    now = _now()
    try:
        if game.deadline is not None:
            celery_app.send_task(TASK_TURN_TIMEOUT, (game.pk, game.seq),
                                 countdown=max(0.0, (game.deadline - now).total_seconds()))
        if game.bot_due_at is not None:
            celery_app.send_task(TASK_BOT_PLAY, (game.pk, game.seq),
                                 countdown=max(0.0, (game.bot_due_at - now).total_seconds()))
    except Exception:  # the broker is down: the sweeper acts once it is back
        _log(game).exception("could not arm timers for game %s", game.pk)


def _rearm_on_commit(game: Game) -> None:
    """A timer task that came early re-arms the game's timers (never in eager mode: see arm_timers)."""
    transaction.on_commit(lambda: arm_timers(game))


# ------------------------------------------------------------------------------------------ views
def _ctx_view(ctx: _Ctx, seat: int | None) -> dict:
    """``seat``'s view of the locked game, from the players and state already in memory."""
    return selectors.game_view(game=ctx.game, seat=seat, players=list(ctx.players.values()), state=ctx.state)


# ----------------------------------------------------------------------------------- presence
def _human_seat(ctx: _Ctx, user) -> GamePlayer | None:
    """``user``'s human seat among the locked game's players, or ``None`` (also once kicked)."""
    pk = getattr(user, "pk", None)
    if pk is None:
        return None
    return next((p for p in ctx.players.values() if not p.cpu and not p.kicked and p.user_id == pk), None)
