"""Soak run (on demand; not collected by pytest): the whole service for a long time under N concurrent
games with CPU seats, turn timers and scripted humans who drop and come back.

    .venv/bin/python bench/soak.py --minutes 30 --games 8 --json var/soak.json

The stack (bench/stack.py): a private Redis, a database of its own, ``python -m config.web`` (2 uvicorn
workers), a Celery worker (2 processes) and beat, ``AWAY_GRACE_SECONDS=5``. Then N tables, each two
scripted human guests and one CPU (``cpu_speed`` fast, ``turn_seconds`` 30), alternately Chinchirorin
(1 round) and Chinchón (elimination 50); when a game ends the table opens a new room and plays again.
A human acts 0.2-1.5 s after its turn comes (one of ``legal_actions``, ``rooms.demo_client``'s choice;
an ``action_id`` with each, the same again after a network error or a 5xx);
after an action it drops with probability ``--drop`` (closes its socket, says nothing for 5-45 s: the
seat turns away after the grace period and the CPU or a timeout plays for it), then reconnects, takes the
socket's snapshot (``seq``) and plays on.

Every ``--sample`` seconds: resident memory of every process, PostgreSQL connections to its database,
Redis memory, open sockets and games in progress (``/metrics``), actions applied. Counted: errors (any
5xx; any refusal other than the races a client retries: ``stale_seq``, ``not_your_turn``, ``game_over``,
``illegal_action``; a socket closed by the server; a client exception; ERROR lines in the server logs)
and stuck games (playing, no new ``seq`` for ``--stuck`` seconds although a 30 s timer runs). Prints a
table of the first and last samples and the maximum; ``--json`` writes every sample.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import random
import sys
import time
import uuid
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from stack import Stack, log  # noqa: E402

RETRIED = {"stale_seq", "not_your_turn", "game_over", "illegal_action"}


class Stats:
    def __init__(self):
        self.errors: collections.Counter = collections.Counter()
        self.examples: list[str] = []
        self.actions = 0
        self.drops = 0
        self.games_finished = 0
        self.games_started = 0
        self.stuck: set[int] = set()

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 20:
            self.examples.append(f"{kind}: {detail[:300]}")


class Human:
    """One scripted player: a token, a socket while present, the latest view it has."""

    def __init__(self, http: httpx.AsyncClient, ws_base: str, token: str, rng: random.Random, stats: Stats):
        self.http, self.ws_base, self.token, self.rng, self.stats = http, ws_base, token, rng, stats
        self.view: dict | None = None
        self.changed = asyncio.Event()
        self.ws = None
        self.reader: asyncio.Task | None = None
        self.pinger: asyncio.Task | None = None
        self.closing = False
        self.acked: set[str] = set()  # action_ids answered 200

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Token {self.token}"}

    def take(self, view: dict | None) -> None:
        if view and (self.view is None or view["id"] != self.view["id"] or view["seq"] >= self.view["seq"]):
            self.view = view
            self.changed.set()

    async def connect(self, code: str) -> None:
        self.closing = False
        self.ws = await websockets.connect(f"{self.ws_base}/ws/rooms/{code}/?token={self.token}", open_timeout=20,
                                           ping_interval=20)
        self.reader = asyncio.create_task(self._read())
        self.pinger = asyncio.create_task(self._ping())

    async def _ping(self) -> None:
        """``{"type": "ping"}`` every 20 s, as API.md asks (the server closes a socket silent for 60 s)."""
        with contextlib.suppress(Exception):
            while True:
                await asyncio.sleep(20)
                await self.ws.send(json.dumps({"type": "ping"}))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                if msg.get("type") == "game":
                    self.take(msg.get("view"))
        except Exception as exc:  # noqa: BLE001 - closed by the server or broken
            if not self.closing:
                self.socket_lost(exc)

    def socket_lost(self, exc: Exception) -> None:
        """The server closed the socket (or it broke) while the player was present: an error here."""
        if isinstance(exc, websockets.ConnectionClosed):
            self.stats.error("socket_closed_by_server", f"code {exc.rcvd.code if exc.rcvd else None}")
        else:
            self.stats.error("socket", repr(exc))

    async def disconnect(self) -> None:
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        for task in (self.reader, self.pinger):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self.ws = self.reader = self.pinger = None

    async def call(self, method: str, path: str, ok: tuple[int, ...], **kw) -> tuple[int, dict]:
        try:
            res = await self.http.request(method, path, headers=self.headers, **kw)
        except httpx.HTTPError as exc:
            self.stats.error("http_exception", f"{method} {path}: {exc!r}")
            return 0, {}
        body = res.json() if res.content else {}
        if res.status_code >= 500:
            self.stats.error("http_5xx", f"{method} {path}: {res.status_code} {res.text[:200]}")
        elif res.status_code not in ok and body.get("code") not in RETRIED:
            self.stats.error("http_refused", f"{method} {path}: {res.status_code} {body}")
        return res.status_code, body

    async def get_view(self, game_id: int) -> tuple[int, dict]:
        """``GET /api/games/{id}``; a 200 view is taken."""
        status, body = await self.call("GET", f"/api/games/{game_id}", (200,))
        if status == 200:
            self.take(body)
        return status, body

    async def post_action(self, game_id: int, action: dict) -> tuple[int, dict]:
        """``POST`` ``action`` with a fresh ``action_id``; after a network error or a 5xx (counted) the same
        body again, once a second, as a client should (the server applies it once)."""
        body = {**action, "action_id": uuid.uuid4().hex}
        for _attempt in range(60):
            status, answer = await self.call("POST", f"/api/games/{game_id}/actions", (200,), json=body)
            if status and status < 500:
                if status == 200:
                    self.acked.add(body["action_id"])
                return status, answer
            await asyncio.sleep(1.0)
        return 0, {}

    async def play(self, game_id: int, code: str, drop: float, stop_at: float) -> None:
        from rooms.demo_client import _choose

        memory: dict = {}
        while time.monotonic() < stop_at:
            view = self.view
            if view is not None and view["id"] == game_id and view["status"] != "playing":
                return
            if view is None or view["id"] != game_id or not view["legal_actions"]:
                self.changed.clear()
                try:
                    await asyncio.wait_for(self.changed.wait(), 5.0)
                except TimeoutError:
                    await self.get_view(game_id)
                continue
            await asyncio.sleep(self.rng.uniform(0.2, 1.5))
            if self.view is not view:
                continue  # something changed while thinking: decide again
            action = _choose(view, self.rng, memory)
            status, body = await self.post_action(game_id, {**action, "seq": view["seq"]})
            if status == 200:
                self.stats.actions += 1
                self.take(body)
                if self.rng.random() < drop:
                    self.stats.drops += 1
                    await self.disconnect()
                    await asyncio.sleep(self.rng.uniform(5, 45))
                    await self.connect(code)
            elif status == 409 and body.get("view"):
                self.take(body["view"])
            else:
                await self.get_view(game_id)


async def table(index: int, stack: Stack, stats: Stats, args, stop_at: float) -> None:
    ws_base = "ws" + stack.url[len("http"):]
    async with httpx.AsyncClient(base_url=stack.url, timeout=60) as http:
        tokens = []
        for i in range(2):
            res = await http.post("/api/auth/guest", json={"display_name": f"Soak {index}-{i}"})
            tokens.append(res.json()["token"])
        humans = [Human(http, ws_base, t, random.Random(f"soak:{index}:{i}"), stats) for i, t in enumerate(tokens)]
        round_ = 0
        while time.monotonic() < stop_at:
            game = "chinchirorin" if (index + round_) % 2 == 0 else "chinchon"
            rules = {"rounds": 1} if game == "chinchirorin" else {"elimination": 50}
            round_ += 1
            status, room = await humans[0].call("POST", "/api/rooms", (201,), json={
                "game": game, "seats": 3, "rules": rules, "turn_seconds": 30, "cpu_speed": "fast"})
            if status != 201:
                await asyncio.sleep(5)
                continue
            code = room["code"]
            await humans[1].call("POST", f"/api/rooms/{code}/join", (200,))
            for h in humans:
                h.view = None
                await h.connect(code)
            status, started = await humans[0].call("POST", f"/api/rooms/{code}/start", (201,))
            if status != 201:
                for h in humans:
                    await h.disconnect()
                continue
            game_id = started["game_id"]
            stats.games_started += 1
            watch = asyncio.create_task(_watch_stuck(humans[0], game_id, stats, args.stuck, stop_at))
            await asyncio.gather(*(h.play(game_id, code, args.drop, stop_at) for h in humans))
            watch.cancel()
            status, final = await humans[0].call("GET", f"/api/games/{game_id}", (200,))
            if status == 200 and final["status"] != "playing":
                stats.games_finished += 1
            for h in humans:
                await h.disconnect()


async def _watch_stuck(human: Human, game_id: int, stats: Stats, stuck_after: float, stop_at: float) -> None:
    last_seq, since = -1, time.monotonic()
    while time.monotonic() < stop_at:
        await asyncio.sleep(10)
        status, view = await human.call("GET", f"/api/games/{game_id}", (200,))
        if status != 200:
            continue
        if view["status"] != "playing":
            return
        if view["seq"] != last_seq:
            last_seq, since = view["seq"], time.monotonic()
        elif time.monotonic() - since > stuck_after and game_id not in stats.stuck:
            stats.stuck.add(game_id)
            stats.error("stuck_game", f"game {game_id} at seq {last_seq} for {stuck_after} s")


def sample(stack: Stack, stats: Stats, t0: float) -> dict:
    m = stack.metrics()
    actions = sum(v for k, v in m.items() if k.startswith("chinchi_game_actions_total"))
    return {
        "minute": round((time.monotonic() - t0) / 60, 1), "rss_mb": stack.rss_mb(),
        "db_connections": stack.db_connections(), "redis_mb": stack.redis_memory_mb(),
        "open_sockets": m.get("chinchi_open_sockets{}"),
        "games_in_progress": sum(v for k, v in m.items() if k.startswith("chinchi_games_in_progress")),
        "actions_applied": actions, "client_actions": stats.actions, "drops": stats.drops,
        "games_started": stats.games_started, "games_finished": stats.games_finished,
        "errors": sum(stats.errors.values()), "server_error_lines": stack.error_lines(),
        "queue_depth": sum(v for k, v in m.items() if k.startswith("chinchi_celery_queue_depth")),
        "timer_late_p_count": m.get("chinchi_timer_lateness_seconds_count{game=chinchirorin}", 0)
        + m.get("chinchi_timer_lateness_seconds_count{game=chinchon}", 0),
    }


async def main_async(args) -> dict:
    stack = Stack("soak", extra_env={"AWAY_GRACE_SECONDS": "5"})
    stats = Stats()
    samples = []
    try:
        await asyncio.to_thread(stack.up)
        t0 = time.monotonic()
        stop_at = t0 + args.minutes * 60
        loop = asyncio.get_running_loop()
        tables = [asyncio.create_task(table(i, stack, stats, args, stop_at)) for i in range(args.games)]
        await asyncio.sleep(20)  # let the tables seat and connect before the first sample
        while time.monotonic() < stop_at:
            samples.append(await loop.run_in_executor(None, sample, stack, stats, t0))
            s = samples[-1]
            log(f"min {s['minute']}: sockets {s['open_sockets']} games {s['games_in_progress']} actions "
                f"{s['actions_applied']:.0f} db {s['db_connections']} redis {s['redis_mb']} MB errors {s['errors']} "
                f"rss {sum(s['rss_mb'].values()):.0f} MB")
            await asyncio.sleep(min(args.sample, max(0.0, stop_at - time.monotonic())))
        results = await asyncio.gather(*tables, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                stats.error("table_crashed", repr(r))
        await asyncio.sleep(3)
        samples.append(await loop.run_in_executor(None, sample, stack, stats, t0))
        metrics = stack.metrics()
    finally:
        stack.down(keep_logs=args.keep_logs)
    return {"samples": samples, "errors": dict(stats.errors), "examples": stats.examples,
            "stuck": sorted(stats.stuck), "final_metrics": {k: v for k, v in metrics.items()
                                                            if "lateness" in k or "actions_total" in k}}


def report(out: dict) -> None:
    first, last = out["samples"][0], out["samples"][-1]
    peak = {k: max((s[k] or 0) for s in out["samples"]) for k in ("db_connections", "redis_mb", "open_sockets")}
    print("\n| measure | first sample | last sample | max |\n|---|---|---|---|")
    for key in ("minute", "db_connections", "redis_mb", "open_sockets", "games_in_progress", "actions_applied",
                "games_started", "games_finished", "drops", "errors", "queue_depth"):
        print(f"| {key} | {first[key]} | {last[key]} | {peak.get(key, '')} |")
    print("\n| process | RSS first (MB) | RSS last (MB) |\n|---|---|---|")
    for name in sorted(set(first["rss_mb"]) | set(last["rss_mb"])):
        print(f"| {name} | {first['rss_mb'].get(name, '-')} | {last['rss_mb'].get(name, '-')} |")
    print(f"\nerrors: {out['errors']}  stuck games: {out['stuck']}  server error lines: {last['server_error_lines']}")
    for ex in out["examples"]:
        print("  ", ex)
    print("timer lateness / actions:", json.dumps(out["final_metrics"], indent=None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--drop", type=float, default=0.03, help="chance a human drops after an action")
    parser.add_argument("--sample", type=float, default=60)
    parser.add_argument("--stuck", type=float, default=120)
    parser.add_argument("--json", default="")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()
    out = asyncio.run(main_async(args))
    report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
