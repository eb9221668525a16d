"""The real service for end-to-end tests: uvicorn and a Celery worker as subprocesses on a free port,
against the test database this process uses (tests that use it are ``transaction=True``, so what they
write is committed and the server sees it) and ``REDIS_URL``."""

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
from django.db import connection

from config.web import socket_args

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 90


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    """The URL of the test database this process uses (``test_<name>``)."""
    d = connection.settings_dict
    auth = quote(d["USER"] or "") + (":" + quote(d["PASSWORD"]) if d["PASSWORD"] else "")
    return f"postgres://{auth}@{d['HOST'] or '127.0.0.1'}:{d['PORT'] or 5432}/{d['NAME']}"


@contextmanager
def live_stack(log_dir: Path, **env_extra: str):
    """Start uvicorn + one Celery worker (``env_extra``: more environment variables for both); yields the
    server's base URL (``http://127.0.0.1:<port>``) once ``/healthz`` answers 200; stops both after."""
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DEBUG": "false",
           "DATABASE_URL": database_url(), "REDIS_URL": os.environ["REDIS_URL"], "CONN_MAX_AGE": "0",
           "CELERY_TASK_ALWAYS_EAGER": "false", "PYTHONUNBUFFERED": "1", **env_extra}
    env.pop("CELERY_BROKER_URL", None)
    env.pop("CELERY_RESULT_BACKEND", None)
    log_dir.mkdir(parents=True, exist_ok=True)
    logs = {name: open(log_dir / f"{name}.log", "w") for name in ("server", "worker")}  # noqa: SIM115
    procs = [
        subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                          "--port", str(port), "--log-level", "warning", *socket_args(env)], cwd=ROOT, env=env,
                         stdout=logs["server"], stderr=subprocess.STDOUT),
        subprocess.Popen([sys.executable, "-m", "celery", "-A", "config.celery_app", "worker", "-c", "1",
                          "-l", "warning", "--without-gossip", "--without-mingle"], cwd=ROOT, env=env,
                         stdout=logs["worker"], stderr=subprocess.STDOUT),
    ]
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        last = None
        while True:
            try:
                res = httpx.get(f"{url}/healthz", timeout=5)
                last = res.text
                if res.status_code == 200:
                    break
            except httpx.HTTPError as exc:
                last = repr(exc)
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise AssertionError(f"the server or worker did not start ({last}):\n" + "\n".join(
                    (log_dir / f"{n}.log").read_text()[-2000:] for n in logs))
            time.sleep(0.3)
        yield url
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in logs.values():
            f.close()
        _wait_for_their_sessions_to_end()


def _wait_for_their_sessions_to_end(seconds: float = 10) -> None:
    """PostgreSQL ends a stopped process's sessions a moment after it exits: wait for that, so the test's
    flush and the database's removal meet no other session."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND pid <> pg_backend_pid()")
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.1)
