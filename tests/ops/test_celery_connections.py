"""A Celery worker run as ``make run`` and compose run it (prefork, ``scripts.serve.celery_environment``:
no pool, ``CONN_MAX_AGE`` 60) keeps its PostgreSQL session from one task to the next. Celery 5.6+ closes
Django's connections around every task whatever ``CONN_MAX_AGE`` says; ``CELERY_DB_REUSE_MAX`` turns
that off and ``config.celery_app`` closes old connections as Django does around a request."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection
from django.utils import timezone

from games.models import SweepHeartbeat
from scripts.serve import celery_environment

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def _sessions_opened() -> int:
    """Sessions ever opened on the test database (PostgreSQL's statistics, as flushed so far)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cur.fetchone()[0]


def _sweeps(n: int, timeout: float = 30.0) -> None:
    """Wait until the worker's embedded beat has run the one-second sweeper ``n`` more times (each run
    writes the heartbeat row)."""
    for _ in range(n):
        before = timezone.now()
        end = time.monotonic() + timeout
        while not SweepHeartbeat.objects.filter(pk=1, at__gt=before).exists():
            assert time.monotonic() < end, "the worker's beat never swept"
            time.sleep(0.1)


def test_a_worker_keeps_its_database_session_across_tasks(tmp_path):
    url = urlsplit(os.environ["DATABASE_URL"])
    test_db = urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))
    queue = f"conn-test-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    base = {k: v for k, v in os.environ.items() if k not in ("CONN_MAX_AGE", "DATABASE_POOL")}
    env = celery_environment({**base, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_db,
                              "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_TASK_DEFAULT_QUEUE": queue})
    assert (env["DATABASE_POOL"], env["CONN_MAX_AGE"]) == ("false", "60")
    log = tmp_path / "worker.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("celery")), "-A", "config", "worker", "-B", "-P", "prefork", "-c", "1",
             "-Q", queue, "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
             "-s", str(tmp_path / "beat"), "-n", f"conn-test-{uuid.uuid4().hex[:6]}@%h"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _sweeps(2)
        time.sleep(1.5)  # a session's statistics are flushed at least once a second
        before = _sessions_opened()
        _sweeps(5)
        time.sleep(1.5)
        # Before: Celery closed the connection before and after each task, and each sweep opened a session.
        assert _sessions_opened() - before <= 1, log.read_text()[-2000:]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
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
