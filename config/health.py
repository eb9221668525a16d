"""``GET /healthz``: what is up and what is down, quickly.

Body ``{"database", "redis", "celery", "beat"}``, each ``"ok"`` or ``"down: <reason>"``. The status is
200 when database, Redis and a Celery worker answer, else 503 (a load balancer's question: can this node
serve?). ``beat`` (timers: the sweeper's heartbeat, written every second by the worker on beat's
schedule, younger than ``BEAT_STALE_SECONDS``) is reported but not counted in the status: a web node
serves without it; alert on it from ``/metrics`` (``chinchi_sweep_heartbeat_age_seconds``).

Speed: each check has a ``CHECK_TIMEOUT`` bound; the Celery ping returns at the first worker's answer (not
after its whole timeout), and a failed ping is remembered for ``CELERY_DOWN_MEMO`` seconds so a health
poll during an outage does not wait again. A 503 here is an answer, not a server error: it is not logged
as one (no ERROR line while the service is starting).
"""

import time

import psycopg
import redis
from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.utils import timezone

from config import sources
from config.celery_app import app

CHECK_TIMEOUT = 2.0  # seconds each check may take
CELERY_PING_TIMEOUT = 1.0
CELERY_DOWN_MEMO = 5.0
BEAT_STALE_SECONDS = 10.0

_celery_down: tuple[float, str] | None = None  # (monotonic time, reason) of the last failed ping


def check_database() -> str:
    """A fresh connection (PostgreSQL: ``connect_timeout``, past the pool, which would wait its own
    timeout) and ``SELECT 1``."""
    try:
        if connection.vendor == "postgresql":
            d = connection.settings_dict
            params = {"dbname": d["NAME"], "user": d["USER"] or None, "password": d["PASSWORD"] or None,
                      "host": d["HOST"] or None, "port": d["PORT"] or None}
            with psycopg.connect(connect_timeout=max(1, int(CHECK_TIMEOUT)),
                                 **{k: v for k, v in params.items() if v}) as conn:
                conn.execute("SELECT 1").fetchone()
        else:
            with connection.cursor() as cur:
                cur.execute("SELECT 1")
                cur.fetchone()
        return "ok"
    except Exception as exc:  # any failure is "down", never a 500
        return f"down: {type(exc).__name__}"


def check_redis() -> str:
    if not settings.REDIS_URL:
        return "down: REDIS_URL not set"
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=CHECK_TIMEOUT,
                                      socket_connect_timeout=CHECK_TIMEOUT)
        client.ping()
        client.close()
        return "ok"
    except Exception as exc:
        return f"down: {type(exc).__name__}"


def check_celery() -> str:
    """A worker answers a ping (the first answer ends the wait); a failure is remembered briefly."""
    global _celery_down
    if _celery_down is not None and time.monotonic() - _celery_down[0] < CELERY_DOWN_MEMO:
        return _celery_down[1]
    try:
        replies = app.control.ping(timeout=CELERY_PING_TIMEOUT, limit=1)
        result = "ok" if replies else "down: no worker answered"
    except Exception as exc:
        result = f"down: {type(exc).__name__}"
    _celery_down = None if result == "ok" else (time.monotonic(), result)
    return result


def check_beat() -> str:
    """The sweeper's heartbeat (the ``sweep_heartbeat_at`` reader games provides, :mod:`config.sources`)
    is younger than ``BEAT_STALE_SECONDS``."""
    try:
        at = sources.read("sweep_heartbeat_at")
    except Exception as exc:
        return f"down: {type(exc).__name__}"
    if at is None:
        return "down: no sweep yet"
    age = (timezone.now() - at).total_seconds()
    return "ok" if age < BEAT_STALE_SECONDS else f"down: no sweep for {age:.0f} s (beat or worker)"


def healthz(request):
    """The health check: database, Redis and Celery ``ok`` -> 200, else 503; ``beat`` reported."""
    parts = {"database": check_database(), "redis": check_redis()}
    parts["celery"] = check_celery() if parts["redis"] == "ok" else "down: broker unreachable"
    parts["beat"] = check_beat() if parts["database"] == "ok" else "down: database unreachable"
    code = 200 if all(parts[k] == "ok" for k in ("database", "redis", "celery")) else 503
    response = JsonResponse(parts, status=code)
    response._has_been_logged = True  # django.request would log a 503 as an ERROR
    return response
