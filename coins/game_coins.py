"""The coin hooks of the games write path (registered into :mod:`games.hooks` by :func:`register`, from
``CoinsConfig.ready()``; the write path calls them inside the game's locked transaction; game row first,
then wallets in user-id order).

The engine keeps the pot and reports every movement as an event (``stake``, ``reentry_paid``,
``pot_won``: see :mod:`games.engine.chinchon` "Coins"); :func:`game_coins_post` turns those events into
ledger rows, each keyed so that it is written once whatever retries or races happen:
``stake:<game>``, ``reentry:<game>:<seq>``, ``pot:<game>``, ``refund:<game>``. CPU seats have no wallet
and never pay or win. Games without a ``stake`` cost one attribute read here.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from django.db import connection, transaction
from django.db.models import Sum
from django.utils.translation import gettext

from coins import selectors
from coins.models import LedgerEntry
from coins.services import InsufficientCoins, _post, lock_wallets
from config.errors import ApiError
from games import hooks
from ranking.selectors import friend_ids

Reason = LedgerEntry.Reason


def _stake_of(rules_obj) -> int:
    return int(getattr(rules_obj, "stake", 0) or 0)


def _reentry_cost_of(rules_obj) -> int:
    """Coins a re-entry costs (the ``reentry_fee`` setting, or the stake when it is None); 0 for a game
    without the setting."""
    fee = getattr(rules_obj, "reentry_fee", None)
    return _stake_of(rules_obj) if fee is None else int(fee)


def game_stakes_check(*, rules_obj, seats: list[dict], ranked: bool) -> list[int]:
    """Before a game is created: the seats that will stake (the human ones), or ``[]`` with no stake and
    no re-entry cost (with a re-entry fee alone they are the seats that may pay it; nothing is charged).

    Raises 409 ``stakes_friends_only`` (a ranked room with a stake or a re-entry cost whose players are not
    all friends of each other) and 409 ``insufficient_coins`` with ``seats`` (those whose wallets hold less than the stake),
    ``needed`` (the stake) — nothing is charged then. ``seats``: ``game_start``'s seat dicts."""
    amount = _stake_of(rules_obj)
    if not amount and not _reentry_cost_of(rules_obj):
        return []
    humans = {i: s["user"].pk for i, s in enumerate(seats) if not s.get("cpu") and s.get("user") is not None}
    if ranked:
        friends = {uid: friend_ids(uid) for uid in humans.values()}
        if any(b not in friends[a] for a, b in combinations(humans.values(), 2)):
            raise ApiError("stakes_friends_only",
                           gettext("Ranked games may be played for a stake only among friends."), 409)
    if not amount:  # a re-entry fee alone: the human seats may pay it later, nothing is charged now
        return sorted(humans)
    held = selectors.balances(user_ids=list(humans.values()))
    short = sorted(seat for seat, uid in humans.items() if held[uid] < amount)
    if short:
        detail = gettext("The stake is {amount} coins; seats that cannot pay it: {seats}.").format(
            amount=amount, seats=", ".join(map(str, short)))
        raise InsufficientCoins(detail, needed=amount, seats=short)
    return sorted(humans)


def game_prepare(*, engine, state: dict, players: dict) -> dict:
    """Before a transition: tell the engine which seats can pay a re-entry now (only when the game is
    staked and the transition may open re-entry offers; otherwise ``state`` as it is). The engine reads
    that list in the next transition only (it is never stored)."""
    needed = getattr(engine, "solvency_needed", None)
    cost = needed(state) if needed is not None else 0
    if not cost:
        return state
    users = {seat: gp.user_id for seat, gp in players.items()
             if not gp.cpu and not gp.left and gp.user_id is not None}  # a seat its player left: never offered
    held = selectors.balances(user_ids=list(users.values()))
    return engine.set_solvent(state, [seat for seat, uid in users.items() if held[uid] >= cost])


def game_coins_post(*, game, players: dict, seq: int, events: list[dict]) -> None:
    """After the engine produced ``events`` at ``seq``: post their coin movements on the seats' wallets.
    ``stake {seats, amount}`` -> each seat pays; ``reentry_paid {seat, amount}`` -> the seat pays.
    (``pot_won`` moves nothing here: the pot is paid when the game finishes, by the rule of
    :mod:`coins.pot`.) Raises 409 ``insufficient_coins`` (the caller's
    transaction then rolls back: nothing happened)."""
    moves: list[tuple[int, int, str, str]] = []  # (user id, amount, reason, key)
    for ev in events:
        kind = ev.get("type")
        if kind == "pot_won":
            pots_pending().add(game.pk)
        if kind == "stake":
            moves += [(seat, -ev["amount"], Reason.STAKE, f"stake:{game.pk}") for seat in ev["seats"]]
        elif kind == "reentry_paid":
            moves.append((ev["seat"], -ev["amount"], Reason.REENTRY, f"reentry:{game.pk}:{seq}"))
    moves = [(players[seat].user_id, amount, reason, key) for seat, amount, reason, key in moves
             if seat in players and not players[seat].cpu and players[seat].user_id is not None]
    if not moves:
        return
    with transaction.atomic():  # the game's transaction (a savepoint), or its own when called alone
        wallets = lock_wallets(uid for uid, *_ in moves)
        for uid, amount, reason, key in moves:
            _post(wallets[uid], amount, reason, key=key, game_id=game.pk)


def pots_pending() -> set[int]:
    """The ids of games whose ``pot_won`` was reported in this connection's transaction and not yet settled
    (:func:`coins.pot.game_pot_settle` runs for those alone: an unstaked game's finish costs no query)."""
    if not hasattr(connection, "coins_pots_pending"):
        connection.coins_pots_pending = set()
    return connection.coins_pots_pending


def game_refund(*, game, players: dict) -> list[dict]:
    """An aborted game gives every wallet back what it paid into the pot (stakes and re-entries), once
    (key ``refund:<game>``). Returns ``[{seat, coins}]`` in seat order (``[]`` for an unstaked game)."""
    paid: dict[int, int] = defaultdict(int)
    rows = (LedgerEntry.objects.filter(game=game, reason__in=[Reason.STAKE, Reason.REENTRY])
            .values("wallet_id").annotate(total=Sum("amount")))
    for row in rows:
        paid[row["wallet_id"]] -= row["total"]
    if not paid:
        return []
    with transaction.atomic():
        wallets = lock_wallets(paid)
        for uid in sorted(paid):
            _post(wallets[uid], paid[uid], Reason.REFUND, key=f"refund:{game.pk}", game_id=game.pk)
    seats = {gp.user_id: seat for seat, gp in players.items() if not gp.cpu}
    return sorted(({"seat": seats.get(uid), "coins": coins} for uid, coins in paid.items()),
                  key=lambda r: (r["seat"] is None, r["seat"] or 0))


def register() -> None:
    """Install these functions as the write path's coin hooks (:func:`games.hooks.register_coins`)."""
    hooks.register_coins(stakes_check=game_stakes_check, prepare=game_prepare, post=game_coins_post,
                         refund=game_refund)
