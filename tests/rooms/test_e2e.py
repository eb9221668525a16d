"""End to end: the real ASGI server (uvicorn) and a Celery worker as subprocesses, Redis, and the test
PostgreSQL database they share (``transaction=True``: what the test writes is committed). Two registered
users play a whole Chinchón game and a whole Chinchirorin game through HTTP and WebSocket clients only
(``rooms.demo_client``, the code of ``play_demo``), and each final standing equals the one
``replay_game`` replays to from the seed and the log."""

import asyncio
import io

import httpx
import pytest
from django.core.management import call_command

from games.models import Game
from rooms.demo_client import play_game
from tests.factories import PASSWORD
from tests.live import live_stack as serve

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def live_stack(tmp_path):
    """uvicorn + a Celery worker on the test database; yields the server's base URL."""
    with serve(tmp_path) as url:
        # The health polls answered 503 until the worker was up: an answer, not an ERROR line (issue 15).
        assert "ERROR" not in (tmp_path / "server.log").read_text()
        yield url


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
