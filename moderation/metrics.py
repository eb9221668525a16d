"""Moderation's Prometheus gauges, read at scrape time (``config.metrics.register_scrape``; cached 30 s):

- ``chinchi_reports_open``: reports waiting for a moderator (status ``open``);
- ``chinchi_reports_last_hour``: reports filed in the last hour;
- ``chinchi_sanctions_last_hour{kind}``: sanctions imposed in the last hour, by kind (mute, suspend, ban).

Each is one indexed count (``Report.status``, ``Report.created_at``, ``Sanction.created_at``).
"""

from datetime import timedelta

from django.db.models import Count
from django.utils import timezone

from accounts.models import Sanction
from config.metrics import register_scrape
from moderation.models import Report

FAMILIES = [
    ("chinchi_reports_open", "Reports waiting for a moderator.", []),
    ("chinchi_reports_last_hour", "Reports filed in the last hour.", []),
    ("chinchi_sanctions_last_hour", "Sanctions imposed in the last hour, by kind.", ["kind"]),
]


def compute() -> dict:
    since = timezone.now() - timedelta(hours=1)
    by_kind = dict(Sanction.objects.filter(created_at__gte=since).order_by().values_list("kind")
                   .annotate(n=Count("id")).values_list("kind", "n"))
    return {
        "chinchi_reports_open": [([], Report.objects.filter(status=Report.Status.OPEN).count())],
        "chinchi_reports_last_hour": [([], Report.objects.filter(created_at__gte=since).count())],
        "chinchi_sanctions_last_hour": [([kind], by_kind.get(kind, 0)) for kind, _ in Sanction.KIND_CHOICES],
    }


def register() -> None:
    register_scrape("moderation", compute, FAMILIES)
