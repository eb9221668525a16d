"""Coins and XP per hour of the cheats of issue #33 against honest play with the computer, from outside.

Starts the service like ``make run`` (uvicorn + one Celery worker, the default throttles) on a free port
against a fresh database ``<DATABASE_URL's name>_bench`` (dropped and made again) and ``REDIS_URL``, then
plays over the REST API only:

- ``honest``: a fresh guest plays 2-seat Chinchón against one CPU (fast), its moves chosen by the hard CPU
  policy (``games.bots.chinchon.choose`` on its own view), claiming every challenge it completes; one
  plays beside each cheat, over the same wall time (so both start with the same one-time rewards);
- the cheats, one after the other, each for ``--seconds``; a host plays 4-seat Chinchón at stake 100 with
  three accounts it controls, and claims what it completes:
  ``resign_at_once`` (three fresh guests resign at once), ``min_decisions`` (fresh guests make exactly
  ``MIN_DECISIONS`` decisions each, then resign), ``play_and_throw`` (fresh guests play the whole game
  without ever closing), ``two_hosts`` (two guests trade wins in 2-seat games by rematch, the loser resigning
  after ``MIN_DECISIONS`` decisions: both count as the cheater), ``upgraded_alts`` (as ``min_decisions``,
  the guests registered first).

Both stop at the end of the window (a game unfinished then earns nothing for either). Prints, per cheat,
the cheater's and the honest player's coins (wallet change, the start grant excluded)
and XP gained over the same wall time, and both per hour. A 429 is waited out (``Retry-After``), as a cheater would.

    DATABASE_URL=... REDIS_URL=... .venv/bin/python bench/economy_cheat.py --seconds 90
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

from config.web import socket_args  # noqa: E402 - the sockets as python -m config.web serves them
from games.bots.chinchon import choose  # noqa: E402  (a client-side policy: the CPU's, on the API view)

MIN_DECISIONS = 6
STAKE = 100


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_database(url: str) -> str:
    """``url`` with its database name + ``_bench``, dropped and created again; returns that URL."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/") + "_bench"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path="/" + name))


class Service:
    """uvicorn + a Celery worker on a free port (default throttles), as ``make run`` starts them."""

    def __init__(self, database_url: str, redis_url: str, log_dir: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DEBUG": "false",
                    "DATABASE_URL": database_url, "REDIS_URL": redis_url, "CELERY_TASK_ALWAYS_EAGER": "false",
                    "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}
        for key in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND") + tuple(k for k in os.environ if k.startswith("THROTTLE_")):
            self.env.pop(key, None)
        self.log_dir = log_dir
        self.procs: list[subprocess.Popen] = []

    def __enter__(self):
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=self.env, check=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, args in (
            ("server", [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                        "--port", str(self.port), "--log-level", "warning", *socket_args(self.env)]),
            ("worker", [sys.executable, "-m", "celery", "-A", "config.celery_app", "worker", "-c", "1", "-l",
                        "warning", "--without-gossip", "--without-mingle"]),
        ):
            out = open(self.log_dir / f"{name}.log", "w")  # noqa: SIM115 - the child keeps it
            self.procs.append(subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT))
            out.close()
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.procs):
                raise SystemExit(f"the service did not start; see {self.log_dir}")
            time.sleep(0.3)

    def __exit__(self, *exc):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


class Player:
    """One account's API client (a guest unless registered), retrying a 429 after its ``Retry-After``."""

    def __init__(self, base: str, name: str):
        self.http = httpx.Client(base_url=base, timeout=30)
        body = self.call("POST", "/api/auth/guest", {"display_name": name})
        self.id = body["user"]["id"]
        self.http.headers["Authorization"] = f"Token {body['token']}"
        self.start_balance = self.balance()

    def call(self, method: str, path: str, body: dict | None = None, ok=(200, 201, 204)) -> dict:
        while True:
            res = self.http.request(method, path, json=body)
            if res.status_code == 429:
                time.sleep(float(res.headers.get("Retry-After") or 2))
                continue
            if res.status_code not in ok:
                return {"_error": res.status_code, **(res.json() if res.content else {})}
            return res.json() if res.content else {}

    def register(self) -> None:
        name = f"u{self.id}x{random.randrange(10**6)}"
        body = self.call("POST", "/api/auth/register", {"username": name, "password": "correct horse battery 9",
                                                         "display_name": name})
        if "token" in body:
            self.http.headers["Authorization"] = f"Token {body['token']}"

    def balance(self) -> int:
        return self.call("GET", "/api/me/wallet")["balance"]

    def xp(self) -> int:
        return self.call("GET", f"/api/users/{self.id}/stats").get("xp", 0)

    def claim_all(self) -> None:
        for row in self.call("GET", "/api/challenges").get("challenges", []):
            if row["completed"] and not row["claimed"]:
                self.call("POST", f"/api/challenges/{row['id']}/claim", ok=(200, 201, 409))


def play(game_id: int, seats: dict[int, Player], policy, deadline: float | None = None,
         made: dict | None = None) -> None:
    """Drive ``game_id`` to its end: each awaited human seat acts as ``policy(seat, view)`` says (an action
    body, posted with the view's ``seq``); CPU seats are played by the service (polled). ``made``: counts
    each seat's own decisions applied (``resign`` excluded)."""
    any_player = next(iter(seats.values()))
    while True:
        view = any_player.call("GET", f"/api/games/{game_id}")
        if view.get("status") != "playing":
            return
        if deadline is not None and time.monotonic() > deadline:
            return  # the window is over: an unfinished game earns nothing
        acted = False
        for seat in view["awaiting"]:
            if seat not in seats:
                continue
            mine = seats[seat].call("GET", f"/api/games/{game_id}")
            action = policy(seat, mine)
            if action is None:
                continue
            res = seats[seat].call("POST", f"/api/games/{game_id}/actions", {**action, "seq": mine["seq"]},
                                   ok=(200,))
            if made is not None and "_error" not in res and action.get("type") != "resign":
                made[seat] = made.get(seat, 0) + 1
            acted = True
            break
        if not acted:
            time.sleep(0.1)


SMART_RNG, THROW_RNG = random.Random(7), random.Random(11)


def smart(seat: int, view: dict) -> dict | None:
    """The hard CPU's choice on the seat's own view."""
    if not view.get("legal_actions"):
        return None
    return choose(view, view["legal_actions"], "hard", SMART_RNG, seat=seat)


def thrower(seat: int, view: dict) -> dict | None:
    """Any legal action but a close: plays on, never wins a hand."""
    legal = [a for a in view.get("legal_actions") or [] if a.get("type") != "close"]
    if not legal:
        return None
    return THROW_RNG.choice(legal)


def new_table(host: Player, alts: list[Player], seats: int) -> tuple[int, str]:
    room = host.call("POST", "/api/rooms", {"game": "chinchon", "seats": seats, "rules": {"stake": STAKE},
                                             "cpu_speed": "fast"})
    for alt in alts:
        alt.call("POST", f"/api/rooms/{room['code']}/join")
    return host.call("POST", f"/api/rooms/{room['code']}/start")["game_id"], room["code"]


def resign(player: Player, game_id: int) -> None:
    view = player.call("GET", f"/api/games/{game_id}")
    if view.get("status") == "playing":
        player.call("POST", f"/api/games/{game_id}/actions", {"type": "resign", "seq": view["seq"]}, ok=(200, 409))


def cheat_with_alts(base: str, seconds: float, mode: str) -> list[Player]:
    """A host and three fresh alts per game (see the module docstring); returns [host]."""
    host = Player(base, "host")
    until = time.monotonic() + seconds
    n = 0
    while time.monotonic() < until:
        n += 1
        alts = [Player(base, f"alt{n}-{i}") for i in range(3)]
        if mode == "upgraded_alts":
            for alt in alts:
                alt.register()
        game_id, _ = new_table(host, alts, 4)
        seats = {0: host, 1: alts[0], 2: alts[1], 3: alts[2]}
        if mode == "resign_at_once":
            for alt in alts:
                resign(alt, game_id)
        else:
            made = dict.fromkeys(range(1, 4), 0)

            def policy(seat, view, mode=mode, made=made):
                if seat == 0:
                    return smart(seat, view)
                if mode == "play_and_throw":
                    return thrower(seat, view)
                if made[seat] >= MIN_DECISIONS:
                    return {"type": "resign"}
                return smart(seat, view)

            play(game_id, seats, policy, deadline=until, made=made)
        host.claim_all()
    return [host]


def cheat_two_hosts(base: str, seconds: float) -> list[Player]:
    a, b = Player(base, "hostA"), Player(base, "hostB")
    until = time.monotonic() + seconds
    game_id, code = new_table(a, [b], 2)
    turn = 0
    while time.monotonic() < until:
        loser = 1 - turn % 2
        made = {0: 0, 1: 0}

        def policy(seat, view, loser=loser, made=made):
            if seat == loser and made[seat] >= MIN_DECISIONS:
                return {"type": "resign"}
            return smart(seat, view)

        play(game_id, {0: a, 1: b}, policy, deadline=until, made=made)
        a.claim_all()
        b.claim_all()
        turn += 1
        res = a.call("POST", f"/api/rooms/{code}/rematch")
        if "game_id" not in res:
            game_id, code = new_table(a, [b], 2)
        else:
            game_id = res["game_id"]
    return [a, b]


def honest(base: str, until: float, out: list) -> None:
    me = Player(base, "honest")
    out.append(me)
    room = me.call("POST", "/api/rooms", {"game": "chinchon", "seats": 2, "cpu_speed": "fast"})
    game_id = me.call("POST", f"/api/rooms/{room['code']}/start")["game_id"]
    while time.monotonic() < until:
        play(game_id, {0: me}, smart, deadline=until)
        me.claim_all()
        if time.monotonic() >= until:
            break
        res = me.call("POST", f"/api/rooms/{room['code']}/rematch")
        game_id = res.get("game_id") or me.call("POST", f"/api/rooms/{room['code']}/start").get("game_id")


def settle(players: list[Player], wait: float = 20) -> None:
    """Let the worker record the last games (XP) before reading them: until two reads agree."""
    last = None
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        now = [p.xp() for p in players]
        if now == last:
            return
        last = now
        time.sleep(2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=90, help="wall time of each cheat (default 90)")
    ap.add_argument("--only", nargs="*", help="cheats to run (default: all)")
    args = ap.parse_args()
    cheats = ["resign_at_once", "min_decisions", "play_and_throw", "two_hosts", "upgraded_alts"]
    cheats = [c for c in cheats if not args.only or c in args.only]
    db = fresh_database(os.environ["DATABASE_URL"])
    with Service(db, os.environ["REDIS_URL"], Path("/tmp") / f"economy-bench-{os.getpid()}") as svc:
        rows = []
        for name in cheats:
            out: list = []
            t0 = time.monotonic()
            honest_thread = threading.Thread(target=honest, args=(svc.url, t0 + args.seconds, out), daemon=True)
            honest_thread.start()
            players = cheat_two_hosts(svc.url, args.seconds) if name == "two_hosts" else \
                cheat_with_alts(svc.url, args.seconds, name)
            honest_thread.join(60)
            elapsed = args.seconds
            me = out[0]
            settle(players + [me])
            coins = sum(p.balance() - p.start_balance for p in players)
            xp = sum(p.xp() for p in players)
            rows.append((name, elapsed, coins, xp, me.balance() - me.start_balance, me.xp()))
            print(f"{name}: {elapsed:.0f} s, {coins:+d} coins, {xp:+d} XP; honest beside it: {rows[-1][4]:+d} "
                  f"coins, {rows[-1][5]:+d} XP", flush=True)
    print()
    print("| cheat | wall time | cheater coins | cheater XP | honest coins | honest XP | cheater coins/h | "
          "cheater XP/h | honest coins/h | honest XP/h |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, secs, coins, xp, h_coins, h_xp in rows:
        per = 3600 / secs
        print(f"| {name} | {secs:.0f} s | {coins:+d} | {xp:+d} | {h_coins:+d} | {h_xp:+d} | {coins * per:+.0f} | "
              f"{xp * per:+.0f} | {h_coins * per:+.0f} | {h_xp * per:+.0f} |")


if __name__ == "__main__":
    main()
