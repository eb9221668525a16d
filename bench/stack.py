"""The whole service as separate processes, for the soak run and the fault drills (on demand; not
collected by pytest). Every process it starts is its own process group and is stopped on exit.

- Redis: a private ``redis-server`` on a free loopback port (never the shared one), so a drill may stop
  and restart it and its memory is the service's own.
- PostgreSQL: a database of its own (``chinchi_<name>``) on the machine's server, dropped at the end; or,
  with ``private_pg=True``, a private cluster (``initdb`` into a temporary directory, as the ``postgres``
  user when run as root) on a free port, which a drill may stop and restart without touching the shared
  server.
- web: ``python -m config.web`` (``WEB_CONCURRENCY`` processes), worker (Celery prefork, ``concurrency``),
  beat; ``config.settings.local`` with ``DEBUG=false``; the pool for the web, ``CONN_MAX_AGE=60`` for
  Celery, as ``make run`` sets them; Prometheus multi-process directory and a metrics token.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
METRICS_TOKEN = "bench-metrics-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    hits = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not hits:
        raise SystemExit(f"{name} not found")
    return hits[-1]


class PrivatePostgres:
    """A PostgreSQL cluster of our own in a temporary directory, on a free port (trust auth)."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="chinchi-pg-"))
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run([_pg_bin("initdb"), "-D", str(self.dir / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8"])

    def _run(self, args: list[str]) -> None:
        if self.as_postgres:
            args = ["runuser", "-u", "postgres", "--", *args]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off"
        self._run([_pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-l", str(self.dir / "pg.log"), "-o", opts,
                   "-w", "start"])

    def stop(self, mode: str = "fast") -> None:
        try:
            self._run([_pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-m", mode, "-w", "stop"])
        except subprocess.CalledProcessError:
            pass

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"


class Stack:
    """``Stack(name).up()`` ... ``.down()``; ``start(part)``/``stop(part)``/``kill(part)`` for one part."""

    def __init__(self, name: str, *, web_workers: int = 2, concurrency: int = 2, private_pg: bool = False,
                 extra_env: dict | None = None):
        self.name = name
        self.tmp = Path(tempfile.mkdtemp(prefix=f"chinchi-{name}-"))
        self.procs: dict[str, subprocess.Popen] = {}
        self.redis_port = free_port()
        self.port = free_port()
        self.pg = PrivatePostgres() if private_pg else None
        self.db = f"chinchi_{name}"
        base_pg = self.pg.url.rsplit("/", 1)[0] if self.pg else "postgres://postgres@127.0.0.1:5432"
        self.admin_url = f"{base_pg}/postgres"
        self.env = {
            **os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DEBUG": "false",
            "DATABASE_URL": f"{base_pg}/{self.db}", "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "LOG_LEVEL": "WARNING", "THROTTLE_GUEST": "100000/min", "THROTTLE_REGISTER": "100000/min",
            "THROTTLE_LOGIN": "100000/min", "THROTTLE_CHAT": "1000/10s",
            "THROTTLE_ROOM_LOOKUP": "100000/min", "THROTTLE_ROOM_LOOKUP_ADDRESS": "100000/min", "PYTHONUNBUFFERED": "1",
            "PROMETHEUS_MULTIPROC_DIR": str(self.tmp / "prometheus"), "METRICS_TOKEN": METRICS_TOKEN,
            "WEB_CONCURRENCY": str(web_workers), "HOST": "127.0.0.1", "PORT": str(self.port),
            "ACCESS_LOG": "false", **(extra_env or {}),
        }
        for key in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CELERY_TASK_ALWAYS_EAGER"):
            self.env.pop(key, None)
        self.concurrency = concurrency
        self.held: set[str] = set()  # parts stopped on purpose (a drill): not restarted by supervise()
        self.restarts: dict[str, int] = {}
        self._supervisor = None
        (self.tmp / "prometheus").mkdir()
        self.url = f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------------------------ parts
    def _commands(self) -> dict[str, tuple[list[str], dict]]:
        celery_env = {**self.env, "DATABASE_POOL": "false", "CONN_MAX_AGE": "60"}
        return {
            "redis": ([shutil.which("redis-server") or str(BIN / "redis-server"), "--port", str(self.redis_port),
                       "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(self.tmp)], self.env),
            "web": ([sys.executable, "-m", "config.web"], self.env),
            "worker": ([str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "WARNING", "-c",
                        str(self.concurrency), "-n", f"{self.name}@%h", "--without-gossip", "--without-mingle"],
                       celery_env),
            "beat": ([str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "WARNING", "--schedule",
                      str(self.tmp / "celerybeat-schedule")], celery_env),
        }

    def start(self, part: str) -> None:
        self.held.discard(part)
        args, env = self._commands()[part]
        out = open(self.tmp / f"{part}.log", "ab")  # noqa: SIM115 - the child keeps it
        self.procs[part] = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        out.close()
        if part == "redis":
            self._wait(lambda: self._connects(self.redis_port), 15, "redis")

    def _signal(self, part: str, sig: int) -> None:
        proc = self.procs.get(part)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, part: str, timeout: float = 15) -> None:
        """SIGTERM (a clean stop), SIGKILL after ``timeout``."""
        self.held.add(part)
        proc = self.procs.get(part)
        if proc is None:
            return
        self._signal(part, signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._signal(part, signal.SIGKILL)
            proc.wait()
        self._signal(part, signal.SIGKILL)  # any child left in the group

    def kill(self, part: str) -> None:
        """SIGKILL the whole process group at once (a crash)."""
        self.held.add(part)
        proc = self.procs.get(part)
        if proc is not None:
            self._signal(part, signal.SIGKILL)
            proc.wait()

    def supervise(self) -> None:
        """Start again, as compose's ``restart: unless-stopped`` and ``make run`` do, any of web, worker and
        beat that exited by itself (counted in ``restarts``); a background thread until :meth:`down`."""
        import threading

        def loop():
            while self._supervisor is not None:
                for part in ("web", "worker", "beat"):
                    proc = self.procs.get(part)
                    if proc is not None and proc.poll() is not None and part not in self.held:
                        self.restarts[part] = self.restarts.get(part, 0) + 1
                        log(f"{part} exited with {proc.returncode}: starting it again")
                        self.start(part)
                time.sleep(1.0)

        self._supervisor = threading.Thread(target=loop, daemon=True)
        self._supervisor.start()

    # ------------------------------------------------------------------------------------ whole
    def _psql(self, sql: str, own: bool = False) -> str:
        """``sql`` through psql on the server's ``postgres`` database, or (``own``) on the stack's."""
        url = self.env["DATABASE_URL"] if own else self.admin_url
        args = ["psql", "-qAt", url, "-c", sql]
        return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()

    def up(self) -> None:
        if self.pg:
            self.pg.start()
        self._psql(f"DROP DATABASE IF EXISTS {self.db}")
        self._psql(f"CREATE DATABASE {self.db}")
        self.start("redis")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env,
                       check=True)
        for part in ("web", "worker", "beat"):
            self.start(part)
        self.wait_healthy(90)
        self.supervise()
        log(f"stack {self.name} up at {self.url} (redis :{self.redis_port}, db {self.db}, logs {self.tmp})")

    def down(self, keep_logs: bool = False) -> None:
        self._supervisor = None
        for part in ("beat", "worker", "web", "redis"):
            self.stop(part, timeout=10)
        try:
            self._psql(f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
        except subprocess.CalledProcessError:
            pass
        if self.pg:
            self.pg.destroy()
        if not keep_logs:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # ------------------------------------------------------------------------------------ probes
    @staticmethod
    def _connects(port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    @staticmethod
    def _wait(pred, timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{what} not ready after {timeout} s")

    def health(self) -> tuple[int, dict]:
        try:
            res = httpx.get(f"{self.url}/healthz", timeout=10)
            return res.status_code, res.json()
        except (httpx.HTTPError, ValueError) as exc:
            return 0, {"error": type(exc).__name__}

    def wait_healthy(self, timeout: float) -> float:
        """Seconds until /healthz answers 200 with beat ok."""
        start = time.monotonic()
        self._wait(lambda: (lambda s, b: s == 200 and b.get("beat") == "ok")(*self.health()), timeout, "/healthz")
        return time.monotonic() - start

    def metrics(self) -> dict[str, float]:
        """``{"name{labels}": value}`` of one scrape (labels sorted), {} if it fails."""
        from prometheus_client.parser import text_string_to_metric_families

        try:
            res = httpx.get(f"{self.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10)
        except httpx.HTTPError:
            return {}
        if res.status_code != 200:
            return {}
        out = {}
        for fam in text_string_to_metric_families(res.text):
            for s in fam.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                out[f"{s.name}{{{labels}}}"] = s.value
        return out

    def rss_mb(self) -> dict[str, float]:
        """Resident memory (MB) of each process of each part (the part's main process and its children)."""
        import psutil

        out = {}
        for part, proc in self.procs.items():
            if proc.poll() is not None:
                continue
            try:
                main = psutil.Process(proc.pid)
                family = [main, *main.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
            for i, p in enumerate(family):
                try:
                    out[f"{part}{'' if i == 0 else f'.{i}'}"] = round(p.memory_info().rss / 2**20, 1)
                except psutil.NoSuchProcess:
                    pass
        return out

    def db_connections(self) -> int:
        try:
            return int(self._psql(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{self.db}'"))
        except (subprocess.CalledProcessError, ValueError):
            return -1

    def redis_memory_mb(self) -> float:
        import redis

        try:
            info = redis.Redis(port=self.redis_port, socket_timeout=2).info("memory")
            return round(info["used_memory"] / 2**20, 2)
        except Exception:  # noqa: BLE001 - down during a drill
            return -1.0

    def error_lines(self) -> dict[str, int]:
        """ERROR/CRITICAL/Traceback lines in each part's log so far."""
        out = {}
        for part in ("web", "worker", "beat"):
            path = self.tmp / f"{part}.log"
            if path.exists():
                text = path.read_text(errors="replace")
                out[part] = sum(1 for ln in text.splitlines() if " ERROR " in ln or "CRITICAL" in ln
                                or ln.startswith("Traceback"))
        return out
