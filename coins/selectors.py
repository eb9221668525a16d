"""Read-only queries of coins (no locks)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from coins import rules
from coins.models import LedgerEntry, Wallet
from coins.services import daily_key, wallet_open


def wallet_of(*, user_id: int) -> Wallet:
    """The user's wallet (opened with its start grant if the user predates it)."""
    return wallet_open(user_id=user_id)


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
