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


def test_the_demo_client_plays_with_actions_sent_on_its_sockets(live_stack):
    """``actions="socket"``: every action goes on the seat's socket (as the play page sends them); the
    game is played to its end, every applied action was one of them, and it replays to its result."""
    tokens = [_register(live_stack, "elena"), _register(live_stack, "fabio")]
    summary = asyncio.run(play_game(live_stack, game="chinchirorin", seats=2, rules={"rounds": 1}, tokens=tokens,
                                    seed=11, timeout=100, actions="socket"))
    assert summary["result"]["reason"] != "aborted"
    assert summary["seq"] == summary["actions"] > 0
    assert _replayed_result(summary["game_id"])["standing"] == summary["result"]["standing"]
    assert Game.objects.get(pk=summary["game_id"]).actions.filter(action_id__startswith=f"{summary['game_id']}:").count() \
        == summary["seq"]  # each applied action carries the action_id it was sent with


def test_the_demo_client_plays_rematches_until_told_to_stop(live_stack):
    """``play_game(rematch=True)`` (the bench's way to keep N games in play): when a game ends the host
    asks for a rematch and the same seats play it over the same sockets, until ``stop``."""
    import threading

    from django.db import connection

    tokens = [_register(live_stack, "carla"), _register(live_stack, "dario")]
    closed = []

    async def main() -> dict:
        stop, loop, done = asyncio.Event(), asyncio.get_running_loop(), threading.Event()

        def stop_in_the_second_game() -> None:  # a thread: the ORM is sync
            try:
                while not done.is_set():
                    if Game.objects.filter(status="finished").exists() and Game.objects.count() >= 2:
                        loop.call_soon_threadsafe(stop.set)
                        return
                    done.wait(0.05)
            finally:
                connection.close()

        async def before_close(clients, game_id):
            closed.append((len(clients), game_id))

        watcher = threading.Thread(target=stop_in_the_second_game)
        watcher.start()
        try:
            return await play_game(live_stack, game="chinchirorin", seats=2, tokens=tokens, seed=3, timeout=100,
                                   stop=stop, rematch=True, before_close=before_close)
        finally:
            done.set()
            watcher.join()

    summary = asyncio.run(main())
    games = summary["games"]
    first, last = games[0], games[-1]
    assert len(games) == 2 and first["game_id"] != last["game_id"], games
    assert first["status"] == "finished" and first["seq"] > 0
    stored = {g.pk: g for g in Game.objects.filter(pk__in=[first["game_id"], last["game_id"]])}
    assert [stored[g["game_id"]].seq for g in games] == [g["seq"] for g in games]
    assert summary["game_id"] == last["game_id"] and closed == [(2, last["game_id"])]
    # The same room and seats: a rematch, not a new room.
    room = httpx.get(f"{live_stack}/api/rooms/{summary['room']}",
                     headers={"Authorization": f"Token {tokens[0]}"}, timeout=10).json()
    assert room["game_id"] == last["game_id"]
    assert sorted(p.user_id for p in stored[last["game_id"]].players.all()) == \
        sorted(p.user_id for p in stored[first["game_id"]].players.all())
