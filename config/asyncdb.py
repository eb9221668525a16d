"""Database work awaited from sockets, side by side.

Channels' ``database_sync_to_async`` is thread-sensitive: outside a request (a consumer has no
``ThreadSensitiveContext``) asgiref runs every such call of the process on ONE shared thread, so the
database work of every open socket waits in one queue (django/channels#2132) and, under load, handshakes
time out behind it. The socket code here is made of self-contained calls (each opens its own transaction
and needs nothing from the thread it runs on), so it runs on a thread pool instead (asgiref's
``thread_sensitive=False``), each call on its own connection (from the pool, given back when the call
ends).

That thread pool is this module's own (``SOCKET_DB_THREADS`` threads a process), not the event loop's
default one: Django itself runs work there that a request needs to finish while it still holds its
database connection (``log_response`` of every 4xx/5xx answer, ``response_for_exception``). Sharing it,
socket calls waiting for a connection from a dry pool filled it, the requests holding the connections
waited behind them for ``log_response``, and nothing moved until the socket calls' pool timeout
(``DATABASE_POOL_TIMEOUT``, 10 s): a 10 s stall and a burst of 503s, seen at 64 Chinchirorin games, whose
simultaneous bets end in many 409s while the games' endings close many sockets at once.
"""

import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")

SOCKET_DB_THREADS = min(32, (os.cpu_count() or 1) + 4)  # as asyncio's default pool
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def socket_db_executor() -> ThreadPoolExecutor:
    """This process's thread pool for :func:`db_call` (made on first use; a forked child makes its own:
    the parent's threads do not exist there)."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=SOCKET_DB_THREADS, thread_name_prefix="socket-db")
        return _executor


_in_flight = 0  # db_calls running now (wait_idle)
_idle = threading.Condition()


def _forget_in_child() -> None:
    """After a fork: no thread pool, no call running and fresh locks (the parent's may be held)."""
    global _executor, _executor_lock, _in_flight, _idle
    _executor, _executor_lock, _in_flight, _idle = None, threading.Lock(), 0, threading.Condition()


os.register_at_fork(after_in_child=_forget_in_child)


def wait_idle(timeout: float = 10.0) -> bool:
    """Block until no :func:`db_call` is running in this process (at most ``timeout`` s); True if none is.
    A call whose awaiting task was cancelled (a socket gone mid-call) goes on in its thread: tests wait
    for it before their database is flushed."""
    with _idle:
        return _idle.wait_for(lambda: _in_flight == 0, timeout)


class _PooledCall(DatabaseSyncToAsync):
    """Channels' wrapper, not thread-sensitive, whose thread gives its connections back after each call
    (returned to the pool, or closed): a pool thread may sit idle for long, or end with its event loop,
    and must not keep a connection checked out meanwhile. Channels' own check (``close_old_connections``)
    did not suffice: with it alone, the socket tests left pool connections checked out by such threads
    until the pool ran dry (``PoolTimeout``)."""

    @property
    def _executor(self) -> ThreadPoolExecutor:
        """asgiref's executor of this call: this process's pool at the time of the call (a wrapper made at
        import, before a server forks its workers, uses the child's own)."""
        return socket_db_executor()

    @_executor.setter
    def _executor(self, _value) -> None:  # asgiref's __init__ stores the executor given: always ours
        pass

    def thread_handler(self, loop, *args, **kwargs):
        global _in_flight
        with _idle:
            _in_flight += 1
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            try:
                for conn in connections.all(initialized_only=True):
                    conn.close()
            finally:
                with _idle:
                    _in_flight -= 1
                    _idle.notify_all()


def db_call(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` (sync, self-contained database work) as an awaitable run on :func:`socket_db_executor`'s
    threads (never the event loop's default pool, see the module docstring); the thread's database
    connections are given back (to the pool) after the call."""
    return _PooledCall(func, thread_sensitive=False)
