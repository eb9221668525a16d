"""The admin's front page: what is happening now (issue 11, item 5). One selector, a fixed number of
queries whatever the size of the tables (each figure is one aggregate query).

Figures:
- ``online``: distinct users with a socket open in a room not closed (``Seat.connections > 0``);
- ``in_progress``: games playing, per game and per preset (Chinchirorin has no presets: its row says so);
- ``finished_days``: games finished on each of the last 7 days (UTC), oldest first, with a bar width in
  percent of the busiest day; ``finished_today`` and ``finished_week`` (the last 7 days);
- ``open_reports`` and ``sanctions_in_force`` (not lifted and not past their end);
- ``overdue``: playing games whose deadline or CPU due time passed more than ``OVERDUE_SECONDS`` ago (the
  sweeper should have acted); ``heartbeat_age``: seconds since the sweeper's last run (None: never ran);
- ``audit``: the last ``AUDIT_ROWS`` rows of the audit trail (django-auditlog), newest first;
- ``health``: database, Redis, Celery as ``/healthz`` reports them, cached for ``HEALTH_CACHE_SECONDS``
  (a Celery ping waits up to its timeout when no worker answers).
"""

from __future__ import annotations

from datetime import timedelta

from auditlog.models import LogEntry
from django.core.cache import cache
from django.db.models import Count, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import TruncDate
from django.utils import timezone

from accounts.models import Sanction
from config import health as checks
from games.models import Game, SweepHeartbeat
from moderation.models import Report
from rooms.models import RoomStatus, Seat

OVERDUE_SECONDS = 5
HEALTH_CACHE_SECONDS = 15
HEALTH_CACHE_KEY = "moderation:dashboard:health"
CHART_DAYS = 7
AUDIT_ROWS = 8


def health() -> dict[str, str]:
    """``{"database", "redis", "celery"}`` each ``ok`` or ``down: <reason>`` (``config.health``), cached."""
    parts = cache.get(HEALTH_CACHE_KEY) if _cache_ok() else None
    if parts is None:
        parts = {"database": checks.check_database(), "redis": checks.check_redis()}
        parts["celery"] = checks.check_celery() if parts["redis"] == "ok" else "down: broker unreachable"
        if parts["redis"] == "ok":
            cache.set(HEALTH_CACHE_KEY, parts, HEALTH_CACHE_SECONDS)
    return parts


def _cache_ok() -> bool:
    try:
        cache.get("moderation:ping")
        return True
    except Exception:  # the cache is Redis: down, so is the cached health
        return False


def dashboard_data(*, now=None) -> dict:
    """The dashboard's figures (see the module docstring); ``now`` for tests."""
    now = now or timezone.now()
    online = (Seat.objects.filter(connections__gt=0, user__isnull=False).exclude(room__status=RoomStatus.CLOSED)
              .values("user_id").distinct().count())
    in_progress = [
        {"game": row["game"], "preset": row["preset"] or "", "count": row["count"]}
        for row in Game.objects.filter(status=Game.PLAYING)
        .annotate(preset=KeyTextTransform("preset", "rules")).values("game", "preset")
        .annotate(count=Count("id")).order_by("game", "preset")
    ]
    today = now.date()
    first_day = today - timedelta(days=CHART_DAYS - 1)
    per_day = dict(
        Game.objects.filter(status=Game.FINISHED, finished_at__date__gte=first_day)
        .annotate(day=TruncDate("finished_at")).values("day").annotate(count=Count("id")).values_list("day", "count")
    )
    busiest = max(per_day.values(), default=0)
    days = []
    for i in range(CHART_DAYS):
        day = first_day + timedelta(days=i)
        n = per_day.get(day, 0)
        days.append({"day": day, "count": n, "percent": round(100 * n / busiest) if busiest else 0})
    late = now - timedelta(seconds=OVERDUE_SECONDS)
    overdue = Game.objects.filter(status=Game.PLAYING).filter(
        Q(deadline__lt=late) | Q(bot_due_at__lt=late)).count()
    beat = SweepHeartbeat.objects.filter(pk=1).values_list("at", flat=True).first()
    return {
        "online": online,
        "in_progress": in_progress,
        "in_progress_total": sum(r["count"] for r in in_progress),
        "finished_days": days,
        "finished_today": per_day.get(today, 0),
        "finished_week": sum(per_day.values()),
        "open_reports": Report.objects.filter(status=Report.Status.OPEN).count(),
        "sanctions_in_force": Sanction.objects.in_force(now).count(),
        "overdue": overdue,
        "heartbeat_age": None if beat is None else round((now - beat).total_seconds(), 1),
        "audit": list(LogEntry.objects.select_related("actor").order_by("-timestamp")[:AUDIT_ROWS]),
        "health": health(),
    }
