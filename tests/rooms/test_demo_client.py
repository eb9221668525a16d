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
