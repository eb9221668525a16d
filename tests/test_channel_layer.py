"""Broadcasts leave a server process in batches (``config.groups``), and the pub/sub layer publishes a batch
in one Redis round trip, in order (``config.channel_layer.PubSubLayer``)."""

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async

from config import groups
from config.channel_layer import PubSubLayer


class _HeldManyLayer:
    """A layer whose ``group_send_many`` holds its first call until released, recording every call."""

    def __init__(self):
        self.calls: list[list[tuple[str, dict]]] = []
        self.entered = threading.Event()
        self.release = asyncio.Event()

    async def group_send_many(self, messages):
        self.calls.append(list(messages))
        self.entered.set()
        await self.release.wait()


async def _calls(layer, count: int) -> list:
    """The layer's calls once there are ``count`` of them (at most 5 s)."""
    for _ in range(500):
        if len(layer.calls) >= count:
            break
        await asyncio.sleep(0.01)
    return layer.calls


async def test_broadcasts_published_while_a_batch_is_sent_go_out_together_in_order(monkeypatch):
    """While one batch waits for Redis, the broadcasts published meanwhile queue; the next batch is all of
    them, in the order they were published (one round trip for four broadcasts, not four)."""
    layer = _HeldManyLayer()
    monkeypatch.setattr(groups, "get_channel_layer", lambda: layer)

    def request_thread():  # sync code called from the loop, as a view is: publish hands over to the loop
        groups.publish(lambda: [("room-A", {"type": "room.update", "n": 0})])
        assert layer.entered.wait(10)  # the first batch is being sent
        for n in range(1, 4):
            groups.publish(lambda n=n: [("room-A", {"type": "room.update", "n": n}),
                                        ("user-7", {"type": "user.notice", "n": n})])
        groups.group_send("room-B", {"type": "room.update", "n": 4})

    await sync_to_async(request_thread, thread_sensitive=False)()
    await asyncio.sleep(0.05)  # the loop runs what the thread handed over; the first batch still holds
    assert [[m["n"] for _g, m in call] for call in layer.calls] == [[0]]
    layer.release.set()
    assert (await _calls(layer, 2))[1] == [("room-A", {"type": "room.update", "n": 1}), ("user-7", {"type": "user.notice", "n": 1}),
                              ("room-A", {"type": "room.update", "n": 2}), ("user-7", {"type": "user.notice", "n": 2}),
                              ("room-A", {"type": "room.update", "n": 3}), ("user-7", {"type": "user.notice", "n": 3}),
                              ("room-B", {"type": "room.update", "n": 4})]
    await asyncio.sleep(0.05)
    assert len(layer.calls) == 2


async def test_a_broadcast_that_fails_to_build_is_logged_and_its_batch_goes_on(monkeypatch, caplog):
    """A build that raises is logged and skipped; the broadcasts queued with it in the same batch go."""
    layer = _HeldManyLayer()
    monkeypatch.setattr(groups, "get_channel_layer", lambda: layer)

    def request_thread():
        groups.publish(lambda: [("room-A", {"type": "room.update", "n": 0})])
        assert layer.entered.wait(10)  # the first batch is being sent: the next two queue together
        groups.publish(lambda: 1 / 0)
        groups.publish(lambda: [("room-A", {"type": "room.update", "n": 1}), ("", {"type": "nobody"})])

    await sync_to_async(request_thread, thread_sensitive=False)()
    layer.release.set()
    assert await _calls(layer, 2) == [[("room-A", {"type": "room.update", "n": 0})],
                                      [("room-A", {"type": "room.update", "n": 1})]]
    assert "building a broadcast failed" in caplog.text


async def test_a_failed_batch_is_logged_and_a_broadcast_after_it_goes(monkeypatch, caplog):
    """A batch the layer refuses is logged; the sending task ends once nothing is queued, and the next
    broadcast starts a new one."""
    layer = _HeldManyLayer()
    layer.release.set()
    failures = [RuntimeError("redis down")]

    async def many(messages):
        layer.calls.append(list(messages))
        if failures:
            raise failures.pop()

    layer.group_send_many = many
    monkeypatch.setattr(groups, "get_channel_layer", lambda: layer)
    await sync_to_async(lambda: groups.group_send("room-A", {"type": "room.update", "n": 0}),
                        thread_sensitive=False)()
    assert len(await _calls(layer, 1)) == 1
    for _ in range(500):  # the task ends once the list is empty
        if groups._OUTBOX[0].task is None:
            break
        await asyncio.sleep(0.01)
    assert groups._OUTBOX[0].task is None
    await sync_to_async(lambda: groups.group_send("room-A", {"type": "room.update", "n": 1}),
                        thread_sensitive=False)()
    assert [[m["n"] for _g, m in call] for call in await _calls(layer, 2)] == [[0], [1]]
    assert "redis down" in caplog.text


@pytest.mark.redis
async def test_the_pubsub_layer_publishes_a_batch_in_one_pipeline_in_order(settings):
    """``group_send_many``: every message reaches the group's subscribers in the list's order, through one
    pipeline of the shard's connection (one round trip), never one PUBLISH at a time."""
    layer = PubSubLayer(hosts=[settings.REDIS_URL], prefix="batch")
    channel = await layer.new_channel()
    for group in ("room-BATCH", "user-9"):
        await layer.group_add(group, channel)
    shard = layer._get_layer()._shards[0]
    pipelines = []
    pipeline = shard._redis.pipeline

    def counted(*args, **kwargs):
        pipelines.append(kwargs)
        return pipeline(*args, **kwargs)

    async def one_by_one(*_a, **_kw):
        raise AssertionError("a batch is published in one pipeline, not message by message")

    shard._redis.pipeline, shard._redis.publish = counted, one_by_one
    messages = [("room-BATCH" if i % 2 else "user-9", {"type": "room.update", "i": i, "pad": "x" * (i % 7) * 3000})
                for i in range(150)]
    try:
        await layer.group_send_many(messages)
        got = [(await asyncio.wait_for(layer.receive(channel), 10))["i"] for _ in messages]
    finally:
        for group in ("room-BATCH", "user-9"):
            await layer.group_discard(group, channel)
        await layer.flush()
    assert got == list(range(150))
    assert pipelines == [{"transaction": False}]
