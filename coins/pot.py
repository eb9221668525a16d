"""Paying a finished game's pot by the rule of :mod:`ranking.eligibility` (docs/economy.md "The pot").

The engine decides who is placed first and reports ``pot_won`` with the table's payouts; the coins move
here, when the game finishes (``games.signals.game_finishing``: inside the game's transaction, game row
first, then the players' advisory locks of the verdict, then wallets in user-id order — nothing locks a
wallet and then a game, so there is no lock cycle). Every coin paid in (stake, re-entries) ends in exactly
one place: a winner's ``pot`` row (key ``pot:<game>``), its payer's ``refund`` row (key ``refund:<game>``),
or nowhere (forfeited by a seat that quit before ``MIN_DECISIONS`` decisions: its ``stake`` row stands).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from coins.models import LedgerEntry
from coins.services import _post, lock_wallets
from games.models import Game, GamePlayer
from ranking import eligibility

Reason = LedgerEntry.Reason


def paid_into_pot(game_id: int) -> dict[int, int]:
    """``{user_id: coins}`` each wallet paid into ``game_id``'s pot (stake and re-entries, positive)."""
    rows = (LedgerEntry.objects.filter(game_id=game_id, reason__in=[Reason.STAKE, Reason.REENTRY])
            .values("wallet_id").annotate(total=Sum("amount")))
    return {r["wallet_id"]: -r["total"] for r in rows if r["total"]}


def pots_taken(*, winners, payers, since, exclude_game: int) -> dict[tuple[int, int], int]:
    """``{(winner, payer): n}``: games since ``since`` (not ``exclude_game``) in which ``winner`` was paid a
    pot while ``payer``'s stake stayed in it (the payer staked and was not refunded)."""
    won = defaultdict(set)
    for uid, gid in (LedgerEntry.objects.filter(wallet_id__in=list(winners), reason=Reason.POT, created_at__gte=since)
                     .exclude(game_id=exclude_game).values_list("wallet_id", "game_id")):
        won[uid].add(gid)
    games = set().union(*won.values()) if won else set()
    staked = defaultdict(set)
    for uid, gid in LedgerEntry.objects.filter(wallet_id__in=list(payers), reason=Reason.STAKE,
                                               game_id__in=games).values_list("wallet_id", "game_id"):
        staked[uid].add(gid)
    for uid, gid in LedgerEntry.objects.filter(wallet_id__in=list(payers), reason=Reason.REFUND,
                                               game_id__in=games).values_list("wallet_id", "game_id"):
        staked[uid].discard(gid)
    return {(w, p): len(won[w] & staked[p]) for w in winners for p in payers if w != p}


def game_pot_settle(*, game_id: int) -> dict | None:
    """Pay a finished staked game's pot once (keys make a second run write nothing). Returns ``{"pot",
    "refund", "forfeit"}`` (each ``{seat: coins}``), or ``None`` for a game with no pot."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.FINISHED or not isinstance(game.result, dict):
        return None
    pot = game.result.get("pot")
    if not isinstance(pot, dict) or "payouts" not in pot:
        return None
    by_user = paid_into_pot(game.pk)
    if not by_user:
        return None
    seat_of = {}
    for seat, uid in GamePlayer.objects.filter(game=game, cpu=False, user__isnull=False).order_by("seat").values_list(
            "seat", "user_id"):
        seat_of.setdefault(uid, seat)
    user_of = {s: u for u, s in seat_of.items()}
    paid = {seat_of[u]: coins for u, coins in by_user.items() if u in seat_of}
    sharers = sorted(int(p["seat"]) for p in pot["payouts"] if isinstance(p, dict) and "seat" in p)
    with transaction.atomic():
        credits = eligibility.game_credits(game)
        wallets = lock_wallets(set(by_user) | {user_of[s] for s in sharers if s in user_of})
        winners = [user_of[s] for s in sharers if s in user_of]
        taken = pots_taken(winners=winners, payers=list(by_user), since=timezone.now() - timedelta(hours=24),
                           exclude_game=game.pk)
        split = eligibility.pot_split(credits=credits, paid=paid, sharers=sharers, paid_before=taken)
        for seat, coins in split["pot"].items():
            _post(wallets[user_of[seat]], coins, Reason.POT, key=f"pot:{game.pk}", game_id=game.pk)
        for seat, coins in split["refund"].items():
            _post(wallets[user_of[seat]], coins, Reason.REFUND, key=f"refund:{game.pk}", game_id=game.pk,
                  note="not won by anyone: see docs/economy.md")
    return split
