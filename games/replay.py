"""The fairness replay check (API.md "fairness", scheme hmac-sha256-seq-v1), shared by ``manage.py
replay_game`` and the admin's "Verify replay" button.

:func:`game_replay_check` replays a game from its seed and action log: sha256(seed) must be the commitment
shown; the initial state from ``rng_for_seq(seed, 0)`` must give the logged start events; every logged
action applied with ``rng_for_seq(seed, seq)`` must give the logged events; the final state and the result
must equal the stored ones. The first difference raises :class:`ReplayMismatch`. A staked Chinchón game
replays its pot too: the ``stake`` event of seq 0 and, before each close, who could pay a re-entry (read
back from the offers made; games.engine.chinchon "Coins"). The start events include Chinchón's draw for
the first mano (``mano_draw``, ``first_mano: high_card``). A game stored before a setting existed
replays with the value its state reads (:func:`_rules_played`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from games.engine import rng as rngmod
from games.engine.registry import get_engine
from games.models import Game, GameAction


class ReplayMismatch(Exception):
    """The replay differs from the record; the message says where (``"seq 12: the events differ"``)."""


@dataclass(frozen=True)
class ReplayResult:
    """A replay that matched: ``actions`` replayed (the start excluded), the ``commitment`` checked and
    the ``result`` reached."""

    actions: int
    commitment: str
    result: dict | None


def _rules_played(engine, game: Game, n: int) -> tuple[object, set[str]]:
    """The rules ``game`` was played with, and the settings added to the engine since it started.

    The room's settings are validated as at the start, except that a setting the stored state's rules do
    not hold (added after the game started: e.g. Chinchón's ``first_mano``, whose ``traditional`` value
    now draws cards at the start) takes the value such a state reads with (``rules_from_dict``: its
    default, the behaviour of the time), so a game replays as it was played."""
    rules = engine.validate_rules(game.rules, n)
    stored = (game.state or {}).get("rules")
    if not isinstance(stored, dict):
        return rules, set()
    added = set(engine.rules_to_dict(rules)) - set(stored)
    if added:
        then = engine.rules_from_dict(stored)
        rules = replace(rules, **{k: getattr(then, k) for k in added})
    return rules, added


def game_replay_check(game: Game, seed: bytes | None = None) -> ReplayResult:
    """Replay ``game`` from ``seed`` (default its stored seed) and its log; raises :class:`ReplayMismatch`
    at the first difference. Reads only."""
    seed = bytes(game.seed) if seed is None else seed
    if rngmod.commitment(seed) != rngmod.commitment(bytes(game.seed)):
        raise ReplayMismatch("the seed does not match the game's commitment")
    engine = get_engine(game.game)
    n = game.players.count()
    rules, added = _rules_played(engine, game, n)
    state, events = engine.initial_state(rules, n, rngmod.rng_for_seq(seed, 0))
    rows = list(GameAction.objects.filter(game=game).order_by("seq"))
    if not rows or rows[0].seq != 0:
        raise ReplayMismatch("the log has no start row")
    staked = next((e for e in rows[0].events if e.get("type") == "stake"), None)
    if staked is not None:  # a staked game: the pot comes first
        state, stake_events = engine.stake(state, staked["seats"])
        events = stake_events + events
    if rows[0].events != events:
        raise ReplayMismatch("seq 0: the start events differ")
    aborted = False
    for row in rows[1:]:
        if row.action.get("type") == "abort" and row.seat is None:
            aborted = True
            continue
        if staked is not None and engine.solvency_needed(state):
            # Who could pay a re-entry then is read back from the offers made (only they matter).
            offers = [e["seats"] for e in row.events if e.get("type") == "reentry_offer"]
            state = engine.set_solvent(state, offers[0] if offers else [])
        state, events = engine.apply(state, row.seat, row.action, rngmod.rng_for_seq(seed, row.seq))
        if events != row.events:
            raise ReplayMismatch(f"seq {row.seq}: the events differ")
    final = engine.to_dict(state)
    if added:  # the stored state predates these settings: it never held them
        final["rules"] = {k: v for k, v in final["rules"].items() if k not in added}
    if final != game.state:
        raise ReplayMismatch("the final state differs")
    outcome = {"standing": [], "reason": "aborted"} if aborted else engine.outcome(state)
    if aborted and "pot" in (game.result or {}):  # the refunds are the service's, not the engine's
        outcome["pot"] = game.result["pot"]
    if outcome != game.result:
        raise ReplayMismatch(f"the result differs: replayed {outcome}, stored {game.result}")
    return ReplayResult(actions=len(rows) - 1, commitment=rngmod.commitment(seed), result=outcome)
