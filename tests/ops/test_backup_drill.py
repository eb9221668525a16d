"""The backup drill's small form (bench/backup_drill.py): games, ledger, reports and sanctions made through
the services; a custom-format pg_dump taken while a thread keeps playing; restored into a fresh database;
every table's count and the ledger's sums equal the dump's snapshot. And deploy/backup.sh, compose's
scheduled backup: a whole dump pg_restore can read, JSON output, the newest BACKUP_KEEP kept."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.live import database_url

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import backup_drill  # noqa: E402

pytestmark = [pytest.mark.postgres, pytest.mark.pg_tools, pytest.mark.django_db(transaction=True)]


def test_a_backup_taken_while_games_are_played_restores_exactly_its_snapshot(tmp_path):
    made = backup_drill.fill(3)
    assert len(made["games"]) == 3
    source = database_url()
    admin = backup_drill.with_dbname(source, "postgres")
    restore_name = f"{connection.settings_dict['NAME']}_restore"
    try:
        result = backup_drill.drill(source, admin, restore_name, tmp_path)
        snap = result.snapshot
        # What the fill made is in the snapshot: its games (finished), reports, sanctions and audit rows.
        assert snap.counts["games_game"] >= 3 and snap.counts["moderation_report"] == 1
        assert snap.counts["accounts_sanction"] == 1 and snap.counts["auditlog_logentry"] >= 1
        assert snap.ledger[0] >= 3 * 2 * 2  # per game: two start grants and two stakes at least
        # The restore is that snapshot, table by table, though the source moved on during the dump.
        assert result.mismatches == {}
        assert result.restored.counts == snap.counts and len(snap.counts) >= 30
        assert result.restored.ledger == snap.ledger
        assert result.wallets_off == 0  # every wallet's balance is its ledger's sum
        assert result.source_actions_after > snap.actions
        assert result.dump_bytes > 0
    finally:
        backup_drill.drop_database(admin, restore_name)


def test_the_scheduled_backup_writes_a_whole_dump_and_keeps_the_newest(tmp_path):
    backup_drill.make_players(2, "sched")
    old = ["chinchi-20200101T000000Z.dump", "chinchi-20200102T000000Z.dump"]
    for name in old:
        (tmp_path / name).write_bytes(b"old")
    env = {**os.environ, "DATABASE_URL": database_url(), "BACKUP_DIR": str(tmp_path), "BACKUP_KEEP": "2"}
    res = subprocess.run(["sh", str(ROOT / "deploy" / "backup.sh")], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert [line["level"] for line in lines] == ["INFO", "INFO"]
    assert "written" in lines[0]["message"] and lines[1]["message"].startswith(f"backup {old[0]} removed")
    dumps = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".dump"))
    assert len(dumps) == 2 and dumps[0] == old[1] and dumps[1].startswith("chinchi-2")
    assert not list(tmp_path.glob("*.partial"))
    listing = subprocess.run(["pg_restore", "--list", str(tmp_path / dumps[1])], capture_output=True, text=True,
                             timeout=60)
    assert listing.returncode == 0 and "TABLE DATA public accounts_user" in listing.stdout

    bad = subprocess.run(["sh", str(ROOT / "deploy" / "backup.sh")], capture_output=True, text=True, timeout=60,
                         env={**env, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
    assert bad.returncode != 0
    assert json.loads(bad.stdout.splitlines()[-1])["level"] == "ERROR"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".dump")) == dumps  # nothing lost
