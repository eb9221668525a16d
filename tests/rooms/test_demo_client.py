"""The demo client's own logic, without a server: which view a seat keeps, and a waiting seat stopping."""

import asyncio
import random

from rooms.demo_client import SeatClient, _play_seat, _wake_on


def _view(game_id: int, seq: int, legal=()) -> dict:
    return {"id": game_id, "seq": seq, "status": "playing", "legal_actions": list(legal)}


def test_a_seat_keeps_the_newest_view_and_ignores_a_late_message_of_an_earlier_game():
    seat = SeatClient(server="http://x", token="t")
    seat.take(_view(7, 3))
    seat.take(_view(7, 2))  # an older seq of the same game
    assert (seat.view["id"], seat.view["seq"]) == (7, 3)
    seat.take(_view(9, 0))  # the rematch
    assert (seat.view["id"], seat.view["seq"]) == (9, 0)
    seat.take(_view(7, 4))  # a late message of the game before
    assert (seat.view["id"], seat.view["seq"]) == (9, 0)
    seat.take(_view(9, 0))
    seat.take(None)
    assert (seat.view["id"], seat.view["seq"]) == (9, 0)


def test_a_seat_waiting_for_others_stops_as_soon_as_it_is_told(monkeypatch):
    monkeypatch.setattr("rooms.demo_client.RESYNC_SECONDS", 3600.0)  # no message, no resync: only stop wakes it

    async def main() -> None:
        seat = SeatClient(server="http://x", token="t", view=_view(5, 1))  # not awaited: no legal action
        changed, stop = asyncio.Event(), asyncio.Event()
        waker = asyncio.create_task(_wake_on(stop, [changed]))
        player = asyncio.create_task(_play_seat(seat, None, 5, random.Random(0), changed, stop=stop))
        await asyncio.sleep(0.05)
        assert not player.done()
        stop.set()
        await asyncio.wait_for(player, 10)  # before: it slept until a message or the resync
        waker.cancel()

    asyncio.run(main())


def test_a_503_is_sent_again_after_its_retry_after_and_returned_when_it_lasts(monkeypatch):
    """The client guide's rule for ``503 unavailable`` (nothing was changed): the same request again after
    ``Retry-After`` (capped), three times at most, POSTs included; any other answer at once."""
    import httpx
    from httpx_retries import Retry

    from rooms import demo_client

    waits = []
    real = Retry._calculate_sleep

    def recorded(self, headers):
        waits.append(real(self, headers))
        return 0.0  # the test does not wait

    monkeypatch.setattr(Retry, "_calculate_sleep", recorded)
    answers, seen = [], []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path, request.content))
        status, retry_after = answers.pop(0)
        return httpx.Response(status, headers={"Retry-After": retry_after} if retry_after else {},
                              json={"code": "unavailable"} if status == 503 else {"ok": True})

    async def send(method: str, path: str) -> httpx.Response:
        async with demo_client.api_client("http://api.test", transport=httpx.MockTransport(handler)) as http:
            return await http.request(method, path, json={"seq": 4})

    answers[:] = [(503, "5"), (503, "60"), (200, None)]
    res = asyncio.run(send("POST", "/api/games/3/actions"))
    assert res.status_code == 200 and res.json() == {"ok": True}
    assert len(seen) == 3 and set(seen) == {seen[0]} and seen[0][:2] == ("POST", "/api/games/3/actions")
    assert waits == [5.0, demo_client.UNAVAILABLE_WAIT_MAX]  # Retry-After, capped at 10 s

    seen.clear(), waits.clear()
    answers[:] = [(503, "1")] * 4
    res = asyncio.run(send("GET", "/api/games/3"))
    assert res.status_code == 503 and len(seen) == 1 + demo_client.UNAVAILABLE_RETRIES == 4

    seen.clear(), waits.clear()
    answers[:] = [(503, None), (503, None), (200, None)]  # no Retry-After (a proxy's 503): a growing backoff
    assert asyncio.run(send("GET", "/api/games/3")).status_code == 200
    assert len(seen) == 3 and len(waits) == 2 and 0 < waits[0] <= waits[1] <= demo_client.UNAVAILABLE_WAIT_MAX

    seen.clear()
    answers[:] = [(409, None), (200, None)]
    assert asyncio.run(send("POST", "/api/rooms/ABC/join")).status_code == 409 and len(seen) == 1
