"""Hooks of the games write path that an upper app fills in at start-up (its ``AppConfig.ready()``).

Games announces what happened with signals (:mod:`games.signals`); a hook is for what must happen INSIDE
the game's locked transaction and may VETO it, which a signal cannot do cleanly. There is one set, the
coins of a staked game, registered by the coins app (:mod:`coins.game_coins`); games never imports coins.
Each hook runs under the game's row lock (game row first, then whatever the hook locks):

- ``stakes_check(*, rules_obj, seats, ranked) -> list[int]``: before a game is created (``game_start``):
  the seats that stake, ``[]`` for none; raises an ``ApiError`` (409 ``insufficient_coins`` /
  ``stakes_friends_only``) to refuse the start, with nothing created.
- ``prepare(*, engine, state, players) -> state``: before each transition (the state the engine applies).
- ``post(*, game, players, seq, events) -> None``: after each transition and at the start: the coin
  movements of ``events``; raises 409 ``insufficient_coins`` to refuse the action (its savepoint rolls back).
- ``refund(*, game, players) -> list[dict]``: when a game is aborted: ``[{seat, coins}]`` given back.

With nothing registered, no game moves a coin (the defaults below).

And one question games' API asks the rooms app (registered by rooms from its ``ready()``):

- ``watchable(*, game_id) -> bool``: whether users without a seat may watch the game (its room lets
  them). With nothing registered nobody watches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _no_stakers(*, rules_obj, seats, ranked) -> list[int]:
    return []


def _state_as_is(*, engine, state, players):
    return state


def _nothing(**kwargs) -> None:
    return None


def _no_refunds(*, game, players) -> list[dict]:
    return []


@dataclass
class CoinHooks:
    """The coin hooks of the write path (see the module docstring for each one's contract)."""

    stakes_check: Any = _no_stakers
    prepare: Any = _state_as_is
    post: Any = _nothing
    refund: Any = _no_refunds


coins = CoinHooks()


def _nobody_watches(*, game_id) -> bool:
    return False


@dataclass
class WatchHooks:
    """Who may watch a game (see the module docstring)."""

    watchable: Any = _nobody_watches


watch = WatchHooks()


def register_watch(*, watchable) -> None:
    """Install the ``watchable`` question (the rooms app, from its ``ready()``)."""
    watch.watchable = watchable


def register_coins(*, stakes_check, prepare, post, refund) -> None:
    """Install the coin hooks (the coins app, from its ``ready()``); a second call replaces them."""
    coins.stakes_check, coins.prepare, coins.post, coins.refund = stakes_check, prepare, post, refund
