"""Server benchmark (on demand; not collected by pytest): the whole service on this machine under N
concurrent games played by scripted clients, side by side with a bare ``GET /api/me`` load, in one run.

    .venv/bin/python bench/bench_server.py --games 16,64 --game chinchirorin|chinchon|both --think 0,1-3
    .venv/bin/python bench/bench_server.py --games 16 --servers 2 --workers 1 --celery-workers 2

What it does, in order (every process it starts is stopped on exit, also on Ctrl-C, SIGTERM or error):

1. Creates its own PostgreSQL database (``--db``, default ``chinchi_bench`` on 127.0.0.1:5432, user
   postgres, trust auth; dropped at the end unless ``--keep-db``), empties its own Redis database
   (``--redis``, default ``redis://127.0.0.1:6379/9``; emptied again at the end), migrates.
2. Starts ``--servers`` uvicorn servers (default 1; ``--workers`` processes each, default two a core as
   ``make run``; uvloop + httptools, no access log, idle keep-alive and socket compression as
   ``python -m config.web``) on free loopback ports,
   ``--celery-workers`` Celery workers (``--celery-concurrency`` each) and Celery beat, all with
   ``config.settings.local``, ``DEBUG=false``, ``LOG_LEVEL=WARNING``, ``THROTTLE_GUEST`` and the room
   look-up throttles raised so guests can be made and rooms joined in bulk from one address and
   ``CHANNEL_LAYER`` from ``--channel-layer`` (the Celery processes with ``make run``'s database settings,
   ``scripts.serve.celery_environment``); waits for every server's ``/healthz`` to answer ok.
3. For each N of ``--games``: ``GET /api/me`` by ``--get-concurrency`` keep-alive clients for
   ``--get-seconds`` (requests/s and the web processes' CPU per request); then, for each thinking time of
   ``--think`` and each game asked, a phase: N rooms of 2-4 seats (``--seats``, cycled over the rooms)
   are set up (a room every ``--ramp`` s; every seat a scripted client of :mod:`rooms.demo_client`: a
   guest made over HTTP, its room joined, its own WebSocket open) and, once all are set up, their games
   started together; the measured window runs from that start to the last action answered, so sign-ups,
   joins and handshakes are not counted as the action path's work. A room whose game ends starts the
   next at once (its host's ``rematch``; the same seats and sockets), so N games are in play for the
   whole phase, and every seat stops acting ``--closed-seconds`` (think 0) or ``--play-seconds`` after
   the start (``--single-game``: one game a room, and a think-0 phase lasts until every game ended, the
   games in play falling from N as they end). Seats choose among ``legal_actions``
   (``409 stale_seq`` retried at once from the body's view), and send them as ``POST
   /api/games/{id}/actions`` or, for ``--actions socket``, on their sockets as the play page does (a phase
   per way asked: ``rest,socket`` runs both; a socket action is applied unless its socket answers an
   ``error`` naming its ``action_id``, and its "answer" is the actor's own socket getting its seq); no
   CPU seats, ``turn_seconds`` null, so the
   service is measured, not the bots. With ``--think 0`` a seat acts as soon as its view awaits it (the
   server's throughput: actions/s, CPU per action); with ``LOW-HIGH`` it first waits a random time in that
   range, as a quick player would (the delivery latency under a given load). Seat i of a game plays through
   server i mod ``--servers``. The games are played concurrently in one asyncio process (uvloop). This
   script times the demo client without changing its play: its ``httpx.AsyncClient`` is replaced by a
   subclass that times ``POST /api/games/{id}/actions``, its ``send_action`` is wrapped to stamp a socket
   action's send, and its socket reader sees the sockets through a
   proxy that stamps each ``game`` message's arrival (its view's seq and the seqs of its events).
   Measured: actions applied per second (applied actions / time from the first action POST sent to the
   last one answered), and for every applied action the latency from sending its POST to the moment
   EVERY seat's socket has that ``seq`` (p50/p95/p99/max); an action some seat never got on its socket is
   counted as ``missed``, the first five logged (a room waits, before closing its sockets, until no seat
   of its last game has posted for 1 s and every socket has every seq posted, at most 10 s). Games a phase leaves
   unfinished are then marked aborted in the database, so that the CPU does not go on playing them
   behind the later phases. Also the web servers' CPU per action (sampled every 0.2 s, read over the
   measured window). A last GET phase closes the run; the ratios actions/s ÷
   GET/s and CPU per action ÷ CPU per GET are printed.
   With ``--timer-games K``, K more games are started first (2-seat Chinchirorin, ``turn_seconds`` 30,
   guests that never act nor open a socket: the turn timers and then the CPU play them, on the Celery
   workers, while the load runs); once ``--timer-seconds`` have passed, the log is read: every
   ``timeout`` row must come at least 30 s after the row before it (no timer fired twice or early), with
   its lateness after the deadline.
4. Database queries per action, in this process against the same database: one whole game per seat count
   in ``--query-seats`` (default 2 and 4) played through Django's test ``Client`` (the real URL, auth,
   API and service), each ``POST .../actions`` inside ``CaptureQueriesContext`` and, nested, each
   ``games.services.game_apply_action`` call; counts per action type, with the last action (the one that
   finishes the game) apart, and whether they are constant over seq and seat count.
5. Prints summary tables.

Bounded: ``--timeout`` seconds per game phase (unfinished games are reported as such), 60 s for the
stack to come up.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import procstats  # noqa: E402 - after the path is set
from config.web import (  # noqa: E402 - after the path is set
    GC_THRESHOLDS,
    KEEPALIVE_SECONDS,
    WORKERS_PER_CORE,
    cores,
    socket_args,
)
from scripts.serve import Supervisor, celery_environment  # noqa: E402 - after the path is set

GAMES = ("chinchirorin", "chinchon")
MIXED = "mixed"  # one phase whose rooms alternate the two games
ACTION_PATH = re.compile(r"/api/games/(\d+)/actions$")
REQUEST_PATH = re.compile(r"/(games|rooms)/[^/]+")  # a request's path with its game id or room code


def log(msg: str) -> None:
    print(f"[bench] {msg}", flush=True)


# ----------------------------------------------------------------------------------- pure helpers
def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) of ``values``, linear between closest ranks (numpy's default).
    NaN for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    if len(xs) == 1:
        return float(xs[0])
    k = (len(xs) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summarize(values: list[float]) -> dict:
    """``{n, p50, p95, p99, max}`` of ``values``."""
    return {"n": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95),
            "p99": percentile(values, 99), "max": max(values) if values else float("nan")}


def fanout_latencies(posts: list[tuple[int, int, float]], arrivals: dict[int, dict[str, dict[int, float]]],
                     seats: dict[int, int]) -> tuple[list[float], int]:
    """Latency of each applied action: from its POST sent (``t0``) to the last of the game's ``seats``
    sockets receiving that ``seq``.

    ``posts``: ``(game_id, seq, t0)``; ``arrivals``: ``{game_id: {socket key: {seq: t}}}``; ``seats``:
    ``{game_id: number of seats}``. Returns ``(latencies, missed)``, missed = actions that not every seat's
    socket received."""
    out, missed = [], 0
    for game_id, seq, t0 in posts:
        socks = arrivals.get(game_id, {})
        times = [s[seq] for s in socks.values() if seq in s]
        if len(socks) < seats.get(game_id, 0) or len(times) < len(socks):
            missed += 1
            if missed <= 5:
                lacking = [s for s in socks.values() if seq not in s]
                log(f"missed: game {game_id} seq {seq}: on {len(times)} of {seats.get(game_id, 0)} seats' sockets; "
                    f"the seqs the others got: {[f'{min(s)}..{max(s)}' if s else 'none' for s in lacking]}")
            continue
        out.append(max(times) - t0)
    return out, missed


def query_summary(samples: list[dict]) -> list[dict]:
    """Rows ``{game, type, final, seats, n, service_min, service_max, request_min, request_max}`` from
    samples ``{game, seats, seq, type, final, service, request}``, grouped by game, action type, whether
    it was the game's last action, and seat count."""
    groups: dict[tuple, list[dict]] = collections.defaultdict(list)
    for s in samples:
        groups[(s["game"], s["type"], s["final"], s["seats"])].append(s)
    rows = []
    for (game, kind, final, seats), items in sorted(groups.items()):
        rows.append({"game": game, "type": kind, "final": final, "seats": seats, "n": len(items),
                     "service_min": min(i["service"] for i in items), "service_max": max(i["service"] for i in items),
                     "request_min": min(i["request"] for i in items), "request_max": max(i["request"] for i in items)})
    return rows


def constant_per_type(samples: list[dict]) -> dict[tuple[str, str], bool]:
    """``{(game, type): True}`` when every non-final action of that type made the same number of service
    queries, whatever the seq and seat count."""
    seen: dict[tuple[str, str], set[int]] = collections.defaultdict(set)
    for s in samples:
        if not s["final"]:
            seen[(s["game"], s["type"])].add(s["service"])
    return {k: len(v) == 1 for k, v in seen.items()}


def table(headers: list[str], rows: list[list]) -> str:
    """A Markdown table."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"  # noqa: E731
    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, cells)])


def sql_shape(sql: str) -> str:
    """A query's shape for explaining counts: verb and first table (of a SELECT: its own FROM, not a
    subquery's)."""
    m = re.match(r'\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|SAVEPOINT|RELEASE SAVEPOINT)\b.*?(?:FROM\s+)?"?(\w+)"?',
                 sql, re.I | re.S)
    if not m:
        return sql[:40]
    verb = m.group(1).upper()
    if verb == "SELECT":
        outer = sql
        while True:  # subqueries out, innermost first: "(SELECT ... FROM x ...)"
            shorter = re.sub(r"\([^()]*\)", "", outer)
            if shorter == outer:
                break
            outer = shorter
        t = re.search(r'\bFROM\s+"(\w+)"', outer)
        return f"SELECT {t.group(1) if t else '?'}" + (" FOR UPDATE" if "FOR UPDATE" in sql else "")
    if verb.endswith("SAVEPOINT"):
        return verb
    return f"{verb} {m.group(2)}"


# ------------------------------------------------------------------------------------ the stack
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _group_cpu_seconds(pgid: int) -> dict[int, float]:
    """pid -> user + system CPU seconds of each live process in process group ``pgid`` (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after "(comm)": state ppid pgrp ... utime(11) stime(12)
            out[int(d)] = (int(fields[11]) + int(fields[12])) / tick
    return out


class Stack(Supervisor):
    """The processes this benchmark started, each in its own session and log file
    (``scripts/serve.py``'s supervisor); :meth:`stop` stops them all."""

    def __init__(self, env: dict, logdir: Path):
        super().__init__(logdir)
        self.env = env

    def start(self, name: str, args: list[str], env: dict | None = None) -> subprocess.Popen:  # type: ignore[override]
        return super().start(name, args, self.env if env is None else env)

    def pid(self, name: str) -> int:
        return next(p.pid for n, p in self.children if n == name)

    def check_alive(self) -> None:
        for name, proc in self.children:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}; see {self.logdir / (name + '.log')}:\n"
                                   + self.tail(name))

    def tail(self, name: str, lines: int = 30) -> str:
        try:
            return "\n".join((self.logdir / f"{name}.log").read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, *_) -> None:
        had = bool(self.children)
        super().stop()
        if had:
            log("stopped every process started here")
        self.children.clear()


def _pg(dbname: str = "postgres"):
    import psycopg

    return psycopg.connect(host="127.0.0.1", port=5432, user="postgres", dbname=dbname, autocommit=True,
                           connect_timeout=5)


def create_database(name: str) -> None:
    with _pg() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    with _pg() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    client.flushdb()
    client.close()


def bench_env(args) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CELERY_TASK_ALWAYS_EAGER",
                        "CELERY_TASK_DEFAULT_QUEUE", "GAMES_TIME_SCALE")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DEBUG": "false",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{args.db}",
        "REDIS_URL": args.redis,
        "THROTTLE_GUEST": "100000/min",
        # Every client comes from 127.0.0.1: the room look-up throttles would refuse the joins of N games.
        "THROTTLE_ROOM_LOOKUP": "100000/min",
        "THROTTLE_ROOM_LOOKUP_ADDRESS": "100000/min",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    })
    if args.conn_max_age is not None:
        env["CONN_MAX_AGE"] = str(args.conn_max_age)
    if args.channel_layer:
        env["CHANNEL_LAYER"] = args.channel_layer
    return env


def wait_healthy(url: str, stack: Stack, timeout: float = 60.0) -> None:
    import httpx

    end = time.monotonic() + timeout
    last = ""
    while time.monotonic() < end:
        stack.check_alive()
        try:
            res = httpx.get(url, timeout=5)
            last = res.text
            if res.status_code == 200:
                return
        except httpx.HTTPError as exc:
            last = repr(exc)
        time.sleep(0.5)
    raise RuntimeError(f"the stack did not become healthy in {timeout:.0f} s: {last}")


def start_stack(args, env: dict, logdir: Path) -> tuple[Stack, list[str]]:
    """``--servers`` uvicorn servers (``--workers`` processes each) on free ports, ``--celery-workers``
    Celery worker instances and beat. Returns the stack and the servers' base URLs."""
    stack = Stack(env, logdir)
    servers = []
    try:
        for i in range(args.servers):
            port = free_port()
            stack.start(f"web{i}", [str(BIN / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1",
                                    "--port", str(port), "--workers", str(args.workers), "--lifespan", "off",
                                    "--loop", "uvloop", "--http", "httptools", "--no-access-log",
                                    "--log-level", "warning", "--timeout-keep-alive", str(KEEPALIVE_SECONDS),
                                    *socket_args(env)])
            servers.append(f"http://127.0.0.1:{port}")
        celery_env = celery_environment(env)  # as ``make run`` and compose run them
        for i in range(args.celery_workers):
            stack.start(f"worker{i}", [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "WARNING",
                                       "--concurrency", str(args.celery_concurrency), "-n",
                                       f"bench-{servers[0].rsplit(':', 1)[1]}-{i}@%h"], celery_env)
        stack.start("beat", [str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "WARNING",
                             "--schedule", str(logdir / "celerybeat-schedule")], celery_env)
        for server in servers:
            wait_healthy(f"{server}/healthz", stack)
    except BaseException:
        stack.stop()
        raise
    return stack, servers


def profile_web(roles: procstats.Roles, seconds: float, outdir: Path, label: str, idle: bool = False,
                gil: bool = False) -> None:
    """``py-spy record`` of every uvicorn worker for ``seconds`` (100 samples/s, without pausing them,
    every thread, ``idle``: waiting threads too, ``gil``: only the thread holding the GIL, i.e. where the
    process's Python CPU goes; stacks collapsed, a file per process in ``outdir``); needs py-spy on PATH or
    in the venv (``pip install py-spy``, not a dependency of the project)."""
    spy = shutil.which("py-spy") or str(BIN / "py-spy")
    outdir.mkdir(parents=True, exist_ok=True)
    procs = []
    for proc in roles.processes()["web"]:
        if proc.pid in roles.web_groups:
            continue  # uvicorn's supervisor only waits
        out = outdir / f"{label}-web-{proc.pid}.txt"
        modes = (["--idle"] if idle else []) + (["--gil"] if gil else [])
        procs.append(subprocess.Popen([spy, "record", "--nonblocking", "--threads", *modes, "--format", "raw", "--rate", "100",
                                       "--duration", str(int(seconds)), "--pid", str(proc.pid), "--output", str(out)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for proc in procs:
        proc.wait()
    log(f"profiles of {len(procs)} web processes in {outdir}")


def stack_roles(stack: Stack, args) -> procstats.Roles:
    """The stack's processes by role (:mod:`bench.procstats`)."""
    return procstats.Roles(web_groups=[p.pid for n, p in stack.children if n.startswith("web")],
                           celery_groups=[p.pid for n, p in stack.children if n.startswith(("worker", "beat"))],
                           redis_port=int(args.redis.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]))


def web_cpu(stack: Stack) -> float:
    """CPU seconds used so far by every web server process (all uvicorn process groups)."""
    return sum(web_cpu_by_process(stack).values())


def web_cpu_by_process(stack: Stack) -> dict[int, float]:
    """pid -> CPU seconds used so far, for every web server process."""
    out = {}
    for name, proc in stack.children:
        if name.startswith("web"):
            out.update(_group_cpu_seconds(proc.pid))
    return out


# ------------------------------------------------------------------------------- timed clients
@dataclass
class Recorder:
    """What the timed demo clients saw: applied actions and socket arrivals, stamped as they happen and
    decoded only when read (:meth:`settle`, once the seats stopped), so that the bench's own JSON work
    does not compete with the server for the CPU during the measured window."""

    refused: collections.Counter = field(default_factory=collections.Counter)  # 4xx code -> count
    requests: list[tuple[float, str]] = field(default_factory=list)  # every HTTP request: t, "METHOD /path"
    via: str = "rest"  # how the phase's seats send their actions: rest (POST) or socket
    last_answer: float = 0.0  # when the last applied action's POST was answered (socket: sent), in any game
    _raw_posts: list[tuple[int, float, float, str, bytes]] = field(default_factory=list)  # game, t0, t1, type, body
    _sends: list[tuple[int, str, float, int, str, str]] = field(default_factory=list)  # game, socket key, t0, seq, type, action_id
    _refused_ids: set = field(default_factory=set)  # (socket key, action_id) answered with an error
    _raw_arrivals: list[tuple[str, float, str | bytes]] = field(default_factory=list)  # socket key, t, message
    _posts: list[tuple[int, int, float, float, str]] = field(default_factory=list)  # game, seq, t0, t1, type
    _arrivals: dict[int, dict[str, dict[int, float]]] = field(
        default_factory=lambda: collections.defaultdict(lambda: collections.defaultdict(dict)))
    _final_seq: dict[int, int] = field(default_factory=dict)  # game -> highest seq answered

    def posted(self, game_id: int, t0: float, t1: float, kind: str, body: bytes) -> None:
        """An applied action's POST: sent at ``t0``, answered at ``t1`` with ``body`` (its view)."""
        self._raw_posts.append((game_id, t0, t1, kind, body))
        self.last_answer = max(self.last_answer, t1)

    def sent(self, game_id: int, key: str, t0: float, seq: int, kind: str, action_id: str) -> None:
        """An action sent at ``t0`` on the socket ``key`` at ``seq`` with ``action_id``; applied (as ``seq`` + 1)
        unless that socket answers an ``error`` naming the ``action_id`` (known once the seats stopped)."""
        self._sends.append((game_id, key, t0, seq, kind, action_id))
        self.last_answer = max(self.last_answer, t0)

    def arrived(self, key: str, raw) -> None:
        """A socket message, as received by the socket ``key`` now."""
        self._raw_arrivals.append((key, time.perf_counter(), raw))

    def settle(self) -> None:
        """Decode what was stamped since the last call."""
        raw_posts, self._raw_posts = self._raw_posts, []
        for game_id, t0, t1, kind, body in raw_posts:
            seq = json.loads(body)["seq"]
            self._posts.append((game_id, seq, t0, t1, kind))
            self._final_seq[game_id] = max(seq, self._final_seq.get(game_id, -1))
        raw_arrivals, self._raw_arrivals = self._raw_arrivals, []
        for key, t, raw in raw_arrivals:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if msg.get("type") == "game" and msg.get("view"):
                view = msg["view"]
                got = self._arrivals[view["id"]][key]
                got.setdefault(view["seq"], t)
                for ev in msg.get("events") or []:  # a message may carry the events of seqs before its view's
                    got.setdefault(ev.get("seq"), t)
                if self.via == "socket":  # no answer to read the seq from: the highest seq any socket has
                    self._final_seq[view["id"]] = max(view["seq"], self._final_seq.get(view["id"], -1))
            elif msg.get("type") == "error" and isinstance(msg.get("action_id"), str):
                self._refused_ids.add((key, msg["action_id"]))
                self.refused[msg.get("code")] += 1

    @property
    def posts(self) -> list[tuple[int, int, float, float, str]]:
        """``(game id, seq, t0, t1, action type)`` of each applied action. Read once the seats stopped and
        their sockets have every seq: a socket action is applied (as ``seq`` + 1, ``t1`` the moment the
        actor's own socket got it: NaN if it never did) unless its socket refused it."""
        self.settle()
        sends, self._sends = self._sends, []
        for game_id, key, t0, seq, kind, action_id in sends:
            if (key, action_id) not in self._refused_ids:
                t1 = self._arrivals[game_id][key].get(seq + 1, float("nan"))
                self._posts.append((game_id, seq + 1, t0, t1, kind))
        return self._posts

    @property
    def arrivals(self) -> dict[int, dict[str, dict[int, float]]]:
        """``{game id: {socket key: {seq: first arrival}}}``."""
        self.settle()
        return self._arrivals

    @property
    def final_seq(self) -> dict[int, int]:
        """``{game id: highest seq answered}``."""
        self.settle()
        return self._final_seq

    def clear(self) -> None:
        self.refused.clear()
        self.last_answer = 0.0
        for store in (self._raw_posts, self._raw_arrivals, self._posts, self._arrivals, self._final_seq, self._sends,
                      self._refused_ids):
            store.clear()


REC = Recorder()


def install_timing() -> None:
    """Time :mod:`rooms.demo_client` without changing its play: a timing ``httpx.AsyncClient``, a socket
    proxy that stamps arrivals, the socket actions' sends stamped, and a seat that, once its game is over,
    waits (≤ 10 s) for its own socket to deliver the final seq before the client closes it."""
    import httpx

    from rooms import demo_client

    class TimedAsyncClient(httpx.AsyncClient):
        async def request(self, method, url, *a, **kw):
            path = REQUEST_PATH.sub(r"/\1/{id}", httpx.URL(str(url)).path)  # ids and room codes as {id}
            REC.requests.append((time.perf_counter(), method + " " + path))
            return await super().request(method, url, *a, **kw)

        async def post(self, url, *a, **kw):
            m = ACTION_PATH.search(str(url))
            if not m:
                return await super().post(url, *a, **kw)
            t0 = time.perf_counter()
            res = await super().post(url, *a, **kw)
            t1 = time.perf_counter()
            if res.status_code == 200:
                REC.posted(int(m.group(1)), t0, t1, (kw.get("json") or {}).get("type"), res.content)
            else:
                try:
                    REC.refused[res.json().get("code", res.status_code)] += 1
                except ValueError:
                    REC.refused[res.status_code] += 1
            return res

    class TimedSocket:
        def __init__(self, ws, key: str):
            self.ws, self.key = ws, key

        async def __aiter__(self):
            async for raw in self.ws:
                REC.arrived(self.key, raw)
                yield raw

        def __getattr__(self, name):
            return getattr(self.ws, name)

    reader = demo_client._socket_reader

    async def timed_reader(client, ws, changed, ready):
        await reader(client, TimedSocket(ws, client.token), changed, ready)

    send = demo_client.send_action

    async def timed_send(client, game_id, message):
        t0 = time.perf_counter()
        await send(client, game_id, message)
        REC.sent(game_id, client.token, t0, message["action"]["seq"], message["action"].get("type"),
                 message["action_id"])

    demo_client.httpx = types.SimpleNamespace(**{**vars(httpx), "AsyncClient": TimedAsyncClient})  # the rest as it is
    demo_client._socket_reader = timed_reader
    demo_client.send_action = timed_send


async def drain(clients: list, game_id: int) -> None:
    """The demo client's ``before_close``: before a room's sockets close (≤ 10 s in all), wait until no
    action of ANY game has been answered for 1 s (so that the messages are decoded once the whole phase is
    quiet, never while other rooms are being timed; a room that ended early in a ``--single-game`` phase
    only keeps its sockets open for 10 s), then until every seat's socket has every seq posted."""
    end = time.perf_counter() + 10.0
    while time.perf_counter() - REC.last_answer < 1.0:
        if time.perf_counter() >= end:
            return
        await asyncio.sleep(0.02)
    while time.perf_counter() < end:
        final = REC.final_seq.get(game_id, -1)
        if final < 0 or all(final in REC.arrivals[game_id][c.token] for c in clients):
            return
        await asyncio.sleep(0.02)


async def play_phase(servers: list[str], game: str, n: int, seats_cycle: list[int], timeout: float, seed: int,
                     rules: dict, ramp: float = 0.0, think: tuple[float, float] | None = None,
                     play_seconds: float | None = None, rematch: bool = False, on_go=None,
                     actions: str = "rest", start_spread: float = 0.0) -> dict:
    """N rooms set up (guests, room, joins, every seat's socket open; a room every ``ramp`` s), then their
    games started together: ``on_go()`` is called at that moment (the measured part begins). ``think``:
    the seats' thinking time per decision; ``play_seconds``: the seats stop acting that long after the
    start (unfinished games are left as they are); ``rematch``: a room whose game ended starts the next
    one at once (its host's ``rematch``), so that N games are in play until ``play_seconds``; ``actions``:
    the seats POST their actions (``rest``) or send them on their sockets (``socket``); ``start_spread``: the
    first games start evenly over this many seconds after the start (0: all at once). Returns
    ``{seats, results, setup}``, a result per room (:func:`rooms.demo_client.play_game`)."""
    from rooms.demo_client import play_game

    seats = [seats_cycle[i % len(seats_cycle)] for i in range(n)]
    loop = asyncio.get_running_loop()
    go, stop = asyncio.Event(), asyncio.Event()
    settled = 0  # games set up, or failed before
    box: dict = {}
    t_setup = time.perf_counter()

    def one_settled() -> None:
        nonlocal settled
        settled += 1
        if settled == n and not go.is_set():
            box["setup"] = time.perf_counter() - t_setup
            if play_seconds is not None:
                loop.call_later(play_seconds, stop.set)
            if on_go is not None:
                on_go()
            go.set()

    async def ready() -> None:
        one_settled()
        await go.wait()

    async def one(i: int, s: int) -> dict:
        await asyncio.sleep(i * ramp)  # games join in turn: sign-ups and handshakes do not all collide
        # Each room is made on the servers in turn; its seats are split over every server (seat i: server i).
        k = i % len(servers)
        waited = False

        async def before_start():
            nonlocal waited
            waited = True
            await ready()
            await asyncio.sleep(start_spread * i / n)  # the starts spread evenly over start_spread s

        kind = GAMES[i % len(GAMES)] if game == MIXED else game  # mixed: the two games alternate
        try:
            return await play_game(servers[k], game=kind, seats=s, rules=rules[kind] if game == MIXED else rules,
                                   seed=seed + i, timeout=timeout,
                                   servers=servers[k:] + servers[:k], think=think, before_start=before_start,
                                   stop=stop, rematch=rematch, before_close=drain, actions=actions)
        finally:
            if not waited:
                one_settled()

    async def probe_lag() -> None:
        """The load generator's own delay: how late a 50 ms sleep wakes, from the start until the seats
        stop (a late wake-up delays every arrival this process stamps, and so every latency it reports)."""
        await go.wait()
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(LAG_PROBE_SECONDS)
            box.setdefault("lag", []).append(time.perf_counter() - t - LAG_PROBE_SECONDS)

    prober = asyncio.create_task(probe_lag())
    results = await asyncio.gather(*(one(i, s) for i, s in enumerate(seats)), return_exceptions=True)
    prober.cancel()
    return {"seats": seats, "results": results, "setup": box.get("setup", float("nan")), "lag": box.get("lag", [])}


LAG_PROBE_SECONDS = 0.05


def _run(coro):
    try:
        import uvloop

        return uvloop.run(coro)
    except ImportError:
        return asyncio.run(coro)


GET_REQUESTS_PER_CONNECTION = 50
GET_CONNECTION_SECONDS = 1.0


async def _hammer_me(servers: list[str], token: str, seconds: float, concurrency: int) -> tuple[int, int]:
    """``concurrency`` clients (keep-alive) each sending ``GET /api/me`` in a loop for ``seconds``, spread
    over the servers. Returns (answered 200, other answers).

    Each client starts 20 ms after the one before and moves to a new connection (``Connection: close`` on
    the last request of one) every ``GET_REQUESTS_PER_CONNECTION`` requests or ``GET_CONNECTION_SECONDS``,
    whichever comes first (a new ``httpx.AsyncClient`` instead cost the client more than the GET):
    connections opened all at once all went to the one worker process that woke first (asyncio accepts
    every pending connection of a wake-up), so one core served the whole phase while the server's other
    worker idled; renewed connections land on the workers in turn as they get busy (:func:`run_get_phase`
    reports the busiest worker's share). On a slow machine (70 GET/s, 4 a second per client) a count alone
    renewed nothing within a 10 s phase."""
    import httpx

    ok = bad = 0
    end = time.perf_counter() + seconds

    async def one(i: int) -> None:
        nonlocal ok, bad
        await asyncio.sleep(i * 0.02)
        async with httpx.AsyncClient(base_url=servers[i % len(servers)], timeout=30,
                                     headers={"Authorization": f"Token {token}"}) as http:
            sent, since = 0, time.perf_counter()
            while (now := time.perf_counter()) < end:
                # The last request of a connection asks the server to close it; the next opens a new one.
                last = sent + 1 >= GET_REQUESTS_PER_CONNECTION or now - since >= GET_CONNECTION_SECONDS
                res = await http.get("/api/me", headers={"Connection": "close"} if last else None)
                sent, since = (0, time.perf_counter()) if last else (sent + 1, since)
                if res.status_code == 200:
                    ok += 1
                else:
                    bad += 1

    await asyncio.gather(*(one(i) for i in range(concurrency)))
    return ok, bad


def machine_busy(seconds: float = 1.0) -> float:
    """Cores the whole machine kept busy over the next ``seconds`` (``/proc/stat``; 0 where it is missing)."""
    def busy_and_total() -> tuple[int, int]:
        with open("/proc/stat") as f:
            ticks = [int(t) for t in f.readline().split()[1:]]
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
        return sum(ticks) - idle, sum(ticks)

    try:
        busy0, total0 = busy_and_total()
        time.sleep(seconds)
        busy1, total1 = busy_and_total()
    except OSError:
        return 0.0
    return (os.cpu_count() or 1) * (busy1 - busy0) / max(1, total1 - total0)


def wait_until_quiet(limit: float = 60.0, cores: float = 0.25) -> float:
    """Wait until the machine is quiet (under ``cores`` busy for a second: the Celery worker done with a
    game phase's finished games, the sockets of its rooms closed) or ``limit`` seconds passed; returns the
    seconds waited. A GET phase measured while that work still ran would count a slower GET/s."""
    start = time.monotonic()
    while time.monotonic() - start < limit and machine_busy() >= cores:
        pass
    return time.monotonic() - start


def run_get_phase(servers: list[str], stack: Stack, args) -> dict:
    """Bare authenticated ``GET /api/me`` on a quiet machine (:func:`wait_until_quiet` first): requests/s
    and the web servers' CPU per request (``waited``: seconds it waited for the quiet machine; the limit,
    60, means it never came)."""
    import httpx

    waited = wait_until_quiet()
    if waited >= 1.5:
        log(f"GET /api/me: waited {waited:.0f} s for a quiet machine")
    token = httpx.post(f"{servers[0]}/api/auth/guest", json={"display_name": "Bench GET"}, timeout=30).json()["token"]
    per0, wall0, load0 = web_cpu_by_process(stack), time.perf_counter(), os.getloadavg()[0]
    ok, bad = _run(_hammer_me(servers, token, args.get_seconds, args.get_concurrency))
    wall = time.perf_counter() - wall0
    used = {pid: t - per0.get(pid, 0.0) for pid, t in web_cpu_by_process(stack).items()}
    cpu = sum(used.values())
    stack.check_alive()
    return {"requests": ok, "errors": bad, "wall": wall, "rate": ok / wall, "server_cpu": cpu, "waited": waited,
            "cpu_per_request": cpu / max(1, ok), "load": (load0, os.getloadavg()[0]),
            "busiest_worker_share": max(used.values()) / cpu if cpu > 0 else float("nan")}


class CpuSampler:
    """The web processes' CPU seconds sampled every ``every`` s in a thread, so that the CPU of any window
    inside the phase can be read afterwards (:meth:`between`, linear between samples)."""

    def __init__(self, stack: Stack, every: float = 0.2):
        self.stack, self.every = stack, every
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append((time.perf_counter(), web_cpu(self.stack)))
            if self._stop.wait(self.every):
                self.samples.append((time.perf_counter(), web_cpu(self.stack)))
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def at(self, t: float) -> float:
        xs = self.samples
        if not xs:
            return float("nan")
        if t <= xs[0][0]:
            return xs[0][1]
        for (t0, c0), (t1, c1) in zip(xs, xs[1:], strict=False):
            if t0 <= t <= t1:
                return c0 + (c1 - c0) * ((t - t0) / (t1 - t0) if t1 > t0 else 0.0)
        return xs[-1][1]

    def between(self, t0: float, t1: float) -> float:
        return self.at(t1) - self.at(t0)


def end_unfinished(db: str, game_ids: set[int]) -> int:
    """Mark the phase's games still playing as aborted (its seats stopped at ``--play-seconds``, or
    ``--timeout`` cut them), straight in the database, so that they do not go on as background load:
    once their seats' sockets closed, the away grace would pass and the CPU would play them, on the
    Celery worker and PostgreSQL, through the later phases (measured: the last phases' p99 and the last
    GET phase degraded). Their queued timer and CPU tasks find them over and do nothing. Returns how many."""
    if not game_ids:
        return 0
    with _pg(db) as conn:
        cur = conn.execute("UPDATE games_game SET status = 'aborted', deadline = NULL, bot_due_at = NULL "
                           "WHERE id = ANY(%s) AND status = 'playing'", [sorted(game_ids)])
        return cur.rowcount


def phase_seconds(args, think: tuple[float, float] | None) -> float | None:
    """How long the seats of a phase act: ``--play-seconds`` with thinking time, ``--closed-seconds``
    without (``None``, until every game ended, with ``--single-game``)."""
    if think is not None:
        return args.play_seconds
    return None if args.single_game else args.closed_seconds


def run_phase(servers: list[str], stack: Stack, game: str, n: int, args, think: tuple[float, float] | None,
              via: str = "rest") -> dict:
    """One phase: N games of ``game`` set up, started together, played (with ``think``, for at most
    ``--play-seconds``; the seats' actions POSTed, ``via`` rest, or sent on their sockets, ``via`` socket).
    The measured window runs from the start to the last action answered (a socket action: to the last one
    sent or answered on the actor's socket): actions/s, the web processes' CPU in that window, fan-out
    latencies of the actions in it."""
    REC.clear()
    REC.via = via
    client0, wall0 = time.process_time(), time.perf_counter()
    load0 = os.getloadavg()[0]
    marks: dict = {}

    roles = stack_roles(stack, args)
    seconds = phase_seconds(args, think)
    marks["res_setup"] = procstats.snapshot(roles)  # before the phase's guests, rooms and sockets

    def at_go() -> None:  # in a thread: reading every process's memory takes a while
        marks["res_go"] = procstats.snapshot(roles)
        marks["spread"] = procstats.socket_spread(roles, [int(u.rsplit(":", 1)[1]) for u in servers])

    def at_stop() -> None:
        marks["res_stop"], marks["stop"] = procstats.snapshot(roles), time.perf_counter()

    def on_go() -> None:
        # The load generator's own heap (every seat's client and socket) out of its collections' reach, and
        # no collection until the seats stop: the clients stand for 3,000 devices, but one process's pause
        # (full collections 0.5-1.1 s; with rare young ones, 60-190 ms every ~12 s) was counted in the
        # latency of every action in flight. Its cyclic garbage waits for the end of the phase.
        gc.freeze()
        gc.disable()
        marks["go"] = time.perf_counter()
        marks["client_go"] = time.process_time()
        marks["load_go"] = os.getloadavg()[0]
        marks["per_process_go"] = web_cpu_by_process(stack)
        threading.Thread(target=at_go, daemon=True).start()
        if seconds is not None:  # just before the seats stop: the load is still whole
            threading.Timer(max(0.0, seconds - 1.0), at_stop).start()
        if args.profile and seconds is not None:  # the middle of the phase
            at = args.profile_at if args.profile_at is not None else max(0.0, (seconds - args.profile) / 2)
            threading.Timer(at, profile_web, (roles, args.profile, Path(args.profile_dir), f"{game}-{n}",
                                              args.profile_idle, args.profile_gil)).start()
        log(f"{game}: {n} games set up, started")

    with CpuSampler(stack) as cpu:
        coro = play_phase(servers, game, n, args.seats, args.timeout, args.seed,
                          args.rules if game == MIXED else args.rules[game], args.ramp,
                          think=think, play_seconds=phase_seconds(args, think), rematch=not args.single_game,
                          on_go=on_go, actions=via, start_spread=args.start_spread)
        try:
            phase = _run(coro)
        finally:
            gc.enable()
    wall = time.perf_counter() - wall0
    per0 = marks.get("per_process_go", {})
    used = {pid: t - per0.get(pid, 0.0) for pid, t in web_cpu_by_process(stack).items()}
    stack.check_alive()
    ok = [r for r in phase["results"] if isinstance(r, dict)]
    failed = [r for r in phase["results"] if not isinstance(r, dict)]
    for exc in failed:
        log(f"{game}: a game did not finish: {type(exc).__name__}: {exc}")  # TimeoutError: cut by --timeout
    # a game cut by the timeout: its seats are the sockets that saw it
    seats_of = {g: len(socks) for g, socks in REC.arrivals.items()}
    seats_of.update({g["game_id"]: n for r, n in zip(phase["results"], phase["seats"], strict=True)
                     if isinstance(r, dict) for g in r["games"]})
    games_played = [g for r in ok for g in r["games"]]
    left = end_unfinished(args.db, set(seats_of))
    if left:
        log(f"{game}: {left} unfinished games ended (aborted in the database)")
    posts = list(REC.posts)
    lat, missed = fanout_latencies([(g, s, t0) for g, s, t0, _t1, _k in posts], REC.arrivals, seats_of)
    http = [t1 - t0 for _g, _s, t0, t1, _k in posts if t1 == t1]  # NaN: the actor's socket never got it
    # The same once every first game has started and 5 s more passed: play without the start's burst.
    settle_after = args.start_spread + 5.0
    settled_lat, _ = fanout_latencies([(g, s, t0) for g, s, t0, _t1, _k in posts
                                       if t0 >= marks.get("go", 0.0) + settle_after], REC.arrivals, seats_of)
    first = min((p[2] for p in posts), default=float("nan"))
    last = max((t for p in posts for t in (p[2], p[3]) if t == t), default=float("nan"))
    span = last - first
    go = marks.get("go", first)
    server_cpu = cpu.between(go, last) if posts else float("nan")
    if "res_stop" not in marks:
        at_stop()
    resources = procstats.usage(marks["res_go"], marks["res_stop"], marks["stop"] - go) if "res_go" in marks else {}
    if resources:  # what the set-up added: every seat's guest, room, seat and open socket, across the stack
        setup = procstats.usage(marks["res_setup"], marks["res_go"], 1.0)
        resources["per_socket_kb"] = (setup["stack_mb_after"] - setup["stack_mb_before"]) * 1000 / max(1, sum(phase["seats"]))
    return {
        "resources": resources, "spread": marks.get("spread", {}),
        "game": game, "n": n, "think": think, "via": via, "seats": phase["seats"], "games": len(seats_of),
        "finished": sum(1 for g in games_played if g["status"] == "finished"),
        "failed": len(failed), "setup": phase["setup"],
        "actions": len(posts), "server_seq_total": sum(g["seq"] for g in games_played), "span": span, "wall": wall,
        "rate": len(posts) / span if posts else 0.0, "latency": summarize(lat),
        "latency_settled": summarize(settled_lat), "settled_from": settle_after, "http": summarize(http),
        "missed": missed, "refused": dict(REC.refused), "server_cpu": server_cpu,
        "requests_in_play": dict(collections.Counter(k for t, k in REC.requests
                                                     if t >= marks.get("go", wall0) and t <= marks.get("stop", time.perf_counter()))),
        "client_loop_lag": summarize(phase.get("lag", [])),
        "client_cpu": time.process_time() - marks.get("client_go", client0),
        "load": (marks.get("load_go", load0), os.getloadavg()[0]),
        "per_game_actions": sorted(g["seq"] for g in games_played if g["status"] == "finished"),
        "busiest_worker_share": max(used.values()) / sum(used.values()) if sum(used.values()) > 0 else float("nan"),
    }


# ------------------------------------------------------------------------------- timers
TIMER_TURN_SECONDS = 30
TIMER_EARLY_TOLERANCE = 0.05  # seconds a timer may act before its deadline (games.services.EARLY_TOLERANCE)


async def start_timer_games(servers: list[str], k: int) -> list[int]:
    """``--timer-games``: ``k`` 2-seat Chinchirorin rooms (first dealer seat 0, ``turn_seconds`` 30) whose
    two guests start the game and then never act nor open a socket: every decision of theirs is the turn
    timer's, later (three timeouts make a seat away) the CPU's, all run by the Celery workers. Made on the
    servers in turn. Returns the game ids."""
    import httpx

    from rooms.demo_client import new_guest

    ids = []
    for i in range(k):
        async with httpx.AsyncClient(base_url=servers[i % len(servers)], timeout=30) as http:
            host, other = [{"Authorization": f"Token {await new_guest(http, f'Timer {i}-{j}')}"} for j in (0, 1)]
            res = await http.post("/api/rooms", headers=host, json={
                "game": "chinchirorin", "seats": 2, "turn_seconds": TIMER_TURN_SECONDS, "rules": {"first_dealer": "seat"}})
            code = res.json()["code"]
            (await http.post(f"/api/rooms/{code}/join", headers=other)).raise_for_status()
            res = await http.post(f"/api/rooms/{code}/start", headers=host)
            res.raise_for_status()
            ids.append(res.json()["game_id"])
    return ids


def check_timer_games(db: str, ids: list[int]) -> dict:
    """What the timers did in the ``--timer-games`` games, read from the log: every ``timeout`` row must
    come at least ``TIMER_TURN_SECONDS`` (less ``TIMER_EARLY_TOLERANCE``) after the row before it (the
    game's start for seq 1), the moment its window opened: a timer that fired twice, or early, would close
    a window before its deadline. Returns the rows by kind, ``early`` (must be 0) and the lateness after
    the deadline (p50, max, s)."""
    if not ids:
        return {}
    with _pg(db) as conn:
        starts = dict(conn.execute("SELECT id, created_at FROM games_game WHERE id = ANY(%s)", [ids]).fetchall())
        rows = conn.execute("SELECT game_id, seq, by, created_at FROM games_gameaction WHERE game_id = ANY(%s) "
                            "ORDER BY game_id, seq", [ids]).fetchall()
    kinds, late, early = collections.Counter(), [], 0
    previous = dict(starts)
    for game_id, _seq, by, at in rows:
        kinds[by] += 1
        if by == "timeout":
            gap = (at - previous[game_id]).total_seconds()
            if gap < TIMER_TURN_SECONDS - TIMER_EARLY_TOLERANCE:
                early += 1
            late.append(gap - TIMER_TURN_SECONDS)
        previous[game_id] = at
    late.sort()
    return {"games": len(ids), "rows": dict(kinds), "timeouts": len(late), "early": early,
            "late_p50": late[len(late) // 2] if late else None, "late_max": late[-1] if late else None}


# ------------------------------------------------------------------------------- query counts
def setup_django(env: dict) -> None:
    for k in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CELERY_TASK_ALWAYS_EAGER", "CELERY_TASK_DEFAULT_QUEUE",
              "GAMES_TIME_SCALE"):
        os.environ.pop(k, None)
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DEBUG", "DATABASE_URL", "REDIS_URL",
                                          "THROTTLE_GUEST", "THROTTLE_ROOM_LOOKUP", "THROTTLE_ROOM_LOOKUP_ADDRESS",
                                          "LOG_LEVEL")})
    import django

    django.setup()


def measure_queries(game: str, seats: int, seed: int, max_actions: int) -> list[dict]:
    """Play one whole game of ``seats`` seats in process through the test ``Client``; every POST of an
    action is counted (request) and so is the ``game_apply_action`` call inside it (service)."""
    import random

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import services
    from rooms.demo_client import _choose

    client = Client(HTTP_HOST="127.0.0.1")

    def call(method: str, path: str, token: str | None = None, body: dict | None = None, ok=(200, 201)) -> dict:
        headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
        fn = getattr(client, method)
        res = fn(path, data=json.dumps(body or {}), content_type="application/json", **headers) if method == "post" \
            else fn(path, **headers)
        if res.status_code not in ok:
            raise RuntimeError(f"{method.upper()} {path}: {res.status_code} {res.content[:300]!r}")
        return res.json()

    tokens = [call("post", "/api/auth/guest", body={"display_name": f"Q{i}"}, ok=(201,))["token"]
              for i in range(seats)]
    room = call("post", "/api/rooms", tokens[0], {"game": game, "seats": seats}, ok=(201,))
    for t in tokens[1:]:
        call("post", f"/api/rooms/{room['code']}/join", t)
    game_id = call("post", f"/api/rooms/{room['code']}/start", tokens[0], ok=(201,))["game_id"]

    inner: list = []
    original = services.game_apply_action

    def counted(**kw):
        ctx = CaptureQueriesContext(connection)
        try:
            with ctx:
                return original(**kw)
        finally:
            inner.append([q["sql"] for q in ctx.captured_queries])

    services.game_apply_action = counted  # games.apis calls services.game_apply_action
    rngs = [random.Random(f"q{seed}:{i}") for i in range(seats)]
    memories: list[dict] = [{} for _ in range(seats)]
    samples: list[dict] = []
    try:
        view = call("get", f"/api/games/{game_id}", tokens[0])
        while view["status"] == "playing" and len(samples) < max_actions:
            seat = view["awaiting"][0]
            sview = call("get", f"/api/games/{game_id}", tokens[seat])
            if not sview["legal_actions"]:
                raise RuntimeError(f"seat {seat} awaited with no legal action at seq {sview['seq']}")
            action = _choose(sview, rngs[seat], memories[seat])
            inner.clear()
            with CaptureQueriesContext(connection) as outer:
                view = call("post", f"/api/games/{game_id}/actions", tokens[seat], {**action, "seq": sview["seq"]})
            samples.append({"game": game, "seats": seats, "seq": view["seq"], "type": action["type"],
                            "final": view["status"] != "playing", "request": len(outer.captured_queries),
                            "service": len(inner[0]), "sql": [sql_shape(q) for q in inner[0]]})
    finally:
        services.game_apply_action = original
    return samples


# ----------------------------------------------------------------------------------------- report
def think_text(think: tuple[float, float] | None) -> str:
    return "0" if think is None else f"{think[0]:g}–{think[1]:g} s"


def ms(x: float) -> str:
    return "–" if x != x else f"{x * 1000:.0f}" if x >= 0.1 else f"{x * 1000:.1f}"


def report_get(gets: list[dict]) -> str:
    rows = [[f"{g['rate']:.0f}", g["requests"], g["errors"], f"{g['cpu_per_request'] * 1000:.2f}",
             f"{g['busiest_worker_share']:.0%}", f"{g['load'][0]:.1f}→{g['load'][1]:.1f}"] for g in gets]
    return table(["GET /api/me req/s", "requests", "errors", "server CPU ms/GET", "busiest web process", "load"],
                 rows)


def report_ratios(phases: list[dict], gets: list[dict]) -> str:
    """actions/s ÷ GET/s and CPU per action ÷ CPU per GET (the GET figures averaged over the run's GET phases)."""
    if not gets:
        return ""
    get_rate = sum(g["rate"] for g in gets) / len(gets)
    get_cpu = sum(g["cpu_per_request"] for g in gets) / len(gets)
    rows = [[p["game"], p["n"], think_text(p["think"]), p["via"], f"{p['rate']:.1f}", f"{get_rate:.0f}",
             f"{p['rate'] / get_rate:.2f}", f"{p['server_cpu'] * 1000 / max(1, p['actions']):.2f}",
             f"{get_cpu * 1000:.2f}", f"{p['server_cpu'] / max(1, p['actions']) / get_cpu:.2f}"] for p in phases]
    return table(["game", "N", "think", "actions", "actions/s", "GET/s", "actions/s ÷ GET/s", "CPU ms/action", "CPU ms/GET",
                  "CPU action ÷ GET"], rows)


def report_phases(phases: list[dict], args) -> str:
    headers = ["game", "N", "think", "via", "seats", "set-up s", "games finished/played", "actions", "actions/s", "p50 ms",
               "p95 ms", "p99 ms", "max ms", "missed", "answer p50 ms", "409/4xx", "server CPU ms/action", "load"]
    rows = []
    for p in phases:
        lat, http = p["latency"], p["http"]
        seats = "/".join(str(s) for s in sorted(set(p["seats"])))
        refused = sum(p["refused"].values())
        rows.append([p["game"], p["n"], think_text(p["think"]), p["via"], seats, f"{p['setup']:.1f}",
                     f"{p['finished']}/{p['games']}",
                     p["actions"], f"{p['rate']:.1f}",
                     ms(lat["p50"]), ms(lat["p95"]), ms(lat["p99"]), ms(lat["max"]), p["missed"], ms(http["p50"]),
                     refused, f"{p['server_cpu'] * 1000 / max(1, p['actions']):.1f}",
                     f"{p['load'][0]:.1f}→{p['load'][1]:.1f}"])
    return table(headers, rows)


def report_resources(p: dict) -> str:
    """Who was busy in a phase (from its start to just before the seats stopped): cores and memory (MB, as
    ``procstats.snapshot`` counts it, at the start → at the end) of each role, each web process with its
    share of the established connections."""
    res, spread = p["resources"], {int(k): v for k, v in p.get("spread", {}).items()}
    rows = [[role, f"{res[role]['cores']:.2f}",
             f"{res[role]['mb_before']:.0f} → {res[role]['mb_after']:.0f}" if role != "machine" else "–"]
            for role in ("web", "celery", "postgres", "redis", "load", "machine") if role in res]
    for pid, r in res.get("web", {}).get("per_process", {}).items():
        if spread.get(pid) or r["cores"] >= 0.005:
            rows.append([f"  web pid {pid} ({spread.get(pid, 0)} connections)", f"{r['cores']:.2f}", f"{r['mb']:.0f}"])
    growth = res["stack_mb_after"] / res["stack_mb_before"] - 1 if res.get("stack_mb_before") else float("nan")
    rows.append(["stack (all but load)", "", f"{res['stack_mb_before']:.0f} → {res['stack_mb_after']:.0f} "
                 f"({growth:+.1%})"])
    if "per_socket_kb" in res:
        rows.append(["set-up's memory per seat (guest, seat, open socket)", "", f"{res['per_socket_kb']:.0f} KB"])
    st = p.get("latency_settled")
    settled = (f"; from {p['settled_from']:.0f} s after the start (the first games all started): {st['n']} actions, "
               f"p50 {ms(st['p50'])} ms, p95 {ms(st['p95'])} ms, p99 {ms(st['p99'])} ms, max {ms(st['max'])} ms"
               if st else "")
    lag = p.get("client_loop_lag") or {}
    lagged = (f"; the load generator's loop woke late by p50 {ms(lag['p50'])} ms, p99 {ms(lag['p99'])} ms, "
              f"max {ms(lag['max'])} ms" if lag.get("n") else "")
    return (f"{p['game']} {p['n']} {think_text(p['think'])} via {p['via']}{settled}{lagged}\n"
            + table(["process", "cores", "memory MB"], rows))


def report_queries(samples: list[dict]) -> str:
    rows = []
    for r in query_summary(samples):
        svc = str(r["service_min"]) if r["service_min"] == r["service_max"] else f"{r['service_min']}–{r['service_max']}"
        req = str(r["request_min"]) if r["request_min"] == r["request_max"] else f"{r['request_min']}–{r['request_max']}"
        rows.append([r["game"], r["type"] + (" (last)" if r["final"] else ""), r["seats"], r["n"], svc, req])
    out = [table(["game", "action", "seats", "actions", "queries in game_apply_action", "queries in the POST"], rows)]
    const = constant_per_type(samples)
    for (game, kind), same in sorted(const.items()):
        if not same:
            out.append(f"NOT constant: {game} {kind}")
            by_count: dict[int, dict] = {}
            for s in samples:
                if s["game"] == game and s["type"] == kind and not s["final"]:
                    by_count.setdefault(s["service"], s)
            for count, s in sorted(by_count.items()):
                shapes = collections.Counter(s["sql"])
                out.append(f"  {count} queries (seats {s['seats']}, seq {s['seq']}): "
                           + ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in shapes.items()))
    if samples and all(const.values()):
        out.append("Every action type makes a constant number of queries (independent of seq and seat count).")
    shapes_by_kind: dict[tuple[str, str], list[str]] = {}
    for s in samples:
        shapes_by_kind.setdefault((s["game"], s["type"] + (" (last)" if s["final"] else "")), s["sql"])
    out.append("Queries of one action (game_apply_action):")
    for (game, kind), shapes in sorted(shapes_by_kind.items()):
        out.append(f"  {game} {kind}: " + "; ".join(shapes))
    return "\n".join(out)


# ------------------------------------------------------------------------------------------- main
def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="16,64", help="N concurrent games per game type, a phase per N (default 16,64)")
    ap.add_argument("--game", choices=[*GAMES, "both", MIXED], default="both",
                    help="a phase per game (both), one game's, or one phase whose rooms alternate the games (mixed)")
    ap.add_argument("--seats", default="4,3,2", help="seats per room, cycled over the N rooms (default 4,3,2)")
    ap.add_argument("--workers", type=int, default=WORKERS_PER_CORE * cores(),
                    help="uvicorn worker processes per server (default: as make run, two a core)")
    ap.add_argument("--servers", type=int, default=1,
                    help="uvicorn servers on their own ports; each game's seats are split over them (default 1)")
    ap.add_argument("--celery-workers", type=int, default=1, help="Celery worker instances (default 1)")
    ap.add_argument("--celery-concurrency", type=int, default=1, help="processes per Celery worker (default 1)")
    ap.add_argument("--channel-layer", choices=["pubsub", "core"], help="CHANNEL_LAYER (default: the service's)")
    ap.add_argument("--ramp", type=float, default=0.1, help="seconds between the set-ups of two games (default 0.1)")
    ap.add_argument("--think", default="0",
                    help="seats' thinking time per decision, a phase per item: 0 (none: as fast as the server "
                         "answers) or LOW-HIGH seconds, e.g. '0,1-2' (default 0)")
    ap.add_argument("--play-seconds", type=float, default=60.0,
                    help="phases with thinking time: seats stop acting this long after the start (default 60)")
    ap.add_argument("--closed-seconds", type=float, default=30.0,
                    help="phases without thinking time: seats stop acting this long after the start (default 30)")
    ap.add_argument("--start-spread", type=float, default=0.0,
                    help="the phase's first games start evenly over this many seconds (default 0: all at once, "
                         "a stampede no evening has: 1,000 starts and 3,000 reads of the new games in one instant)")
    ap.add_argument("--single-game", action="store_true",
                    help="each room plays one game, and a phase without thinking time lasts until every game "
                         "ended (the bench before rematches: the games in play fall from N as they end)")
    ap.add_argument("--get-seconds", type=float, default=10.0, help="seconds of GET /api/me load (0 skips)")
    ap.add_argument("--get-concurrency", type=int, default=16, help="concurrent GET /api/me clients (default 16)")
    ap.add_argument("--timeout", type=float, default=110.0, help="seconds per game phase (default 110)")
    ap.add_argument("--chinchirorin-rules", default="{}", help="room settings, JSON (default: the defaults)")
    ap.add_argument("--chinchon-rules", default="{}", help='room settings, JSON (e.g. \'{"elimination": 50}\')')
    ap.add_argument("--conn-max-age", help="CONN_MAX_AGE for the server (default: the service's, 0)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the clients' choices")
    ap.add_argument("--actions", default="rest",
                    help="how the seats send their actions, a phase each: rest (POST), socket (as the play page "
                         "does), or rest,socket (default rest)")
    ap.add_argument("--timer-games", type=int, default=0,
                    help="also K 2-seat games with 30 s turns nobody plays: the timers' work, checked at the end")
    ap.add_argument("--timer-seconds", type=float, default=150.0,
                    help="the timer games run at least this long before they are checked (default 150)")
    ap.add_argument("--query-seats", default="2,4", help="seat counts of the in-process query games ('' skips)")
    ap.add_argument("--query-actions", type=int, default=1000, help="at most this many actions per query game")
    ap.add_argument("--no-load", action="store_true", help="only the query counts, no server load")
    ap.add_argument("--db", default="chinchi_bench", help="PostgreSQL database created and dropped here")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/9", help="Redis database emptied and used here")
    ap.add_argument("--keep-db", action="store_true", help="do not drop the database at the end")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--profile", type=float, default=0,
                    help="phases with thinking time: py-spy each web process for this many seconds mid-phase")
    ap.add_argument("--profile-dir", default="var/bench-profiles", help="where --profile writes (collapsed stacks)")
    ap.add_argument("--profile-at", type=float, help="seconds after the start that --profile begins (default: mid-phase)")
    ap.add_argument("--profile-idle", action="store_true", help="--profile records waiting threads too")
    ap.add_argument("--profile-gil", action="store_true", help="--profile records only the thread holding the GIL")
    args = ap.parse_args(argv)
    args.seats = [int(s) for s in args.seats.split(",") if s]
    args.games = [int(n) for n in str(args.games).split(",") if n]
    try:
        args.think = [None if t.strip() in ("0", "") else tuple(float(x) for x in t.split("-", 1))
                      for t in args.think.split(",")]
    except ValueError:
        ap.error("--think: items 0 or LOW-HIGH")
    if any(t is not None and (len(t) != 2 or not 0 <= t[0] <= t[1]) for t in args.think):
        ap.error("--think: items 0 or LOW-HIGH with 0 <= LOW <= HIGH")
    args.query_seats = [int(s) for s in args.query_seats.split(",") if s]
    args.actions = [a.strip() for a in args.actions.split(",") if a.strip()]
    if not args.actions or any(a not in ("rest", "socket") for a in args.actions):
        ap.error("--actions: rest, socket or rest,socket")
    args.rules = {"chinchirorin": json.loads(args.chinchirorin_rules), "chinchon": json.loads(args.chinchon_rules)}
    if not re.fullmatch(r"\w+", args.db):
        ap.error("--db: letters, digits and _ only")
    if not args.redis.startswith(("redis://127.0.0.1", "redis://localhost")):
        ap.error("--redis: a loopback Redis only")
    return args


def _raise_interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv=None) -> int:
    gc.set_threshold(*GC_THRESHOLDS)  # the load generator's young collections as rare as a web process's
    args = parse_args(argv)
    games = list(GAMES) if args.game == "both" else [args.game]
    query_games = list(GAMES) if args.game in ("both", MIXED) else [args.game]
    signal.signal(signal.SIGTERM, _raise_interrupt)
    signal.signal(signal.SIGHUP, _raise_interrupt)
    env = bench_env(args)
    stack = None
    created = False
    phases, samples, gets, timers = [], [], [], {}
    logdir = Path(tempfile.mkdtemp(prefix="chinchi-bench-"))
    try:
        log(f"database {args.db}, redis {args.redis}, logs in {logdir}")
        create_database(args.db)
        created = True
        flush_redis(args.redis)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        stack, servers = start_stack(args, env, logdir)
        log(f"ready at {', '.join(servers)}: uvicorn ×{args.workers} each, celery worker ×{args.celery_workers} "
            f"(concurrency {args.celery_concurrency}), beat")
        timer_ids = asyncio.run(start_timer_games(servers, args.timer_games)) if args.timer_games else []
        timers_from = time.monotonic()
        if timer_ids:
            log(f"{len(timer_ids)} timer games started (30 s turns, no one acting)")
        if not args.no_load:
            install_timing()
            for n in args.games:
                if args.get_seconds > 0:
                    gets.append(run_get_phase(servers, stack, args))
                    log(f"GET /api/me: {gets[-1]['rate']:.0f}/s, {gets[-1]['cpu_per_request'] * 1000:.2f} ms CPU each, "
                        f"busiest web process {gets[-1]['busiest_worker_share']:.0%} of it")
                for think in args.think:
                    for game in games:
                        for via in args.actions:
                            rules = args.rules if game == MIXED else args.rules[game]
                            log(f"{game}: {n} concurrent games, seats {args.seats}, think {think_text(think)}, "
                                f"actions via {via}, rules {rules or 'default'}")
                            phase = run_phase(servers, stack, game, n, args, think, via)
                            phases.append(phase)
                            log(f"{game}: set up in {phase['setup']:.1f} s; {phase['actions']} actions in "
                                f"{phase['span']:.1f} s ({phase['rate']:.1f}/s), fan-out p50 {ms(phase['latency']['p50'])} "
                                f"ms p99 {ms(phase['latency']['p99'])} ms, missed {phase['missed']}")
            if args.get_seconds > 0:
                gets.append(run_get_phase(servers, stack, args))
        if timer_ids:
            wait = args.timer_seconds - (time.monotonic() - timers_from)
            if wait > 0:
                log(f"timer games: waiting {wait:.0f} s more")
                time.sleep(wait)
            timers = check_timer_games(args.db, timer_ids)
            log(f"timer games: {timers}")
        if args.query_seats:
            setup_django(env)
            for game in query_games:
                for seats in args.query_seats:
                    got = measure_queries(game, seats, args.seed, args.query_actions)
                    log(f"queries: {game} {seats} seats: {len(got)} actions counted")
                    samples.extend(got)
        stack.check_alive()
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        if stack is not None:
            stack.stop()
        try:
            flush_redis(args.redis)
        except Exception as exc:  # noqa: BLE001
            log(f"could not empty {args.redis}: {exc}")
        if created and not args.keep_db:
            try:
                from django.db import connections

                connections.close_all()
            except Exception:  # noqa: BLE001 - Django may not be set up
                pass
            try:
                drop_database(args.db)
            except Exception as exc:  # noqa: BLE001
                log(f"could not drop {args.db}: {exc}")
    print()
    print(f"Machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; {args.servers} server(s) × uvicorn "
          f"workers {args.workers}, {args.celery_workers} celery worker(s) × concurrency {args.celery_concurrency}; "
          f"CHANNEL_LAYER {args.channel_layer or 'default'}; CONN_MAX_AGE {args.conn_max_age or 'default (0)'}; "
          f"seats cycled {args.seats}; no CPU seats, turn_seconds null")
    if gets:
        print(report_get(gets))
        print()
    if phases and gets:
        print(report_ratios(phases, gets))
        print()
    if phases:
        print(report_phases(phases, args))
        for p in phases:
            per = p["per_game_actions"]
            spread = f"{per[0]}/{per[len(per) // 2]}/{per[-1]}" if per else "–"
            print(f"  {p['game']} {p['n']} {think_text(p['think'])} via {p['via']}: {p['games']} games played, "
                  f"{p['finished']} finished, "
                  f"actions per finished game min/median/max {spread}; server seq total {p['server_seq_total']}; "
                  f"refused {p['refused'] or 'none'}; answer p50/p99 {ms(p['http']['p50'])}/{ms(p['http']['p99'])} ms; "
                  f"client CPU {p['client_cpu']:.1f} s, server (uvicorn) CPU {p['server_cpu']:.1f} s in {p['wall']:.1f} s; "
                  f"busiest web process {p['busiest_worker_share']:.0%} of the web CPU from the start; "
                  f"the clients' HTTP requests during play {p.get('requests_in_play') or 'none'}")
    for p in phases:
        if p.get("resources"):
            print()
            print(report_resources(p))
    if timers:
        print()
        print("| timer games | timeout rows | fired early | late after deadline p50 / max | other rows |")
        print("|---|---|---|---|---|")
        late = f"{timers['late_p50']:.2f} / {timers['late_max']:.2f} s" if timers["timeouts"] else "–"
        other = {k: v for k, v in timers["rows"].items() if k != "timeout"}
        print(f"| {timers['games']} | {timers['timeouts']} | {timers['early']} | {late} | {other or 'none'} |")
    if samples:
        print()
        print(report_queries(samples))
    if args.json:
        Path(args.json).write_text(json.dumps({"gets": gets, "phases": phases, "queries": query_summary(samples),
                                               "timers": timers}, indent=1, default=str))
    return 0 if all(p["failed"] == 0 for p in phases) and not timers.get("early") else 1


if __name__ == "__main__":
    sys.exit(main())
