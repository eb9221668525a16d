"""The games services: the one write path and everything that changes a game (DESIGN.md "One write
path", "Time and absence"). HackSoft style: ``game_<verb>(*, ...)``, keyword-only.

**Lock contract.** Every function here that changes a game takes ``SELECT ... FOR UPDATE`` on its
:class:`~games.models.Game` row inside ``transaction.atomic`` before reading the state, and changes its
``GamePlayer``/``GameAction`` rows only under that lock. Side effects (channel-layer broadcasts, arming
Celery timers and CPU moves, the ``game_finished`` signal) are registered with ``transaction.on_commit``,
so nothing is sent for a transaction that rolls back. Never call these while holding another game's lock.

**Timers.** After every commit the game's timers are armed: ``turn_timeout(game_id, seq)`` for the
stored ``deadline`` and ``bot_play(game_id, seq)`` for the stored ``bot_due_at``. Both are no-ops unless
the game is still at that ``seq`` (late, duplicate and redelivered tasks are harmless); nothing is ever
revoked. The beat task :func:`game_sweep` catches whatever a lost task missed. With Celery in eager mode
(tests) nothing is armed: tests drive time with :func:`game_sweep`, :func:`game_handle_timeout` and
:func:`game_bot_play`.

Times are in seconds; ``settings.GAMES_TIME_SCALE`` (default 1.0, tests only) scales turn seconds and
the 60 s re-entry window, nothing else.
"""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models import Case, Exists, F, OuterRef, Subquery, When
from django.dispatch import receiver
from django.utils import timezone, translation
from django.utils.translation import gettext
from psycopg.types.json import Jsonb

from coins import game_coins
from config import fastjson, metrics
from config.audit import audit_record
from config.compiled import CompiledQuery, Param
from config.errors import ApiError
from games import events as game_events
from games import selectors
from games.engine import rng as rngmod
from games.engine.errors import IllegalAction, InvalidAction, InvalidRules, NotYourTurn
from games.engine.registry import GAMES, get_engine
from games.models import Game, GameAction, GamePlayer, SweepHeartbeat

log = logging.getLogger(__name__)


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
BY_PLAYER, BY_TIMEOUT, BY_AWAY, BY_CPU, BY_SYSTEM = "player", "timeout", "away", "cpu", "system"
PLAYED_FOR = (BY_TIMEOUT, BY_AWAY, BY_CPU)


def _now() -> datetime:
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
    state_in = game_coins.game_prepare(engine=ctx.engine, state=ctx.state, players=ctx.players)
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
    game_coins.game_coins_post(game=game, players=ctx.players, seq=new_seq, events=events)
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
            from games.signals import game_finished

            game_finished.send(sender=Game, game_id=game.pk)

    transaction.on_commit(after_commit)
    if finished:
        from games.signals import game_finishing

        game_finishing.send(sender=Game, game_id=game.pk)


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
    """Arm ``turn_timeout``/``bot_play`` for ``game``'s stored deadline and due time at its current
    ``seq`` (no-op in eager mode, see the module docstring). Call after commit only."""
    from config.celery_app import app
    from games import tasks

    if game.status != Game.PLAYING or app.conf.task_always_eager:
        return
    now = _now()
    try:
        if game.deadline is not None:
            tasks.turn_timeout.apply_async((game.pk, game.seq),
                                           countdown=max(0.0, (game.deadline - now).total_seconds()))
        if game.bot_due_at is not None:
            tasks.bot_play.apply_async((game.pk, game.seq),
                                       countdown=max(0.0, (game.bot_due_at - now).total_seconds()))
    except Exception:  # the broker is down: the sweeper acts once it is back
        _log(game).exception("could not arm timers for game %s", game.pk)


def _rearm_on_commit(game: Game) -> None:
    """A timer task that came early re-arms the game's timers (never in eager mode: see arm_timers)."""
    transaction.on_commit(lambda: arm_timers(game))


def _return_seat(ctx: _Ctx, seat: int) -> None:
    """The player is back: not away, no autoplay, timeouts reset."""
    gp = ctx.players[seat]
    if gp.away or gp.autoplay or gp.timeouts_in_row:
        if gp.away or gp.autoplay:
            ctx.presence.add(seat)
        gp.away = gp.autoplay = False
        gp.timeouts_in_row = 0
        ctx.dirty_players.add(seat)


def _policy_action(ctx: _Ctx, seat: int) -> dict:
    """A CPU seat's choice: ``games.bots.<game>.choose`` with ``bot_rng(seed, seq)``; the engine default
    if the policy is missing or answers something not offered."""
    legal = ctx.engine.legal_actions(ctx.state, seat)
    try:
        from importlib import import_module

        bots = import_module(f"games.bots.{ctx.game.game}")
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


def _resolve_actor(ctx: _Ctx, actor) -> tuple[str, int, Any]:
    """``actor`` -> (by, seat, user), from the locked players. Raises 403 ``not_a_player``."""
    if isinstance(actor, tuple):
        by, seat = actor
        if by not in PLAYED_FOR or not isinstance(seat, int) or isinstance(seat, bool):
            raise ValueError(f"bad actor {actor!r}")
        if seat not in ctx.players:
            raise _not_a_player()
        return by, seat, None
    gp = _human_seat(ctx, actor)
    if gp is None:
        raise _not_a_player()
    return BY_PLAYER, gp.seat, actor


def _valid_action_id(action_id: Any) -> bool:
    """A client key the log can hold: a string of 1 to 64 characters, storable."""
    return isinstance(action_id, str) and 1 <= len(action_id) <= ACTION_ID_MAX and _storable(action_id)


def _storable(text: str) -> bool:
    """Whether a text column can hold ``text``: no NUL (PostgreSQL refuses it) and valid Unicode."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_shape(engine, action: Any, expected_seq: Any, action_id: Any) -> None:
    """The action's shape. Raises 400 ``invalid_action``."""
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
        raise _invalid_action("seq must be a non-negative integer (the view's seq).",
                              {"seq": ["A non-negative integer is required."]})
    if action_id is not None and not _valid_action_id(action_id):
        raise _invalid_action("action_id must be a string of 1 to 64 characters.",
                              {"action_id": ["A string of at most 64 characters is required."]})
    if not isinstance(action, dict):
        raise _invalid_action("An action must be a JSON object.")
    check = getattr(engine, "check_action", None)
    try:
        if check is not None:
            check(action)
    except InvalidAction as exc:
        raise _invalid_action(_rule_detail(exc, "Not a valid action for this game.")) from exc


# ------------------------------------------------------------------------------------------ views
def _ctx_view(ctx: _Ctx, seat: int | None) -> dict:
    """``seat``'s view of the locked game, from the players and state already in memory."""
    return selectors.game_view(game=ctx.game, seat=seat, players=list(ctx.players.values()), state=ctx.state)


# ---------------------------------------------------------------------------------------- start
def game_start(*, game: str, rules: dict, seats: list[dict], turn_seconds: int | None, cpu_speed: str,
               ranked: bool, group: str) -> Game:
    """Create and start a game.

    ``game``: engine name; ``rules``: API settings (validated by the engine, every setting resolved and
    stored); ``seats``: ``[{"user": User | None, "cpu": bool, "cpu_level": str | None, "connected": bool
    (optional: the player has a socket open already)}, ...]`` in seat order;
    ``turn_seconds``: None / 30 / 60; ``cpu_speed``: fast / normal / slow; ``group``: live-delivery prefix.
    Makes a secret seed (``rng.new_seed``), the initial state with ``rng_for_seq(seed, 0)``, the log row of
    seq 0, the first window's deadline/due time; after commit arms the timers and broadcasts.
    Raises 400 ``invalid`` (``fields``: ``rules.<setting>`` or ``seats`` / ``turn_seconds`` / ``cpu_speed`` /
    ``game``); with a ``stake``, 409 ``insufficient_coins`` / ``stakes_friends_only`` before anything is
    created or charged (:func:`coins.game_coins.game_stakes_check`), and each human seat pays the stake in
    the same transaction as the creation.
    """
    if game not in GAMES:
        raise ApiError("invalid", f"Unknown game {game!r}.", 400, fields={"game": ["Unknown game."]})
    if turn_seconds is not None and turn_seconds not in TURN_SECONDS:
        raise ApiError("invalid", "turn_seconds must be null, 30 or 60.", 400,
                       fields={"turn_seconds": ["Must be null, 30 or 60."]})
    if cpu_speed not in CPU_DELAYS:
        raise ApiError("invalid", "cpu_speed must be fast, normal or slow.", 400,
                       fields={"cpu_speed": ["Must be fast, normal or slow."]})
    engine = get_engine(game)
    try:
        rules_obj = engine.validate_rules(rules or {}, len(seats))
    except InvalidRules as exc:
        name = "seats" if exc.field == "seats" else f"rules.{exc.field}"
        raise ApiError("invalid", f"{name}: {exc.message}", 400, fields={name: [exc.message]}) from exc
    seed = rngmod.new_seed()
    state, events = engine.initial_state(rules_obj, len(seats), rngmod.rng_for_seq(seed, 0))
    stakers = game_coins.game_stakes_check(rules_obj=rules_obj, seats=seats, ranked=ranked)
    if stakers:  # a staked game: the pot comes first (coins/game_coins.py)
        state, stake_events = engine.stake(state, stakers)
        events = stake_events + events
    now = _now()
    # The game is complete (window, deadline, due time, an outcome) before its INSERT: no UPDATE after it.
    g = Game(game=game, rules=engine.rules_to_dict(rules_obj), state=engine.to_dict(state), seq=0,
             status=Game.PLAYING, window=engine.window(state), seed=seed, turn_seconds=turn_seconds,
             cpu_speed=cpu_speed, ranked=bool(ranked), group=group or "", created_at=now)
    rows = []
    for i, s in enumerate(seats):
        cpu = bool(s.get("cpu"))
        rows.append(GamePlayer(game=g, seat=i, user=None if cpu else s.get("user"), cpu=cpu,
                               cpu_level=(s.get("cpu_level") or "normal") if cpu else None,
                               connected=not cpu and bool(s.get("connected"))))
    ctx = _Ctx(game=g, engine=engine, state=state, players=dict(enumerate(rows)))
    ctx.seqs[0] = (BY_SYSTEM, events)
    outcome = engine.outcome(state)
    if outcome is not None:  # not expected, but a game may be over at once
        g.status, g.result, g.finished_at, ctx.finished = Game.FINISHED, outcome, now, True
    _refresh_times(ctx, now, True)
    # Inside a caller's transaction (a room's start) no savepoint: a failure here fails that transaction.
    with transaction.atomic(savepoint=False):
        g.save(force_insert=True)
        GamePlayer.objects.bulk_create(rows)  # one INSERT; it sets the ids on PostgreSQL and SQLite >= 3.35
        if any(p.pk is None for p in rows):  # an older SQLite: read them back
            ctx.players = dict(enumerate(GamePlayer.objects.filter(game=g).order_by("seat")))
        GameAction.objects.create(game=g, seq=0, seat=None, by=BY_SYSTEM, action={"type": "start"}, events=events,
                                  created_at=now)
        game_coins.game_coins_post(game=g, players=ctx.players, seq=0, events=events)
        _on_commit(ctx)
    return g


# ---------------------------------------------------------------------------------- write path
def _decide(gid: int, actor, expected_seq, action, action_id) -> tuple[_Ctx, dict, bool]:
    """:func:`game_apply_action` under its lock, up to the write: the game locked, the checks in API.md's
    order, the action applied in memory. Returns ``(ctx, the actor's new view, False)``, to be saved, or
    ``(ctx, the first answer, True)`` for a known ``action_id``. Raises the refusals as ``ApiError``, with
    nothing written (a coin posting refused, 409 ``insufficient_coins``, rolled its own savepoint back)."""
    by_player = not isinstance(actor, tuple)
    # Everything is read with the lock, in one query: no look-ups before it to repeat under it.
    key = (actor, action_id) if by_player and getattr(actor, "pk", None) and _valid_action_id(action_id) else None
    ctx = _lock_or_none(gid, key)
    if ctx is None:
        raise _not_found()
    by, seat, user = _resolve_actor(ctx, actor)
    _check_shape(ctx.engine, action, expected_seq, action_id)
    if by != BY_PLAYER:
        action_id = None
    game = ctx.game
    prior = None
    if action_id is not None and ctx.prior_seq is not None:
        prior = GameAction.objects.get(game=game, seq=ctx.prior_seq)
    elif action_id is not None and (game.status != Game.PLAYING or expected_seq != game.seq):
        # The lock may have waited for the very transaction that used this key: read it as committed.
        prior = GameAction.objects.filter(game=game, user=user, action_id=action_id).first()
    if prior is not None:
        if prior.action == action and prior.seq - 1 == expected_seq:
            return ctx, prior.response, True
        raise ApiError("action_id_reused", "This action_id was used with another body.", 409)
    if game.status != Game.PLAYING:
        raise _game_over()
    if expected_seq != game.seq:
        raise ApiError("stale_seq", gettext("seq {expected_seq} is not the current one ({current}).").format(
            expected_seq=expected_seq, current=game.seq), 409,
                       extra={"seq": game.seq, "view": _ctx_view(ctx, seat)})
    try:
        row = _transition(ctx, seat, dict(action), by, user=user, action_id=action_id)
    except NotYourTurn as exc:
        raise ApiError("not_your_turn", _rule_detail(exc, "Not your turn."), 409) from exc
    except IllegalAction as exc:
        raise ApiError("illegal_action", _rule_detail(exc, "Not allowed now."), 400) from exc
    except InvalidAction as exc:
        raise _invalid_action(_rule_detail(exc, "Not a valid action for this game.")) from exc
    if by == BY_PLAYER:
        _return_seat(ctx, seat)
        _present_until(ctx, seat, _now())  # in this transaction's one write: no query
        if ctx.presence:
            _refresh_times(ctx, _now(), False)
    elif by == BY_TIMEOUT:
        _count_timeout(ctx, seat)
    view = ctx.views[seat] = _ctx_view(ctx, seat)  # the actor's answer, and its seat's broadcast
    if action_id is not None:
        row.response = view
    return ctx, view, False


def game_apply_action(*, game_id: int, actor, expected_seq: int, action: dict, action_id: str | None = None) -> dict:
    """THE write path: apply ``action`` for ``actor`` if ``expected_seq`` is current; return the actor's
    new view.

    ``actor``: a ``User`` (a seated player; ``by`` = player) or ``(by, seat)`` with ``by`` in timeout /
    away / cpu. ``action``: the body without ``seq``/``action_id``. ``action_id``: a client key (≤ 64
    chars), scoped to game and user, recorded only with an applied action.

    Errors, in this order (API.md): 404 ``not_found``; 403 ``not_a_player``; 400 ``invalid_action``
    (shape of action, seq, action_id); a known ``action_id`` returns its first answer (another body: 409
    ``action_id_reused``); 409 ``game_over``; 409 ``stale_seq`` (extra ``seq``, ``view``); 409
    ``not_your_turn``; 400 ``illegal_action``. A player's applied action returns the seat (away, autoplay and
    timeouts reset). After commit: the per-seat broadcast (handed off, see :func:`games.events.publish`),
    timers, and ``game_finished`` when the game ended.

    Queries (PostgreSQL): ``BEGIN``; the game locked and read with its players, their users and the
    ``action_id``'s prior seq, in one ``SELECT ... FOR UPDATE OF``; the log row, the game and changed players
    written in one statement; ``COMMIT`` — 4, whatever the game's length and seat count (a resent
    ``action_id`` reads its first answer: one more).
    """
    gid = _as_id(game_id)
    if gid is None:
        raise _not_found()
    refusal = None
    with transaction.atomic():
        try:
            ctx, view, known = _decide(gid, actor, expected_seq, action, action_id)
        except ApiError as exc:
            # Refused before anything was written: the transaction commits instead of rolling back (the
            # same for the database: the lock is let go). psycopg answers a ROLLBACK by dropping the
            # connection's prepared statements (DEALLOCATE ALL, and each is sent unprepared again until
            # it is prepared anew), and a 409 stale_seq is routine while several seats bet at once.
            refusal = exc
        else:
            if known:  # a resent action_id: its first answer, nothing written
                return view
            try:
                _save(ctx)
            except IntegrityError as exc:  # the key was used by a transaction the lock waited for, at another seq
                raise ApiError("action_id_reused", "This action_id was used with another body.", 409) from exc
    if refusal is not None:
        raise refusal
    return view


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
    now = _now()
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
    now = _now()
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
    now = _now()
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
    now = now or _now()
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


# ----------------------------------------------------------------------------------- presence
def _human_seat(ctx: _Ctx, user) -> GamePlayer | None:
    """``user``'s human seat among the locked game's players, or ``None`` (also once kicked)."""
    pk = getattr(user, "pk", None)
    if pk is None:
        return None
    return next((p for p in ctx.players.values() if not p.cpu and not p.kicked and p.user_id == pk), None)


def game_set_connected(*, game_id: int, seat: int, connected: bool, user_id: int | None = None) -> None:
    """The rooms consumer calls this when a seat's first socket opens (``True``) or its last closes
    (``False``). Opening returns the seat at once (not away, timeouts reset); closing only records
    ``disconnected_at``: the seat becomes away when ``mark_away`` runs after ``AWAY_GRACE_SECONDS`` (or
    the sweeper finds it). Also for a finished game (its view keeps ``connected`` current; no timers).
    ``user_id``: the seat must be that user's (a finished game's seat index may be someone else's in the
    room now). The change goes out as a ``presence`` message only. Locks the game. Unknown game or seat,
    or another user's seat: no-op.
    """
    now = _now()
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
                from config.celery_app import app
                from games import tasks

                if app.conf.task_always_eager:
                    return
                try:
                    tasks.mark_away.apply_async((game_pk, seat, since.isoformat()), countdown=grace)
                except Exception:
                    glog.exception("could not arm mark_away for game %s seat %s", game_pk, seat)

            transaction.on_commit(arm_away)


def game_mark_away(*, game_id: int, seat: int, since: datetime | None = None) -> bool:
    """The ``mark_away`` task / sweeper: the seat becomes away if it is still disconnected since
    ``since`` (the ``disconnected_at`` the grace period was counted from) and the grace period has
    passed. Locks the game. Returns True if the seat became away."""
    now = _now()
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
        _refresh_times(ctx, _now(), False)
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
        _refresh_times(ctx, _now(), False)
        _save(ctx)
        return gp.seat


# ------------------------------------------------------------------------------------- endings
def game_abort(*, game_id: int, reason: str) -> bool:
    """Abort a playing game, unrated: status ``aborted``, result ``{standing: [], reason: "aborted"}``,
    the seed revealed; one log row (``by`` system, ``action`` ``{"type": "abort", "reason"}``, public event
    ``game_aborted``; in a staked game also ``pot_refunded {refunds: [{seat, coins}]}`` and the result's
    ``pot {total, refunds}``: every coin paid into the pot goes back) so seq moves on. After commit:
    broadcasts and ``game_finished`` (receivers check the status). Locks the game. Returns False if it was
    not playing."""
    with transaction.atomic():
        ctx = _lock_or_none(game_id)
        if ctx is None:
            return False
        now = _now()  # after the lock: the row logged last may have committed while it was waited for
        game = ctx.game
        if game.status != Game.PLAYING:
            return False
        game.seq += 1
        game.status = Game.ABORTED
        game.result = {"standing": [], "reason": "aborted"}
        game.finished_at = now
        game.deadline = game.bot_due_at = None
        events = [{"type": "game_aborted", "audience": "all", "reason": str(reason)[:64]}]
        refunds = game_coins.game_refund(game=game, players=ctx.players)
        if refunds:  # a staked game: every stake and re-entry paid goes back (coins/game_coins.py)
            game.result["pot"] = {"total": sum(r["coins"] for r in refunds), "refunds": refunds}
            events.append({"type": "pot_refunded", "audience": "all", "refunds": refunds})
        ctx.new_actions.append(GameAction(game=game, seq=game.seq, seat=None, by=BY_SYSTEM,
                                          action={"type": "abort", "reason": str(reason)[:64]}, events=events,
                                          created_at=now))
        ctx.seqs[game.seq] = (BY_SYSTEM, events)
        ctx.finished = True
        _save(ctx)
        return True


def game_moderator_abort(*, game_id: int, by, reason: str) -> bool:
    """A moderator aborts a playing game (:func:`game_abort`, unrated; the players see the ``game`` message
    with status ``aborted`` and the public event ``game_aborted`` with reason ``moderator``). ``reason``
    (the moderator's, not shown to players) goes to the audit row with ``by``. Returns False (and writes
    nothing) if the game was not playing."""

    with transaction.atomic():
        if not game_abort(game_id=game_id, reason="moderator"):
            return False
        game = Game.objects.get(pk=game_id)
        audit_record(actor=by, action="game_abort", target=game, reason=reason,
                     changes={"status": [Game.PLAYING, Game.ABORTED]})
        return True


def game_resign_stale(*, game_id: int) -> bool:
    """A human seat awaited for 24 h resigns (``by`` timeout): for every present human seat still awaited
    in a window open for 24 h or more. Locks the game. Returns True if anyone resigned."""
    now = _now()
    with transaction.atomic():
        ctx = _lock_or_none(game_id)
        if ctx is None:
            return False
        game = ctx.game
        if (game.status != Game.PLAYING or game.window_opened_at is None
                or (now - game.window_opened_at).total_seconds() < STALE_SECONDS):
            return False
        window = game.window
        done = False
        for seat in list(ctx.engine.awaiting(ctx.state)):
            gp = ctx.players.get(seat)
            if game.status != Game.PLAYING or game.window != window or gp is None or gp.cpu:
                continue
            if {"type": "resign"} not in ctx.engine.other_actions(ctx.state, seat):
                continue
            _transition(ctx, seat, {"type": "resign"}, BY_TIMEOUT, now=now)
            done = True
        if done:
            _save(ctx)
        return done
