"""The bench's timing of the demo client (bench/bench_server.py ``install_timing``) keeps the demo client
working: every bench game is played through it, and no other test plays it so."""

import asyncio
import importlib.util
import sys

import httpx

from rooms import demo_client
from tests.live import ROOT


def _timed_bench(monkeypatch):
    """bench/bench_server.py loaded afresh, with its timing installed in the demo client (undone after the
    test)."""
    for name in ("httpx", "_socket_reader", "send_action"):
        monkeypatch.setattr(demo_client, name, getattr(demo_client, name))  # put back after the test
    spec = importlib.util.spec_from_file_location("bench_server_timing", ROOT / "bench" / "bench_server.py")
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclasses look their module up there
    spec.loader.exec_module(bench)
    bench.install_timing()
    return bench


def test_the_timed_demo_client_still_builds_its_retrying_api_client(monkeypatch):
    _timed_bench(monkeypatch)

    async def build() -> type:
        async with demo_client.api_client("http://api.test", timeout=5) as http:
            return type(http)

    client_type = asyncio.run(build())
    assert client_type.__name__ == "TimedAsyncClient" and issubclass(client_type, httpx.AsyncClient)


def test_the_timed_demo_client_counts_every_request_by_its_path_shape(monkeypatch):
    """What the bench prints as the clients' HTTP requests during play: method and path, a game id or room
    code as ``{id}``, one entry a request."""
    bench = _timed_bench(monkeypatch)
    answer = httpx.MockTransport(lambda request: httpx.Response(201, json={}))

    async def play() -> None:
        async with demo_client.httpx.AsyncClient(base_url="http://api.test", transport=answer) as http:
            await http.get("/api/games/123")
            await http.post("/api/rooms/K7QX2M/rematch")
            await http.get("/api/games/9")

    asyncio.run(play())
    assert [k for _t, k in bench.REC.requests] == [
        "GET /api/games/{id}", "POST /api/rooms/{id}/rematch", "GET /api/games/{id}"]
