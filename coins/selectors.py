"""Read-only queries of coins (no locks)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext

from coins import challenges, rules
from coins.models import LedgerEntry, Wallet
from coins.rules import daily_key
from ranking.models import GameRecord


def ledger_of(*, user_id: int) -> QuerySet[LedgerEntry]:
    """The wallet's ledger, newest first."""
    return LedgerEntry.objects.filter(wallet_id=user_id).order_by("-id")


def daily_grant_status(*, wallet: Wallet, now: datetime | None = None) -> dict:
    """``{"amount", "available", "next_at"}``: coins the daily grant would give now (0 when the balance is
    not below ``rules.DAILY_TOP_UP``), whether it may be claimed now, and the start of the next UTC day."""
    now = now or timezone.now()
    claimed = LedgerEntry.objects.filter(wallet=wallet, key=daily_key(now)).exists()
    amount = max(0, rules.DAILY_TOP_UP - wallet.balance)
    today = now.astimezone(timezone.get_fixed_timezone(0)).replace(hour=0, minute=0, second=0, microsecond=0)
    return {"amount": amount, "available": bool(amount) and not claimed, "next_at": today + timedelta(days=1)}


def balances(*, user_ids) -> dict[int, int]:
    """``{user_id: balance}`` of the users' wallets (a user with no wallet yet: the start grant)."""
    found = dict(Wallet.objects.filter(pk__in=list(user_ids)).values_list("pk", "balance"))
    return {uid: found.get(uid, rules.START_GRANT) for uid in user_ids}


def challenge_rows(*, user_id: int, now: datetime | None = None) -> list[dict]:
    """The challenges active at ``now`` with the user's progress (:mod:`coins.challenges`): ``[{id, game,
    period, name, description, metric, target, progress, completed, claimed, reward: {coins, xp}, starts_at,
    ends_at, period_key, claim_key}]`` (``progress`` capped at ``target``). Two aggregate queries over the
    user's ``GameRecord`` rows (one per period kind) and one over the ledger."""
    now = now or timezone.now()
    items = challenges.active(now)
    counted = Q(counts=True)  # the one rule of what a game earns: ranking.eligibility
    facts = [m for m in challenges.METRICS if m not in ("games", "wins")]
    values: dict[tuple[str, str], dict] = {}
    for period in {p.kind: p for _, p in items}.values():
        rows = (GameRecord.objects.filter(counted, user_id=user_id, finished_at__gte=period.start,
                                          finished_at__lt=period.end)
                .values("game_name")
                .annotate(games=Count("id"), wins=Count("id", filter=Q(win_counts=True)), **{m: Sum(m) for m in facts}))
        for row in rows:
            values[(row["game_name"], period.kind)] = row
    keys = {c.id: f"challenge:{c.id}:{p.key}" for c, p in items}
    claimed = set(LedgerEntry.objects.filter(wallet_id=user_id, key__in=list(keys.values()))
                  .values_list("key", flat=True))
    out = []
    for c, p in items:
        value = (values.get((c.game, p.kind)) or {}).get(c.metric) or 0
        out.append({
            "id": c.id, "game": c.game, "period": c.period, "name": gettext(c.name),
            "description": gettext(c.description), "metric": c.metric, "target": c.target,
            "progress": min(value, c.target), "completed": value >= c.target, "claimed": keys[c.id] in claimed,
            "reward": {"coins": c.coins, "xp": c.xp}, "starts_at": p.start, "ends_at": p.end,
            "period_key": p.key, "claim_key": keys[c.id],
        })
    return out
