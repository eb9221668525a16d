"""games.events: sending to many groups at once; messages handed to the server's loop keep their order."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from config import groups
from games import events


class _Layer:
    def __init__(self):
        self.got = []

    async def group_send(self, group, message):
        if group == "bad":
            raise RuntimeError("layer down for this group")
        self.got.append((group, message))


def test_group_send_many_sends_every_message_and_survives_a_failing_group(monkeypatch, caplog):
    layer = _Layer()
    monkeypatch.setattr(groups, "get_channel_layer", lambda: layer)
    events.group_send_many([("a", {"n": 1}), ("bad", {"n": 2}), ("", {"n": 3}), ("b", {"n": 4})])
    assert sorted(layer.got, key=lambda gm: gm[0]) == [("a", {"n": 1}), ("b", {"n": 4})]
    assert "group_send to bad failed" in caplog.text


def test_group_send_many_without_a_layer_is_a_no_op(monkeypatch):
    monkeypatch.setattr(groups, "get_channel_layer", lambda: None)
    events.group_send_many([("a", {"n": 1})])


def test_loopless_broadcasts_share_one_loop_for_the_process(monkeypatch):
    """A Celery task's broadcasts (no event loop in its thread) go out on one loop and one thread kept for
    the process (its Redis connections are the loop's), from any thread; a forked child starts its own."""
    import threading

    seen = []

    class _Recording:
        async def group_send(self, group, message):
            seen.append((asyncio.get_running_loop(), threading.get_ident()))

    def senders() -> int:
        return sum(t.name == "broadcast-sender" for t in threading.enumerate())

    monkeypatch.setattr(groups, "get_channel_layer", lambda: _Recording())
    events.group_send_many([("a", {"n": 1})])
    threads = senders()
    events.group_send_many([("b", {"n": 2})])
    other = threading.Thread(target=events.group_send_many, args=([("c", {"n": 3})],))
    other.start()
    other.join()
    assert senders() == threads == 1
    assert len(seen) == 3 and len(set(seen)) == 1
    loop, ident = seen[0]
    assert ident != threading.get_ident() and loop.is_running()

    groups._forget_sender()  # what a child forked after the loop started runs
    events.group_send_many([("d", {"n": 4})])
    assert seen[-1][0] is not loop and seen[-1][1] != ident
    loop.call_soon_threadsafe(loop.stop)  # the parent's thread, which a real child would not have


def test_a_broadcast_on_a_running_loops_thread_goes_through_its_outbox(monkeypatch):
    """Called on an event loop's own thread, ``group_send_many`` does not hold that loop: the loop's outbox
    sends the messages once the caller yields."""
    got = []

    class _Layer:
        async def group_send(self, group, message):
            got.append((group, message))

    monkeypatch.setattr(groups, "get_channel_layer", lambda: _Layer())

    async def caller():
        events.group_send_many([("a", {"n": 1})])
        assert got == []  # not sent yet: the loop was not held
        while not got:
            await asyncio.sleep(0)
        return got

    assert asyncio.run(caller()) == [("a", {"n": 1})]


def test_a_loopless_broadcast_that_hangs_is_given_up(monkeypatch, caplog):
    """A layer that never answers (Redis unreachable) holds a task for ``SEND_TIMEOUT`` seconds, not for
    ever; the send is cancelled and logged, and the next broadcast still goes."""
    got = []

    class _Stuck:
        async def group_send(self, group, message):
            if group == "stuck":
                await asyncio.Event().wait()
            got.append(group)

    monkeypatch.setattr(groups, "get_channel_layer", lambda: _Stuck())
    monkeypatch.setattr(groups, "SEND_TIMEOUT", 0.05)
    events.group_send_many([("stuck", {"n": 1})])
    assert "took over 0.05 s: given up" in caplog.text
    monkeypatch.setattr(groups, "SEND_TIMEOUT", 10.0)
    events.group_send_many([("next", {"n": 2})])
    assert got == ["next"]


def test_a_socket_gets_only_its_own_users_share_of_a_broadcast():
    """``seat_share``: seat 1's share to seat 1's user only (not to a socket still on seat 1 whose user a
    start moved elsewhere), the spectators' share to spectators, nothing where the message has none."""
    from games.events import game_share, seat_share

    mine = game_share({"type": "game", "view": {"id": 7, "seq": 3, "you": 1}, "events": []}, user_id=42)
    watched = game_share({"type": "game", "view": {"id": 7, "seq": 3, "you": None}, "events": []})
    message = {"type": "game.update", "after": 2, "seats": {"1": mine}, "spectators": watched}
    assert seat_share(message, 1, 42) is mine
    assert seat_share(message, 1, 43) is None
    assert seat_share(message, 0, 42) is None
    assert seat_share(message, None) is watched
    assert seat_share({"type": "game.update", "after": 2, "seats": {"1": mine}}, None) is None
    assert (mine["id"], mine["seq"], mine["user"]) == (7, 3, 42)


def test_a_broadcast_nobody_watches_has_no_spectators_share(monkeypatch):
    """``broadcast_game(watched=False)``: every seat's share, no spectators' share, ``unwatched``; a ranked
    game in progress (never watched) has neither."""
    from types import SimpleNamespace

    from games.models import Game

    out = []
    monkeypatch.setattr(events, "group_send_many", lambda messages: out.extend(messages))
    players = [SimpleNamespace(seat=0, user_id=5), SimpleNamespace(seat=1, user_id=6)]
    views = {0: {"id": 9, "seq": 4, "you": 0}, 1: {"id": 9, "seq": 4, "you": 1}}
    rows = [(4, "player", [{"type": "roll", "audience": "all"}])]
    for ranked, expected in ((False, True), (True, None)):
        out.clear()
        game = SimpleNamespace(group="room-ABCDEF", ranked=ranked, status=Game.PLAYING)
        events.broadcast_game(game, players=players, state=None, rows=rows, views=views, watched=False)
        ((group, message),) = out
        assert group == "room-ABCDEF" and sorted(message["seats"]) == ["0", "1"]
        assert "spectators" not in message and message.get("unwatched") is expected


@pytest.mark.redis
@pytest.mark.parametrize("backend", ["channels_redis.core.RedisChannelLayer",
                                     "channels_redis.pubsub.RedisPubSubChannelLayer",
                                     "config.channel_layer.PubSubLayer"])
async def test_messages_handed_to_the_loop_arrive_in_the_order_they_were_sent(backend, settings, fresh_channel_layer):
    """Sent from a request's thread, each message goes out from the server's loop in the order it was
    published (``config.groups``' batches): a message never overtakes one sent before it, to the same
    group or another (a user's ``revoked`` close before the room message that unseats them). The list layer's ``group_send`` takes
    several Redis round trips: concurrent tasks reordered 44-64 of 300 messages there."""
    from channels.layers import channel_layers, get_channel_layer

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": backend, "CONFIG": {
        "hosts": [settings.REDIS_URL], "prefix": "order", **({"capacity": 1000} if ".core." in backend else {})}}}
    channel_layers.backends.clear()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    for group in ("room-ORDER", "user-1"):
        await layer.group_add(group, channel)
    count = 120

    def request_thread():  # sync code called from the loop, as a view is: publish hands over to the loop
        for i in range(count):
            events.group_send("room-ORDER" if i % 2 else "user-1",
                              {"type": "room.update", "i": i, "pad": "x" * (20000 if i % 3 == 0 else 10)})

    await sync_to_async(request_thread, thread_sensitive=False)()
    got = [(await asyncio.wait_for(layer.receive(channel), 10))["i"] for _ in range(count)]
    for group in ("room-ORDER", "user-1"):
        await layer.group_discard(group, channel)
    assert got == list(range(count))
