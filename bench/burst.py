"""Sign-up and join burst (issue #32, item 3; on demand, not collected by pytest): N guests made and seated
from ONE client as fast as the service answers, throttles raised as a load test raises them.

    .venv/bin/python bench/burst.py --guests 1000 --room-seats 4 --concurrency 64

The stack is :mod:`bench.bench_server`'s (its own PostgreSQL database and Redis database, uvicorn ×2,
Celery worker and beat, ``THROTTLE_GUEST`` and the room look-up throttles at 100000/min). Then, for each
group of ``--room-seats`` guests, in ``--concurrency`` groups at once: the first guest signs up
(``POST /api/auth/guest``) and makes a room (``POST /api/rooms``), the others sign up and join it
(``POST /api/rooms/{code}/join``), every request over one keep-alive client per group (as one phone
each). Printed: the wall time from the first request to the last answer, requests/s, errors by status and
code, and per kind of request p50/p99/max (ms); with ``--sockets`` every seat then opens its room socket
and waits for its snapshot (the handshakes timed the same way). Exit status 1 when a request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import bench_server as bs  # noqa: E402 - after the path is set


async def burst(server: str, guests: int, room_seats: int, concurrency: int, sockets: bool) -> dict:
    import httpx
    import websockets

    times: dict[str, list[float]] = collections.defaultdict(list)
    errors: collections.Counter = collections.Counter()
    gate = asyncio.Semaphore(concurrency)
    ws_base = server.replace("http://", "ws://")
    opened: list = []

    async def timed(kind: str, coro):
        t0 = time.perf_counter()
        try:
            res = await coro
        except httpx.HTTPError as exc:
            errors[(kind, type(exc).__name__)] += 1
            return None
        times[kind].append(time.perf_counter() - t0)
        if res.status_code >= 400:
            try:
                code = res.json().get("code")
            except ValueError:
                code = None
            errors[(kind, f"{res.status_code} {code}")] += 1
            return None
        return res.json()

    async def group(i: int, size: int) -> None:
        async with gate, httpx.AsyncClient(base_url=server, timeout=60) as http:
            tokens = []
            for j in range(size):
                body = await timed("sign-up", http.post("/api/auth/guest", json={"display_name": f"Burst {i}-{j}"}))
                if body is None:
                    return
                tokens.append(body["token"])
                auth = {"Authorization": f"Token {body['token']}"}
                if j == 0:
                    room = await timed("room", http.post("/api/rooms", headers=auth,
                                                         json={"game": "chinchirorin", "seats": room_seats}))
                    if room is None:
                        return
                    code = room["code"]
                elif await timed("join", http.post(f"/api/rooms/{code}/join", headers=auth)) is None:
                    return
            if sockets:
                for token in tokens:
                    t0 = time.perf_counter()
                    try:
                        ws = await websockets.connect(f"{ws_base}/ws/rooms/{code}/?token={token}", open_timeout=30)
                        await asyncio.wait_for(ws.recv(), 30)  # the room snapshot
                    except (OSError, TimeoutError, websockets.WebSocketException) as exc:
                        errors[("socket", type(exc).__name__)] += 1
                        continue
                    times["socket"].append(time.perf_counter() - t0)
                    opened.append(ws)

    sizes = [min(room_seats, guests - k) for k in range(0, guests, room_seats)]
    t0 = time.perf_counter()
    await asyncio.gather(*(group(i, s) for i, s in enumerate(sizes)))
    wall = time.perf_counter() - t0
    for ws in opened:
        await ws.close()
    return {"wall": wall, "requests": sum(len(v) for v in times.values()),
            "errors": dict(errors), "kinds": {k: bs.summarize(v) for k, v in times.items()}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guests", type=int, default=1000)
    ap.add_argument("--room-seats", type=int, default=4)
    ap.add_argument("--concurrency", type=int, default=64, help="groups (rooms) set up at once")
    ap.add_argument("--sockets", action="store_true", help="then open every seat's room socket")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--db", default="chinchi_burst")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/9")
    args = ap.parse_args(argv)
    # bench_server's stack, as its own arguments would start it
    stack_args = bs.parse_args(["--servers", "1", "--workers", str(args.workers), "--db", args.db,
                                "--redis", args.redis])
    env = bs.bench_env(stack_args)
    logdir = Path(tempfile.mkdtemp(prefix="chinchi-burst-"))
    stack = None
    try:
        bs.create_database(args.db)
        bs.flush_redis(args.redis)
        import subprocess

        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        stack, servers = bs.start_stack(stack_args, env, logdir)
        bs.log(f"{args.guests} guests in rooms of {args.room_seats}, {args.concurrency} rooms at once")
        got = bs._run(burst(servers[0], args.guests, args.room_seats, args.concurrency, args.sockets))
        stack.check_alive()
    finally:
        if stack is not None:
            stack.stop()
        bs.flush_redis(args.redis)
        bs.drop_database(args.db)
    print(f"{args.guests} guests, rooms of {args.room_seats}, {args.concurrency} at once: {got['requests']} "
          f"answers in {got['wall']:.1f} s ({got['requests'] / got['wall']:.0f}/s); errors {got['errors'] or 'none'}")
    rows = [[k, s["n"], bs.ms(s["p50"]), bs.ms(s["p99"]), bs.ms(s["max"])] for k, s in got["kinds"].items()]
    print(bs.table(["request", "n", "p50 ms", "p99 ms", "max ms"], rows))
    return 1 if got["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
