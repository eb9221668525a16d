"""Backup drill (on demand; a small form runs in the suite: tests/ops/test_backup_drill.py).

    .venv/bin/python bench/backup_drill.py --games 200      # PostgreSQL at $DRILL_ADMIN_URL

Steps, as an operator's scheduled backup and a restore would run them (docs/operations-deploy.md "Backups"):

1. fill a fresh database (``chinchi_drill``, migrated) through the services: ``--games`` Chinchón games
   played to the end (two humans who left, played for by the CPU, and a CPU seat; stake 10, so stakes and
   pots in the ledger; out over 50, no re-entry: short games), a report and a mute per ten games (reports, sanctions, audit rows);
2. back it up (``pg_dump --format=custom``) WHILE a thread keeps playing games: the dump reads one snapshot,
   exported from a transaction that counted every table in that same snapshot;
3. restore the dump into a fresh database (``pg_restore --no-owner --exit-on-error``);
4. check: every table's row count in the restore equals the snapshot's; the ledger's row count and sum of
   amounts equal the snapshot's; every wallet's balance equals the sum of its ledger in the restore; and
   the source moved on during the dump (more game actions than the snapshot holds).

Prints the figures (games, actions, ledger rows, dump size, seconds to back up and to restore). Needs
``pg_dump``/``pg_restore`` (the server's major version or newer) on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# ------------------------------------------------------------------ filling (Django, through the services)
def _seat(user) -> dict:
    return {"user": user, "cpu": False, "cpu_level": None}


def play_game(users, n: int) -> int:
    """One Chinchón game (stake 10, out over 50, no re-entry) of ``users`` (two) and a CPU, played to the end by the CPU for both
    humans (they left); returns its id."""
    from games import services

    game = services.game_start(game="chinchon", rules={"stake": 10, "elimination": 50, "reentry": "off"},
                               seats=[_seat(users[0]), _seat(users[1]),
                                      {"user": None, "cpu": True, "cpu_level": "easy"}],
                               turn_seconds=None, cpu_speed="fast", ranked=False, group=f"room-DRILL{n}")
    for user in users:
        services.game_player_left(game_id=game.pk, user=user)
    for _ in range(5000):
        game.refresh_from_db(fields=["status", "seq"])
        if game.status != "playing":
            return game.pk
        services.game_bot_play(game_id=game.pk, seq=game.seq)
    raise RuntimeError(f"game {game.pk} did not end")


def make_players(count: int, tag: str) -> list:
    from accounts.models import User

    return [User.objects.create_user(username=f"drill-{tag}-{i}", password=None, display_name=f"Drill {i}")
            for i in range(count)]


def fill(games: int, tag: str = "fill") -> dict:
    """Play ``games`` games; a report and a mute for every ten (at least one). Returns what was made."""
    from datetime import timedelta

    from django.utils import timezone

    from accounts import sanctions
    from moderation import services as moderation

    players = make_players(2 * games + 2, tag)
    moderator = make_players(1, f"{tag}-mod")[0]
    ids = [play_game(players[2 * i:2 * i + 2], i) for i in range(games)]
    for i in range(max(1, games // 10)):
        reporter, target = players[2 * i], players[2 * i + 1]
        moderation.report_create(reporter=reporter, kind="user", target_id=target.pk, reason="stalling")
        sanctions.user_mute(user=target, by=moderator, reason="drill", until=timezone.now() + timedelta(hours=1))
    return {"games": ids, "players": len(players)}


class Player(threading.Thread):
    """Plays games one after another (fresh players each) until :meth:`stop`; ``played`` counts them."""

    def __init__(self, tag: str = "live"):
        super().__init__(daemon=True)
        self.tag, self.played, self.error = tag, 0, None
        self.started_one = threading.Event()
        self._halt = threading.Event()

    def run(self) -> None:
        from django.db import connections

        try:
            while not self._halt.is_set():
                users = make_players(2, f"{self.tag}-{self.played}")
                self.started_one.set()
                play_game(users, 10_000 + self.played)
                self.played += 1
        except BaseException as exc:  # reported by the caller
            self.error = exc
            self.started_one.set()
        finally:
            connections.close_all()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=120)


# ------------------------------------------------------------------------- backup, restore, comparison
@dataclass
class Snapshot:
    counts: dict[str, int]
    ledger: tuple[int, int]  # rows, sum of amounts
    actions: int


@dataclass
class DrillResult:
    snapshot: Snapshot
    restored: Snapshot
    wallets_off: int  # wallets whose balance is not their ledger's sum, in the restore
    dump_bytes: int
    backup_seconds: float
    restore_seconds: float
    source_actions_after: int
    mismatches: dict = field(default_factory=dict)


def with_dbname(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="postgresql", path=f"/{name}"))


def _tables(cur) -> list[str]:
    cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    return [r[0] for r in cur.fetchall()]


def read_snapshot(cur) -> Snapshot:
    """Every public table's row count, the ledger's rows and sum, the game actions, in ``cur``'s snapshot."""
    counts = {}
    for table in _tables(cur):
        cur.execute(f'SELECT count(*) FROM "{table}"')
        counts[table] = cur.fetchone()[0]
    cur.execute("SELECT count(*), coalesce(sum(amount), 0) FROM coins_ledgerentry")
    rows, total = cur.fetchone()
    return Snapshot(counts=counts, ledger=(rows, int(total)), actions=counts.get("games_gameaction", 0))


def pg_tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise RuntimeError(f"{name} not found (apt-get install postgresql-client)")
    return found


def backup(source_url: str, path: Path) -> tuple[Snapshot, float]:
    """``pg_dump --format=custom`` of ``source_url`` into ``path``, reading the snapshot of a transaction
    that counts every table (:func:`read_snapshot`) first. Returns that snapshot and the dump's seconds."""
    with psycopg.connect(source_url) as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        snapshot_id = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
        with conn.cursor() as cur:
            snap = read_snapshot(cur)
        started = time.perf_counter()
        subprocess.run([pg_tool("pg_dump"), "--format=custom", "--no-owner", f"--snapshot={snapshot_id}",
                        f"--file={path}", f"--dbname={source_url}"], check=True, capture_output=True)
        seconds = time.perf_counter() - started
        conn.rollback()
    return snap, seconds


def create_database(admin_url: str, name: str) -> str:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_dbname(admin_url, name)


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def restore(path: Path, target_url: str) -> float:
    """``pg_restore`` of ``path`` into the (empty) ``target_url``; returns its seconds."""
    started = time.perf_counter()
    subprocess.run([pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
                    f"--dbname={target_url}", str(path)], check=True, capture_output=True)
    return time.perf_counter() - started


def check_restore(target_url: str) -> tuple[Snapshot, int]:
    with psycopg.connect(target_url) as conn, conn.cursor() as cur:
        snap = read_snapshot(cur)
        cur.execute("SELECT count(*) FROM coins_wallet w WHERE w.balance <> coalesce("
                    "(SELECT sum(e.amount) FROM coins_ledgerentry e WHERE e.wallet_id = w.user_id), 0)")
        return snap, cur.fetchone()[0]


def source_actions(source_url: str) -> int:
    with psycopg.connect(source_url) as conn:
        return conn.execute("SELECT count(*) FROM games_gameaction").fetchone()[0]


def drill(source_url: str, admin_url: str, restore_name: str, workdir: Path, *,
          wait_for_more_actions: float = 60.0) -> DrillResult:
    """Steps 2-4 of the module docstring against the filled ``source_url`` (Django's default database):
    back up while a :class:`Player` plays, restore into ``restore_name`` (made fresh from ``admin_url``,
    left there for the caller to drop), compare."""
    path = workdir / "chinchi.dump"
    player = Player()
    player.start()
    player.started_one.wait(60)
    try:
        if player.error:
            raise player.error
        snap, backup_seconds = backup(source_url, path)
        # The player kept going: wait (for a state, not a time) until the source holds actions the
        # snapshot does not, so the restore is shown to be the snapshot and not a later state.
        deadline = time.monotonic() + wait_for_more_actions
        after = source_actions(source_url)
        while after <= snap.actions and time.monotonic() < deadline and player.is_alive():
            time.sleep(0.05)
            after = source_actions(source_url)
    finally:
        player.stop()
    if player.error:
        raise player.error
    target = create_database(admin_url, restore_name)
    restore_seconds = restore(path, target)
    restored, wallets_off = check_restore(target)
    mismatches = {t: (snap.counts.get(t), restored.counts.get(t))
                  for t in set(snap.counts) | set(restored.counts) if snap.counts.get(t) != restored.counts.get(t)}
    return DrillResult(snapshot=snap, restored=restored, wallets_off=wallets_off, dump_bytes=path.stat().st_size,
                       backup_seconds=backup_seconds, restore_seconds=restore_seconds,
                       source_actions_after=after, mismatches=mismatches)


# ---------------------------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--admin-url", default=os.environ.get("DRILL_ADMIN_URL",
                                                              "postgresql://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--keep", action="store_true", help="keep the drill's two databases")
    args = parser.parse_args()

    source_name, restore_name = "chinchi_drill", "chinchi_drill_restore"
    source_url = create_database(args.admin_url, source_name)
    # In-process services: eager tasks, in-memory cache and channel layer; the drill's database.
    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings.test", DATABASE_URL=source_url,
                      CELERY_TASK_ALWAYS_EAGER="true", DATABASE_POOL="false", LOG_LEVEL="WARNING")
    os.environ.pop("REDIS_URL", None)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    fill(args.games)
    print(f"filled: {args.games} games in {time.perf_counter() - started:.1f} s")
    from django.db import connections

    connections.close_all()
    workdir = ROOT / "var" / "backup-drill"
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        result = drill(source_url, args.admin_url, restore_name, workdir)
    finally:
        if not args.keep:
            drop_database(args.admin_url, source_name)
    if not args.keep:
        drop_database(args.admin_url, restore_name)
    s = result.snapshot
    print(f"snapshot: {s.counts.get('games_game')} games, {s.actions} actions, {s.ledger[0]} ledger rows "
          f"(sum {s.ledger[1]}), {sum(s.counts.values())} rows in {len(s.counts)} tables")
    print(f"dump: {result.dump_bytes / 1e6:.2f} MB in {result.backup_seconds:.2f} s; "
          f"restore: {result.restore_seconds:.2f} s")
    print(f"source moved on during the dump: {result.source_actions_after - s.actions} more actions")
    ok = not result.mismatches and result.restored.ledger == s.ledger and result.wallets_off == 0
    print("every table's count and the ledger match" if ok else f"MISMATCH: {result.mismatches} "
          f"ledger {s.ledger} vs {result.restored.ledger}; wallets off {result.wallets_off}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
