"""A game's start and end: :func:`game_start`, :func:`game_abort` (and :func:`game_moderator_abort`),
:func:`game_resign_stale`. A game's end is announced (``game_finishing`` in the transaction,
``game_finished`` after the commit: :mod:`games.signals`); a staked game's pot goes through the coin hooks
(:mod:`games.hooks`), which may refuse a start (409 ``insufficient_coins`` / ``stakes_friends_only``).

Lock contract (:mod:`games.locking`): a start creates the game in its caller's transaction (no
savepoint); an abort or a stale resignation locks the game first, in its own transaction.
"""

from __future__ import annotations

from django.db import transaction

from config.audit import audit_record
from config.errors import ApiError
from games import hooks, locking
from games.engine import rng as rngmod
from games.engine.errors import InvalidRules
from games.engine.registry import GAMES, get_engine
from games.locking import (
    BY_SYSTEM,
    BY_TIMEOUT,
    CPU_DELAYS,
    STALE_SECONDS,
    TURN_SECONDS,
    _Ctx,
    _lock_or_none,
    _on_commit,
    _refresh_times,
    _save,
    _transition,
)
from games.models import Game, GameAction, GamePlayer


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
    created or charged (the ``stakes_check`` hook, :mod:`games.hooks`), and each human seat pays the stake in
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
    stakers = hooks.coins.stakes_check(rules_obj=rules_obj, seats=seats, ranked=ranked)
    if stakers:  # a staked game: the pot comes first (the coin hooks, games/hooks.py)
        state, stake_events = engine.stake(state, stakers)
        events = stake_events + events
    now = locking._now()
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
        hooks.coins.post(game=g, players=ctx.players, seq=0, events=events)
        _on_commit(ctx)
    return g



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
        now = locking._now()  # after the lock: the row logged last may have committed while it was waited for
        game = ctx.game
        if game.status != Game.PLAYING:
            return False
        game.seq += 1
        game.status = Game.ABORTED
        game.result = {"standing": [], "reason": "aborted"}
        game.finished_at = now
        game.deadline = game.bot_due_at = None
        events = [{"type": "game_aborted", "audience": "all", "reason": str(reason)[:64]}]
        refunds = hooks.coins.refund(game=game, players=ctx.players)
        if refunds:  # a staked game: every stake and re-entry paid goes back (the coin hooks, games/hooks.py)
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
    now = locking._now()
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
