"""Coins' Prometheus gauges, read from the ledger at scrape time (``config.metrics.register_scrape``;
cached 30 s; one query over the last hour's rows through the ``ledger_created_at`` index):

- ``chinchi_coins_minted_last_hour{reason}``: coins created in the last hour: grants (``start_grant``,
  ``daily_grant``), ``challenge`` rewards and positive moderator ``adjustment`` s;
- ``chinchi_coins_spent_last_hour{reason}``: coins paid out of wallets in the last hour: ``stake`` and
  ``reentry`` (into a pot) and negative ``adjustment`` s. Pots won and refunds pay coins back (neither).
"""

from datetime import timedelta

from django.db.models import Q, Sum
from django.utils import timezone

from coins.models import LedgerEntry
from config.metrics import register_scrape

R = LedgerEntry.Reason
MINTED = (R.START_GRANT, R.DAILY_GRANT, R.CHALLENGE, R.ADJUSTMENT)
SPENT = (R.STAKE, R.REENTRY, R.ADJUSTMENT)

FAMILIES = [
    ("chinchi_coins_minted_last_hour", "Coins created in the last hour (grants, rewards, adjustments).",
     ["reason"]),
    ("chinchi_coins_spent_last_hour", "Coins paid out of wallets in the last hour (stakes, re-entries, "
     "adjustments).", ["reason"]),
]


def compute() -> dict:
    since = timezone.now() - timedelta(hours=1)
    rows = (LedgerEntry.objects.filter(created_at__gte=since).order_by().values("reason")
            .annotate(minted=Sum("amount", filter=Q(amount__gt=0)), spent=Sum("amount", filter=Q(amount__lt=0))))
    minted = {r["reason"]: r["minted"] or 0 for r in rows}
    spent = {r["reason"]: -(r["spent"] or 0) for r in rows}
    return {
        "chinchi_coins_minted_last_hour": [([str(reason)], minted.get(reason, 0)) for reason in MINTED],
        "chinchi_coins_spent_last_hour": [([str(reason)], spent.get(reason, 0)) for reason in SPENT],
    }


def register() -> None:
    register_scrape("coins", compute, FAMILIES)
