"""``GET /healthz``: 200 ``{"database": "ok", "redis": "ok", "celery": "ok"}`` when all are reachable and a
Celery worker answers a ping; 503 with the failing parts named (``"down: <reason>"``)."""

import redis
from django.conf import settings
from django.db import connection
from django.http import JsonResponse

CHECK_TIMEOUT = 2.0  # seconds each check may take


def check_database() -> str:
    try:
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
    from config.celery_app import app

    try:
        replies = app.control.ping(timeout=CHECK_TIMEOUT)
    except Exception as exc:
        return f"down: {type(exc).__name__}"
    return "ok" if replies else "down: no worker answered"


def healthz(request):
    """The health check: every part ``ok`` -> 200, else 503."""
    parts = {"database": check_database(), "redis": check_redis()}
    parts["celery"] = check_celery() if parts["redis"] == "ok" else "down: broker unreachable"
    code = 200 if all(v == "ok" for v in parts.values()) else 503
    return JsonResponse(parts, status=code)
