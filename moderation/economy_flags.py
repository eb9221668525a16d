"""Integrity flags for coins and XP (docs/economy.md "What moderators see"), raised after every finished
game beside the ranked-play ones (:func:`moderation.services.integrity_check_game`), in the same
``IntegrityFlag`` queue: ``user`` the account that gained, ``other`` the account it gained from.

- ``pot_farming``: ``user`` took a pot while ``other``'s stake stayed in it in at least
  :data:`POT_FARMING_GAMES` games within :data:`WINDOW`;
- ``stake_feeder``: ``other`` lost its stake in at least :data:`FEEDER_GAMES` games within :data:`WINDOW`,
  won none, and ``user`` took the pot in at least :data:`FEEDER_SHARE` of them;
- ``quit_farming``: every human opponent of ``user`` quit before ``MIN_DECISIONS`` decisions (and no CPU
  sat with them) in at least :data:`QUIT_FARMING_GAMES` games within :data:`WINDOW`; ``other`` the one who
  did so most often (the lowest id among equals).

The rule (:mod:`ranking.eligibility`) already keeps such games from paying; the flags show who tries.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from coins.models import LedgerEntry
from coins.pot import pots_taken
from games.models import Game
from moderation.services import _flag
from ranking import eligibility
from ranking.models import SeatCredit

WINDOW = timedelta(days=7)
POT_FARMING_GAMES = 5
FEEDER_GAMES = 3
FEEDER_SHARE = 0.8
QUIT_FARMING_GAMES = 5

Reason = LedgerEntry.Reason


def _lost_stakes(user_id: int, since) -> dict[int, set[int]]:
    """``{game_id: {winner ids}}``: games since ``since`` where ``user_id`` staked, was not refunded and
    took no pot, with the wallets that took that game's pot."""
    staked = set(LedgerEntry.objects.filter(wallet_id=user_id, reason=Reason.STAKE, created_at__gte=since)
                 .values_list("game_id", flat=True))
    kept = set(LedgerEntry.objects.filter(wallet_id=user_id, reason__in=[Reason.REFUND, Reason.POT, Reason.VOID],
                                          game_id__in=staked).values_list("game_id", flat=True))
    lost = staked - kept - {None}
    out: dict[int, set[int]] = {g: set() for g in lost}
    for wallet, game in LedgerEntry.objects.filter(reason=Reason.POT, game_id__in=lost).values_list(
            "wallet_id", "game_id"):
        out[game].add(wallet)
    return out


@transaction.atomic
def economy_check_game(*, game_id: int, now=None) -> list:
    """Raise (or refresh) the coin and XP flags the players of finished game ``game_id`` now meet; returns
    them. An unknown, playing or aborted game raises none."""
    game = Game.objects.filter(pk=game_id).first()
    credits = eligibility.game_credits(game)
    if not credits:
        return []
    now = now or timezone.now()
    since = now - WINDOW
    users = sorted({c.user_id for c in credits.values()})
    flags = []
    taken = pots_taken(winners=users, payers=users, since=since, exclude_game=0)
    for (winner, payer), n in sorted(taken.items()):
        if n >= POT_FARMING_GAMES:
            flags.append(_flag("pot_farming", game.game, winner, payer, {
                "games_paid": n, "window_days": WINDOW.days}))
    for payer in users:
        lost = _lost_stakes(payer, since)
        if len(lost) < FEEDER_GAMES:
            continue
        by_winner = Counter(w for winners in lost.values() for w in winners)
        winner, n = max(by_winner.items(), key=lambda kv: (kv[1], -kv[0]), default=(None, 0))
        if winner is not None and n / len(lost) >= FEEDER_SHARE:
            flags.append(_flag("stake_feeder", game.game, winner, payer, {
                "games": sorted(lost), "stakes_lost": len(lost), "to_this_player": n, "window_days": WINDOW.days}))
    for user in users:
        mine = list(SeatCredit.objects.filter(user_id=user, created_at__gte=since, cpu_opponent=False)
                    .values_list("game_id", flat=True))
        others = defaultdict(list)
        for gid, uid, played in SeatCredit.objects.filter(game_id__in=mine).exclude(user_id=user).values_list(
                "game_id", "user_id", "played"):
            others[gid].append((uid, played))
        alone = {gid: [u for u, _ in rows] for gid, rows in others.items() if rows and not any(p for _, p in rows)}
        if len(alone) < QUIT_FARMING_GAMES:
            continue
        quitter, n = max(Counter(u for us in alone.values() for u in us).items(), key=lambda kv: (kv[1], -kv[0]))
        flags.append(_flag("quit_farming", game.game, user, quitter, {
            "games": sorted(alone), "games_alone": len(alone), "by_this_player": n, "window_days": WINDOW.days}))
    return flags
