"""A Celery worker run as ``make run`` and compose run it (prefork, ``scripts.serve.celery_environment``:
no pool, ``CONN_MAX_AGE`` 60) keeps its PostgreSQL session from one task to the next. Celery 5.6+ closes
Django's connections around every task whatever ``CONN_MAX_AGE`` says; ``CELERY_DB_REUSE_MAX`` turns
that off and ``config.celery_app`` closes old connections as Django does around a request."""

import os
import time
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection
from django.utils import timezone

from scripts.serve import celery_environment
from tests.games.test_worker import Worker, _wait_heartbeat

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

def _sessions_opened() -> int:
    """Sessions ever opened on the test database (PostgreSQL's statistics, as flushed so far)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cur.fetchone()[0]


def _sweeps(n: int) -> None:
    """Wait until the worker's embedded beat has run the one-second sweeper ``n`` more times."""
    for _ in range(n):
        _wait_heartbeat(timezone.now(), timeout=30.0)


def test_a_worker_keeps_its_database_session_across_tasks(tmp_path):
    url = urlsplit(os.environ["DATABASE_URL"])
    test_db = urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))
    queue = f"conn-test-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    base = {k: v for k, v in os.environ.items() if k not in ("CONN_MAX_AGE", "DATABASE_POOL")}
    env = celery_environment({**base, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_db,
                              "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_TASK_DEFAULT_QUEUE": queue})
    assert (env["DATABASE_POOL"], env["CONN_MAX_AGE"]) == ("false", "60")
    worker = Worker(env, tmp_path / "worker.log", pool="prefork", concurrency=1)
    worker.start()
    try:
        _sweeps(2)
        time.sleep(1.5)  # a session's statistics are flushed at least once a second
        before = _sessions_opened()
        _sweeps(5)
        time.sleep(1.5)
        # Before: Celery closed the connection before and after each task, and each sweep opened a session.
        assert _sessions_opened() - before <= 1, worker.log.read_text()[-2000:]
    finally:
        worker.stop()
        import redis

        redis.Redis.from_url(os.environ["REDIS_URL"]).delete(queue)


def test_old_connections_are_closed_around_a_workers_task_and_never_around_an_eager_one(monkeypatch):
    """``config.celery_app`` hooks Django's ``close_old_connections()`` to ``task_prerun`` and
    ``task_postrun`` (a connection past ``CONN_MAX_AGE``, or broken, is replaced between tasks, and the
    health check runs again), except for an eager task, which runs inside its caller's transaction."""
    import django.db
    from celery import signals

    import config.celery_app  # noqa: F401 - connects the handlers

    calls = []
    monkeypatch.setattr(django.db, "close_old_connections", lambda **kw: calls.append("closed"))

    class Task:
        def __init__(self, eager: bool):
            self.request = type("Request", (), {"is_eager": eager})()

    for hook in (signals.task_prerun, signals.task_postrun):
        hook.send(sender=Task(eager=False), task_id="t", task=None, args=(), kwargs={})
    assert calls == ["closed", "closed"]
    for hook in (signals.task_prerun, signals.task_postrun):
        hook.send(sender=Task(eager=True), task_id="t", task=None, args=(), kwargs={})
    assert calls == ["closed", "closed"]
