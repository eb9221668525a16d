"""Sending to channel-layer groups without making the caller wait (every app's broadcasts go out here).

:func:`publish` hands a ``(group, message)`` list to the server's event loop from a request's thread (sent
in call order, after the commit, while the HTTP answer goes at once) or sends it at once elsewhere (a
Celery worker, a command, the test client). :func:`group_send` is one message, :func:`group_send_many`
several at once. Errors are logged, never raised: the database is the truth and clients resync.
"""

from __future__ import annotations

import asyncio
import logging
import os

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def group_send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` without making the caller wait: through :func:`publish`, so from a
    request's thread a task on the server's event loop sends it (after every message published before it
    in this process) and the HTTP answer does not wait for Redis; elsewhere (a Celery worker, a command,
    the test client) it is sent before this returns. Errors are logged, never raised."""
    if group:
        publish(lambda: [(group, message)])


def group_send_many(messages: list[tuple[str, dict]]) -> None:
    """Send each ``(group, message)`` concurrently in one hop to the event loop; errors are logged, never
    raised (one failed group does not stop the others)."""
    messages = [(g, m) for g, m in messages if g]
    if not messages:
        return
    try:
        async_to_sync(_send_all)(messages)
    except Exception:
        log.exception("group_send to %d groups failed", len(messages))


async def _send_all(messages: list[tuple[str, dict]]) -> None:
    """Send every ``(group, message)`` concurrently on the running loop; a failed group is logged."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    results = await asyncio.gather(*(layer.group_send(g, m) for g, m in messages), return_exceptions=True)
    for (group, _msg), result in zip(messages, results, strict=True):
        if isinstance(result, BaseException):
            log.error("group_send to %s failed: %r", group, result)


def publish(build, send_many=None) -> None:
    """Send the ``(group, message)`` list that ``build()`` returns, without making the caller wait.

    Called from a request's thread (Django's sync code under an ASGI server, after the commit): the
    messages are built and sent by a task on the server's event loop, and the HTTP answer goes at once.
    The tasks send one after another, in the order of the calls (:func:`_send_lock`): a message never
    overtakes one published before it in this process, whatever the channel layer (the list layer's
    ``group_send`` takes several Redis round trips, which concurrent tasks would interleave). With no
    such loop (a Celery worker, a management command, the test client) they are built and sent here,
    before returning. Errors are logged, never raised. Tasks are kept until done (asyncio holds only weak
    references to them); those still waiting when the server process stops are lost, as any message of
    the layer may be: clients resync by ``seq`` and the room's ``version``. ``send_many``: what sends the
    list when no loop is found (default :func:`group_send_many`)."""
    loop = _server_loop()
    if loop is None:
        try:
            messages = build()
        except Exception:
            log.exception("building a broadcast failed")
            return
        (send_many or group_send_many)(messages)
        return

    async def build_and_send() -> None:
        try:
            messages = [(g, m) for g, m in build() if g]
        except Exception:
            log.exception("building a broadcast failed")
            return
        async with _send_lock(loop):
            await _send_all(messages)

    def spawn() -> None:
        task = loop.create_task(build_and_send())
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)

    try:
        loop.call_soon_threadsafe(spawn)
    except RuntimeError:  # the loop closed since it was found (the server stopping): nothing can be sent
        log.warning("the event loop closed before a broadcast was handed to it")


_PENDING: set = set()
_SEND_LOCK: list = [None, None]  # [loop, its asyncio.Lock]


def _send_lock(loop) -> asyncio.Lock:
    """The lock that :func:`publish`'s tasks on ``loop`` send under, one at a time and first come, first
    served (asyncio's lock is FIFO, and a task reaches it without awaiting anything before: in the order
    the tasks were made). A new loop (tests) gets a new lock: asyncio's primitives keep to one loop."""
    if _SEND_LOCK[0] is not loop:
        _SEND_LOCK[:] = [loop, asyncio.Lock()]
    return _SEND_LOCK[1]


def _server_loop():
    """The running event loop this thread's sync code was called from (asgiref's ``sync_to_async`` records
    it, as its ``async_to_sync`` does), or ``None`` outside one / on that loop's own thread."""
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    try:
        if asyncio.get_running_loop() is loop:
            return None
    except RuntimeError:
        pass
    return loop
