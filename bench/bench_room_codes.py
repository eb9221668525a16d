"""Room-code refusals, timed (on demand; not collected by pytest): how long ``POST /api/rooms/{code}/join``
takes to refuse, per kind of refusal, against the real service.

    .venv/bin/python bench/bench_room_codes.py              # --n 300 attempts per case

The service runs as bench/stack.py starts it (a database ``chinchi_codes`` of its own, dropped at the end;
a private Redis; ``python -m config.web`` with 2 uvicorn workers and the psycopg pool; Celery worker and
beat) with the room look-up throttles raised (``THROTTLE_ROOM_LOOKUP`` and ``THROTTLE_ROOM_LOOKUP_ADDRESS``
1000000/min) so that every attempt reaches the view. Set up over HTTP (guests, rooms, a start) and, for the
moderator's actions, in this process through the services: a full room (2 seats taken), a started room
(2 humans, no CPU, no turn timer: it stays playing), a room the caller was kicked from, a closed room.

Cases, each answered by the same refusal every time (checked; any other answer is counted and printed):
``unknown`` (a fresh well-formed code no room has, each attempt), ``malformed`` (``"OOOOOO"``: O is not in
the alphabet), ``closed``, ``full``, ``started``, ``kicked``. Interleaved: after ``--warmup`` rounds, each
round times one attempt of every case in a shuffled order, one keep-alive client, one request at a time
(time from sending to the whole body read). Prints p50/p90/p99 per case side by side, and the load average.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from stack import Stack, log  # noqa: E402 - after the path is set

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CASES = ("unknown", "malformed", "closed", "full", "started", "kicked")
EXPECTED = {"unknown": (404, "not_found"), "malformed": (404, "not_found"), "closed": (404, "not_found"),
            "full": (409, "room_full"), "started": (409, "already_started"), "kicked": (403, "kicked")}
RAISED = {"THROTTLE_ROOM_LOOKUP": "1000000/min", "THROTTLE_ROOM_LOOKUP_ADDRESS": "1000000/min"}


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) of ``values``, linear between closest ranks (numpy's default)."""
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _guest(http: httpx.Client, name: str) -> tuple[dict, int]:
    res = http.post("/api/auth/guest", json={"display_name": name})
    res.raise_for_status()
    body = res.json()
    return {"Authorization": f"Token {body['token']}"}, body["user"]["id"]


def _ok(res: httpx.Response) -> dict:
    if res.status_code not in (200, 201):
        raise RuntimeError(f"{res.request.method} {res.request.url}: {res.status_code} {res.text}")
    return res.json()


def set_up(stack: Stack, http: httpx.Client) -> dict[str, tuple[dict, str | None]]:
    """The rooms; ``{case: (the caller's headers, code or None for a fresh unknown one)}``."""
    host, _ = _guest(http, "Bench host")
    other, _ = _guest(http, "Bench other")
    prober, _ = _guest(http, "Bench prober")
    kicked_user, _ = _guest(http, "Bench kicked")
    codes = {}
    for case, seats in (("full", 2), ("started", 2), ("kicked", 3), ("closed", 2)):
        codes[case] = _ok(http.post("/api/rooms", headers=host, json={"game": "chinchirorin", "seats": seats}))["code"]
    for case in ("full", "started"):
        _ok(http.post(f"/api/rooms/{codes[case]}/join", headers=other))
    _ok(http.post(f"/api/rooms/{codes['started']}/start", headers=host))
    _ok(http.post(f"/api/rooms/{codes['kicked']}/join", headers=kicked_user))

    # The moderator's actions, through the services in this process (same database and Redis).
    os.environ.update({k: stack.env[k] for k in ("DJANGO_SETTINGS_MODULE", "DEBUG", "DATABASE_URL", "REDIS_URL",
                                                 "LOG_LEVEL")})
    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    from rooms import services
    from rooms.models import Room, RoomStatus

    def room_id(code: str) -> int:
        return Room.objects.exclude(status=RoomStatus.CLOSED).get(code=code).pk

    services.room_kick(room_id=room_id(codes["kicked"]), seat=1, by=None, reason="bench")
    services.room_close(room_id=room_id(codes["closed"]), by=None, reason="bench")
    from django.db import connections

    connections.close_all()
    return {"unknown": (prober, None), "malformed": (prober, "OOOOOO"), "closed": (prober, codes["closed"]),
            "full": (prober, codes["full"]), "started": (prober, codes["started"]),
            "kicked": (kicked_user, codes["kicked"])}


def run(http: httpx.Client, cases: dict, n: int, warmup: int, seed: int) -> tuple[dict, dict]:
    """``({case: [seconds]}, {case: Counter of (status, code) not expected})``."""
    rng = random.Random(seed)
    known = {code for _, code in cases.values() if code}
    times: dict[str, list[float]] = {case: [] for case in CASES}
    unexpected: dict[str, Counter] = {case: Counter() for case in CASES}
    for round_ in range(warmup + n):
        order = list(CASES)
        rng.shuffle(order)
        for case in order:
            headers, code = cases[case]
            while code is None or (case == "unknown" and code in known):
                code = "".join(rng.choice(ALPHABET) for _ in range(6))
            start = time.perf_counter()
            res = http.post(f"/api/rooms/{code}/join", headers=headers)
            body = res.json()
            took = time.perf_counter() - start
            if (res.status_code, body.get("code")) != EXPECTED[case]:
                unexpected[case][(res.status_code, body.get("code"))] += 1
            if round_ >= warmup:
                times[case].append(took)
    return times, unexpected


def report(times: dict, unexpected: dict) -> str:
    rows = [["", *CASES], ["answer", *(f"{EXPECTED[c][0]} {EXPECTED[c][1]}" for c in CASES)],
            ["n", *(str(len(times[c])) for c in CASES)]]
    for p in (50, 90, 99):
        rows.append([f"p{p}", *(f"{percentile(times[c], p) * 1000:.2f} ms" for c in CASES)])
    rows.append(["other answers", *(", ".join(f"{k}×{v}" for k, v in unexpected[c].items()) or "0" for c in CASES)])
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="timed attempts per case (default 300)")
    ap.add_argument("--warmup", type=int, default=20, help="rounds not timed first (default 20)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the case order and the unknown codes")
    args = ap.parse_args(argv)
    stack = Stack("codes", extra_env=RAISED)
    try:
        stack.up()
        with httpx.Client(base_url=stack.url, timeout=30) as http:
            cases = set_up(stack, http)
            load_before = os.getloadavg()
            log(f"timing {args.n} attempts per case, interleaved (load {load_before[0]:.1f})")
            began = time.monotonic()
            times, unexpected = run(http, cases, args.n, args.warmup, args.seed)
            took = time.monotonic() - began
            load_after = os.getloadavg()
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        stack.down()
    print()
    print(f"{os.cpu_count()} cores; load average {load_before[0]:.1f} / {load_before[1]:.1f} / {load_before[2]:.1f} "
          f"before, {load_after[0]:.1f} / {load_after[1]:.1f} / {load_after[2]:.1f} after; "
          f"{sum(len(v) for v in times.values())} timed attempts in {took:.1f} s")
    print(report(times, unexpected))
    return 0 if not any(unexpected.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
