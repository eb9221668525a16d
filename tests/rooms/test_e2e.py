"""End to end: the real ASGI server (uvicorn) and a Celery worker as subprocesses, Redis, and the test
PostgreSQL database they share (``transaction=True``: what the test writes is committed). Two registered
users play a whole Chinchón game and a whole Chinchirorin game through HTTP and WebSocket clients only
(``rooms.demo_client``, the code of ``play_demo``), and each final standing equals the one
``replay_game`` replays to from the seed and the log."""

import asyncio
import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from django.core.management import call_command
from django.db import connection

from games.models import Game
from rooms.demo_client import play_game
from tests.factories import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _database_url() -> str:
    """The URL of the test database this process uses (``test_<name>``)."""
    d = connection.settings_dict
    auth = quote(d["USER"] or "") + (":" + quote(d["PASSWORD"]) if d["PASSWORD"] else "")
    return f"postgres://{auth}@{d['HOST'] or '127.0.0.1'}:{d['PORT'] or 5432}/{d['NAME']}"


@pytest.fixture
def live_stack(tmp_path):
    """uvicorn + a Celery worker on the test database; yields the server's base URL."""
    port = _free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DEBUG": "false",
           "DATABASE_URL": _database_url(), "REDIS_URL": os.environ["REDIS_URL"], "CONN_MAX_AGE": "0",
           "CELERY_TASK_ALWAYS_EAGER": "false", "PYTHONUNBUFFERED": "1"}
    env.pop("CELERY_BROKER_URL", None)
    env.pop("CELERY_RESULT_BACKEND", None)
    logs = {name: open(tmp_path / f"{name}.log", "w") for name in ("server", "worker")}  # noqa: SIM115
    procs = [
        subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                          "--port", str(port), "--log-level", "warning"], cwd=ROOT, env=env,
                         stdout=logs["server"], stderr=subprocess.STDOUT),
        subprocess.Popen([sys.executable, "-m", "celery", "-A", "config.celery_app", "worker", "-c", "1",
                          "-l", "warning", "--without-gossip", "--without-mingle"], cwd=ROOT, env=env,
                         stdout=logs["worker"], stderr=subprocess.STDOUT),
    ]
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        last = None
        while True:
            try:
                res = httpx.get(f"{url}/healthz", timeout=5)
                last = res.text
                if res.status_code == 200:
                    break
            except httpx.HTTPError as exc:
                last = repr(exc)
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise AssertionError(f"the server or worker did not start ({last}):\n" + "\n".join(
                    (tmp_path / f"{n}.log").read_text()[-2000:] for n in logs))
            time.sleep(0.3)
        # The health polls answered 503 until the worker was up: an answer, not an ERROR line (issue 15).
        assert "ERROR" not in (tmp_path / "server.log").read_text()
        yield url
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        for f in logs.values():
            f.close()


def _register(url: str, username: str) -> str:
    res = httpx.post(f"{url}/api/auth/register", json={"username": username, "password": PASSWORD,
                                                       "display_name": username.title()}, timeout=10)
    assert res.status_code == 201, res.text
    return res.json()["token"]


def _replayed_result(game_id: int) -> dict:
    """The result ``replay_game`` replays to: the command fails unless replaying the seed and the log
    gives the stored state and result, so on success that is the stored result."""
    out = io.StringIO()
    call_command("replay_game", str(game_id), stdout=out)
    assert "same state and result" in out.getvalue()
    return Game.objects.get(pk=game_id).result


def test_two_registered_players_play_both_games_through_http_and_websocket(live_stack):
    tokens = [_register(live_stack, "alba"), _register(live_stack, "bruno")]
    games = [("chinchon", {"elimination": 50}), ("chinchirorin", {"rounds": 1})]
    for game, rules in games:
        summary = asyncio.run(play_game(live_stack, game=game, seats=2, rules=rules, tokens=tokens, seed=7,
                                        timeout=100))
        result = summary["result"]
        assert result["reason"] != "aborted"
        assert sorted(r["seat"] for r in result["standing"]) == [0, 1]
        assert summary["seq"] == summary["actions"] > 0  # every applied action was a client's
        assert summary["messages"] > summary["seq"]  # each seat saw the game over its socket
        replayed = _replayed_result(summary["game_id"])
        assert replayed["standing"] == result["standing"]
        assert replayed["reason"] == result["reason"]
        room = httpx.get(f"{live_stack}/api/rooms/{summary['room']}",
                         headers={"Authorization": f"Token {tokens[0]}"}, timeout=10).json()
        assert (room["status"], room["game_id"]) == ("finished", summary["game_id"])
