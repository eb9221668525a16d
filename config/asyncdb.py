"""Database work awaited from sockets, side by side.

Channels' ``database_sync_to_async`` is thread-sensitive: outside a request (a consumer has no
``ThreadSensitiveContext``) asgiref runs every such call of the process on ONE shared thread, so the
database work of every open socket waits in one queue (django/channels#2132) and, under load, handshakes
time out behind it. The socket code here is made of self-contained calls (each opens its own transaction
and needs nothing from the thread it runs on), so it runs on the event loop's thread pool instead
(asgiref's ``thread_sensitive=False``; ``min(32, cores + 4)`` threads), each call on its own connection
(from the pool, given back when the call ends).
"""

from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")


class _PooledCall(DatabaseSyncToAsync):
    """Channels' wrapper, not thread-sensitive, whose thread gives its connections back after each call
    (returned to the pool, or closed): a pool thread may sit idle for long, or end with its event loop,
    and must not keep a connection checked out meanwhile. Channels' own check (``close_old_connections``)
    did not suffice: with it alone, the socket tests left pool connections checked out by such threads
    until the pool ran dry (``PoolTimeout``)."""

    def thread_handler(self, loop, *args, **kwargs):
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            for conn in connections.all(initialized_only=True):
                conn.close()


def db_call(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` (sync, self-contained database work) as an awaitable run on the loop's thread pool; the
    thread's database connections are given back (to the pool) after the call."""
    return _PooledCall(func, thread_sensitive=False)
