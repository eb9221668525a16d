"""The pub/sub channel layer (``CHANNEL_LAYER=pubsub``, the default): channels-redis' layer, plus one call
that publishes many group messages in one Redis round trip.

channels-redis publishes each group message on its own, under a lock its shard's connection holds from the
PUBLISH until its reply is read: a process's messages go out one at a time, each waiting for its reply and
then for a turn of an event loop that serves every socket of the process, so any pause of the loop left
a queue behind it (bench/README.md "1,000 games").
:meth:`PubSubLayer.group_send_many` sends a list of messages as one pipeline, under the same lock: the
replies of all of them in one round trip, in the list's order.
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubLayer(RedisPubSubChannelLayer):
    """channels-redis' ``RedisPubSubChannelLayer`` with :meth:`group_send_many`. Built on channels-redis 4.x's
    per-loop layer and shard connection (``_get_layer``, ``_get_shard``, ``_get_group_channel_name``, the
    shard's ``_lock``, ``_ensure_redis`` and ``_redis``); ``tests/test_channel_layer.py`` checks them."""

    async def group_send_many(self, messages: list[tuple[str, dict]]) -> None:
        """PUBLISH every ``(group, message)`` in the list's order: each run of messages for the same shard
        as one pipeline, sent under the shard's lock, one run after another (with one Redis host, the
        default, the whole list is one pipeline: one round trip). Raises what Redis raises; the runs
        after a failed one are not sent."""
        layer = self._get_layer()
        runs: list[tuple[object, list[tuple[str, bytes]]]] = []
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            shard = layer._get_shard(channel)
            if not runs or runs[-1][0] is not shard:
                runs.append((shard, []))
            runs[-1][1].append((channel, self.serialize(message)))
        for shard, items in runs:
            await _publish_all(shard, items)


async def _publish_all(shard, items: list[tuple[str, bytes]]) -> None:
    """``items`` (channel, payload) published in order, in one pipeline of the shard's connection."""
    async with shard._lock:
        shard._ensure_redis()
        async with shard._redis.pipeline(transaction=False) as pipe:
            for channel, payload in items:
                pipe.publish(channel, payload)
            await pipe.execute()
