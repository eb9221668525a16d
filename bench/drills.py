"""Fault drills (on demand; not collected by pytest): the whole service (bench/stack.py) under a small
live workload, one part broken mid-game, then checked.

    .venv/bin/python bench/drills.py                  # every drill
    .venv/bin/python bench/drills.py --only redis web  # some: redis, web, worker, beat, postgres

Workload during each drill: 3 tables of two scripted humans and one CPU (``turn_seconds`` 30, CPU fast;
the humans of bench/soak.py, here sending an ``action_id`` with every action, re-sending the same one
after a network error, and reconnecting a socket the server closed), plus one idle table: a Chinchirorin
game whose two humans never act, so its turn timer must fire. The fault (outage ``--outage`` seconds):

- ``redis``: the private Redis stopped and started again empty (no persistence: queues, countdowns,
  channel-layer groups and the cache are gone);
- ``web``: every uvicorn process SIGKILLed, started again;
- ``worker``: the Celery worker SIGKILLed during the idle game's countdown, started again;
- ``beat``: Celery beat stopped for ``--beat-outage`` seconds (default 120);
- ``postgres``: a private PostgreSQL cluster (never the shared server) stopped (fast) and started.

Checked after it (printed, one line per drill, for the README's table): every action a client got a 200
for is in the log once (``action_id`` unique; none lost); no ``seq`` applied twice (the log's unique
``(game, seq)``); the idle game's timeout applied once, and how late after its deadline; sockets closed by
the server and reconnected, and whether every client's view caught up with the server's ``seq``; what
``/healthz`` said during the outage; seconds until it said ok again; 5xx answers seen by clients.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from soak import Human, Stats  # noqa: E402
from stack import Stack, log  # noqa: E402


class DrillHuman(Human):
    """A soak human (an ``action_id`` with every action, re-sent after a network error) that also
reconnects a socket the server closed."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.code: str | None = None
        self.reconnects = 0
        self.server_closes = 0

    async def connect(self, code: str) -> None:
        self.code = code
        await super().connect(code)

    def socket_lost(self, exc: Exception) -> None:
        """Counted, then reconnected (once a second until the server takes it)."""
        self.server_closes += 1
        asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        while not self.closing:
            await asyncio.sleep(1.0)
            try:
                with contextlib.suppress(Exception):
                    self.pinger.cancel()
                await Human.connect(self, self.code)
                self.reconnects += 1
                return
            except Exception:  # noqa: BLE001 - the server is still down
                continue


async def _guest(http: httpx.AsyncClient, name: str) -> str:
    res = await http.post("/api/auth/guest", json={"display_name": name})
    return res.json()["token"]


async def _table(http, stack, stats, game: str, rules: dict, play: bool, stop_at: float, tag: str):
    ws_base = "ws" + stack.url[len("http"):]
    humans = [DrillHuman(http, ws_base, await _guest(http, f"{tag}{i}"), random.Random(f"{tag}{i}"), stats)
              for i in range(2)]
    body = {"game": game, "seats": 3 if play else 2, "rules": rules, "turn_seconds": 30, "cpu_speed": "fast"}
    room = (await http.post("/api/rooms", headers=humans[0].headers, json=body)).json()
    code = room["code"]
    await http.post(f"/api/rooms/{code}/join", headers=humans[1].headers)
    for h in humans:
        await h.connect(code)
    started = (await http.post(f"/api/rooms/{code}/start", headers=humans[0].headers)).json()
    game_id = started["game_id"]
    if play:
        task = asyncio.gather(*(h.play(game_id, code, 0.0, stop_at) for h in humans))
    else:
        task = None
    return {"game_id": game_id, "humans": humans, "task": task}


async def run_drill(name: str, args) -> dict:
    stack = Stack(f"drill_{name}", private_pg=(name == "postgres"), extra_env={"AWAY_GRACE_SECONDS": "60"})
    stats = Stats()
    out: dict = {"drill": name}
    try:
        await asyncio.to_thread(stack.up)
        outage = args.beat_outage if name == "beat" else args.outage
        stop_at = time.monotonic() + 25 + outage + args.after
        async with httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
            tables = [await _table(http, stack, stats, g, r, True, stop_at, f"D{name}{i}-")
                      for i, (g, r) in enumerate([("chinchon", {"elimination": 100}), ("chinchirorin", {"rounds": 3}),
                                                  ("chinchon", {"elimination": 100})])]
            await asyncio.sleep(15)
            # The idle game: started now, so its 30 s deadline falls inside the outage.
            idle = await _table(http, stack, stats, "chinchirorin", {"first_dealer": "seat"}, False, stop_at, f"I{name}-")
            status, view = await idle["humans"][0].get_view(idle["game_id"])
            deadline, idle_seq = datetime.fromisoformat(view["deadline"].replace("Z", "+00:00")), view["seq"]
            await asyncio.sleep(15)
            health_during: list = []
            t_fault = time.monotonic()
            log(f"{name}: fault")
            await asyncio.to_thread(_fault, stack, name, "break")
            end = time.monotonic() + outage
            while time.monotonic() < end:
                code, body = await asyncio.to_thread(stack.health)
                health_during.append((code, {k: v for k, v in body.items() if v != "ok"}))
                await asyncio.sleep(3)
            await asyncio.to_thread(_fault, stack, name, "mend")
            log(f"{name}: mended after {time.monotonic() - t_fault:.0f} s")
            t_mend = time.monotonic()
            try:
                recovered = await asyncio.to_thread(stack.wait_healthy, 120) + 0.0
            except RuntimeError:
                recovered = None
            out["healthy_after_s"] = None if recovered is None else round(time.monotonic() - t_mend, 1)
            await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
            for t in tables:
                t["task"].cancel()
                with contextlib.suppress(BaseException):
                    await t["task"]
            # Every client's view against the server's seq (after the last CPU moves settle), then close.
            await asyncio.sleep(4)
            behind = 0
            everyone = [h for t in [*tables, idle] for h in t["humans"]]
            for t in [*tables, idle]:
                for h in t["humans"]:
                    held = h.view["seq"] if h.view else -1  # what the socket (and earlier GETs) gave
                    status, now = await h.get_view(t["game_id"])
                    if status == 200 and held != now["seq"]:
                        behind += 1
            for h in everyone:
                await h.disconnect()
        acked = set().union(*(h.acked for h in everyone))
        out.update(_check_db(stack, acked, idle["game_id"], idle_seq, deadline))
        out["health_during"] = _summarise_health(health_during)
        out["server_closed_sockets"] = sum(h.server_closes for h in everyone)
        out["reconnected"] = sum(h.reconnects for h in everyone)
        out["views_behind_at_end"] = behind
        out["client_5xx"] = stats.errors.get("http_5xx", 0)
        out["server_error_lines"] = stack.error_lines()
        out["outage_s"] = outage
        out["restarted_by_supervisor"] = dict(stack.restarts)
    finally:
        await asyncio.to_thread(stack.down, args.keep_logs)
    return out


def _fault(stack: Stack, name: str, step: str) -> None:
    if name == "redis":
        stack.stop("redis") if step == "break" else stack.start("redis")
    elif name == "web":
        stack.kill("web") if step == "break" else stack.start("web")
    elif name == "worker":
        stack.kill("worker") if step == "break" else stack.start("worker")
    elif name == "beat":
        stack.stop("beat") if step == "break" else stack.start("beat")
    elif name == "postgres":
        stack.pg.stop("fast") if step == "break" else stack.pg.start()


def _summarise_health(samples: list) -> str:
    import re

    seen = []
    for code, parts in samples:
        parts = {k: re.sub(r"for \d+ s", "for N s", v) for k, v in parts.items()}
        text = f"{code} " + ", ".join(f"{k}: {v}" for k, v in sorted(parts.items())) if parts else f"{code} ok"
        if text not in seen:
            seen.append(text)
    return " | ".join(seen)


def _check_db(stack: Stack, acked: set[str], idle_game: int, idle_seq: int, deadline: datetime) -> dict:
    rows = stack._psql("SELECT action_id FROM games_gameaction WHERE action_id IS NOT NULL", own=True).split()
    dup_ids = len(rows) - len(set(rows))
    lost = len(acked - set(rows))
    timeouts = stack._psql(f"SELECT seq, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') "
                           f"FROM games_gameaction WHERE game_id = {idle_game} AND by IN ('timeout','away') "
                           f"AND seq > {idle_seq} ORDER BY seq", own=True).splitlines()
    first = None
    if timeouts:
        at = datetime.fromisoformat(timeouts[0].split("|")[1] + "+00:00")
        first = round((at - deadline).total_seconds(), 1)
    seq_dups = stack._psql("SELECT count(*) FROM (SELECT game_id, seq FROM games_gameaction GROUP BY 1, 2 "
                           "HAVING count(*) > 1) d", own=True)
    return {"acked": len(acked), "lost": lost, "applied_twice": dup_ids + int(seq_dups),
            "idle_timeout_rows": len(timeouts), "idle_timeout_late_s": first}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=["redis", "web", "worker", "beat", "postgres"])
    parser.add_argument("--outage", type=float, default=20)
    parser.add_argument("--beat-outage", type=float, default=120)
    parser.add_argument("--after", type=float, default=45, help="seconds of play after the fault is mended")
    parser.add_argument("--json", default="")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()
    results = []
    for name in args.only:
        log(f"drill {name}")
        results.append(asyncio.run(run_drill(name, args)))
        log(json.dumps(results[-1]))
    print("\n| drill | outage | health during | ok again after | acked | lost | applied twice | idle timer "
          "(rows, late) | sockets closed / reconnected | views behind | client 5xx | restarted by the supervisor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['drill']} | {r['outage_s']:.0f} s | {r['health_during']} | {r['healthy_after_s']} s | "
              f"{r['acked']} | {r['lost']} | {r['applied_twice']} | {r['idle_timeout_rows']}, "
              f"{r['idle_timeout_late_s']} s | {r['server_closed_sockets']} / {r['reconnected']} | "
              f"{r['views_behind_at_end']} | {r['client_5xx']} | {r['restarted_by_supervisor'] or '-'} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
