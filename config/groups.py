"""Sending to channel-layer groups without making the caller wait (every app's broadcasts go out here).

:func:`publish` hands a ``(group, message)`` list to the server's event loop from a request's thread (sent
in call order, after the commit, while the HTTP answer goes at once) or sends it at once elsewhere (a
Celery worker, a command, the test client) on the process's one sender loop (:func:`_sender_loop`).
:func:`group_send` is one message, :func:`group_send_many` several at once. Errors are logged, never
raised: the database is the truth and clients resync.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading

from asgiref.sync import SyncToAsync
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
    """Send every ``(group, message)`` before returning, in one Redis round trip where the layer can
    (:func:`_send_batches`), on the process's sender loop (:func:`_sender_loop`); errors, and a send not
    done in :data:`SEND_TIMEOUT` seconds, are logged, never raised (with another layer, one failed group
    does not stop the others). Called on an event loop's own thread, it hands them to that loop's outbox
    (:class:`_Outbox`) instead and returns at once: waiting would hold the loop."""
    messages = [(g, m) for g, m in messages if g]
    if not messages:
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is not None:
        _put(running, lambda: messages)
        return
    try:
        done = asyncio.run_coroutine_threadsafe(_send_batches([messages]), _sender_loop())
        done.result(SEND_TIMEOUT)
    except concurrent.futures.TimeoutError:
        done.cancel()
        log.error("group_send to %d groups took over %s s: given up", len(messages), SEND_TIMEOUT)
    except Exception:
        log.exception("group_send to %d groups failed", len(messages))


SEND_TIMEOUT = 10.0  # seconds a loop-less caller waits for its broadcast before giving it up

_SENDER: dict = {}  # {"loop": the sender loop} once started in this process
_SENDER_LOCK = threading.Lock()


def _sender_loop() -> asyncio.AbstractEventLoop:
    """The process's sender loop: one event loop, running on a daemon thread for the process's life, that
    sends what loop-less callers (Celery tasks, commands, tests) broadcast. The channel layer keeps its Redis
    connections per loop, so they are made once, not per broadcast. Started on first use, and again in a
    forked child (:func:`_forget_sender`: a thread does not survive ``fork``)."""
    with _SENDER_LOCK:
        if "loop" not in _SENDER:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="broadcast-sender", daemon=True).start()
            _SENDER["loop"] = loop
        return _SENDER["loop"]


def _forget_sender() -> None:
    """In a forked child: no sender loop yet (the parent's thread did not come along), and a lock of its
    own (the parent's may have been held by another thread at the fork)."""
    global _SENDER_LOCK
    _SENDER.clear()
    _SENDER_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_sender)


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

    Called from a request's thread (Django's sync code under an ASGI server, after the commit): ``build`` is
    handed to the server's event loop (:class:`_Outbox`), which builds and sends it, and the HTTP answer
    goes at once. Messages go out in the order of the calls: a message never overtakes one published
    before it in this process, whatever the channel layer. With no such loop (a Celery worker, a
    management command, the test client) they are built and sent here, before returning. Errors are
    logged, never raised. Messages still waiting when the server process stops are lost, as any message
    of the layer may be: clients resync by ``seq`` and the room's ``version``. ``send_many``: what sends
    the list when no loop is found (default :func:`group_send_many`)."""
    loop = _server_loop()
    if loop is None:
        try:
            messages = build()
        except Exception:
            log.exception("building a broadcast failed")
            return
        (send_many or group_send_many)(messages)
        return
    try:
        loop.call_soon_threadsafe(_put, loop, build)
    except RuntimeError:  # the loop closed since it was found (the server stopping): nothing can be sent
        log.warning("the event loop closed before a broadcast was handed to it")


class _Outbox:
    """The broadcasts handed to one event loop, sent by one task in the order they came.

    While a batch is being sent, what comes meanwhile waits here; the next batch is all of it. A layer with
    ``group_send_many`` (:class:`config.channel_layer.PubSubLayer`) sends a batch in one Redis round trip,
    in order; with any other layer each broadcast's messages are sent together (:func:`_send_all`), one
    broadcast after another. So a pause of the loop (a garbage collection, a burst) costs one round trip
    afterwards, not one per broadcast that waited."""

    def __init__(self, loop):
        self.loop = loop
        self.builds: list = []
        self.task: asyncio.Task | None = None

    def put(self, build) -> None:
        """On the loop: queue ``build``; start the sending task unless it runs."""
        self.builds.append(build)
        if self.task is None or self.task.done():  # done: cancelled before it ever ran
            self.task = self.loop.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.builds:
                builds, self.builds = self.builds[:MAX_BATCH], self.builds[MAX_BATCH:]
                batches = []
                for build in builds:
                    try:
                        batches.append([(g, m) for g, m in build() if g])
                    except Exception:
                        log.exception("building a broadcast failed")
                try:
                    await _send_batches([b for b in batches if b])
                except Exception:  # noqa: BLE001 - logged; the next batches still go
                    log.exception("sending %d broadcasts failed", len(batches))
        finally:
            self.task = None  # the loop emptied the list with no await since: the next put() starts a task


MAX_BATCH = 500  # broadcasts sent in one batch at most (after a long pause, several batches)


async def _send_batches(batches: list[list[tuple[str, dict]]]) -> None:
    """Every batch's messages, in order: in one ``group_send_many`` call where the layer has one (raises
    what it raises: the callers log it), else one batch after another (:func:`_send_all`: a failed group
    is logged)."""
    if not batches:
        return
    layer = get_channel_layer()
    many = getattr(layer, "group_send_many", None) if layer is not None else None
    if many is None:
        for messages in batches:
            await _send_all(messages)
        return
    await many([gm for batch in batches for gm in batch])


_OUTBOX: list = [None]  # the current loop's _Outbox


def _put(loop, build) -> None:
    """On ``loop``: hand ``build`` to its outbox (a new loop, in tests, gets a new one: a task keeps to its
    loop)."""
    box = _OUTBOX[0]
    if box is None or box.loop is not loop:
        box = _OUTBOX[0] = _Outbox(loop)
    box.put(build)


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
