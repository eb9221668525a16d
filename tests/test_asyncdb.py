"""Socket database work (config.asyncdb): calls from different sockets run side by side, never on the one
thread Channels' thread-sensitive wrapper uses, and each call gives its connection back."""

import asyncio
import os
import threading

import pytest
from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db import connection

from accounts.ws_auth import user_for_token
from config.asyncdb import db_call
from tests.factories import UserFactory, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


async def test_two_calls_run_at_once_off_the_single_thread():
    """Both calls must be inside their function at the same time to pass the barrier: run one after the
    other (as on Channels' single thread), the first would wait out the barrier's timeout and break it."""
    barrier = threading.Barrier(2, timeout=10)
    single = SyncToAsync.single_thread_executor

    def meet() -> tuple[int, bool]:
        get_user_model().objects.count()  # database work in the call
        barrier.wait()
        on_single = any(t is threading.current_thread() for t in getattr(single, "_threads", ()))
        return threading.get_ident(), on_single

    (t1, single1), (t2, single2) = await asyncio.gather(db_call(meet)(), db_call(meet)())
    assert t1 != t2 and not single1 and not single2


async def test_each_call_gives_its_connection_back_to_the_pool():
    """After any number of calls from many threads, the pool holds as many connections in use as before
    (the test's own): none stays checked out by an idle thread."""
    pool = connection.pool

    def in_use() -> int:
        stats = pool.get_stats()
        return stats["pool_size"] - stats["pool_available"]

    token = await database_sync_to_async(lambda: token_for(UserFactory()))()
    before = in_use()
    for _ in range(3):
        users = await asyncio.gather(*(user_for_token(token) for _ in range(8)),
                                     *(user_for_token("no-such-token") for _ in range(4)))
        assert [u.is_authenticated for u in users] == [True] * 8 + [False] * 4
    # The pool counts a connection it is still opening in the background (it grew under the calls) as in
    # its size before it is available: give that a moment, not a connection held by a thread.
    for _ in range(40):
        if in_use() == before:
            break
        await asyncio.sleep(0.05)
    assert in_use() == before


async def test_socket_calls_and_the_loops_default_pool_do_not_wait_for_each_other():
    """Django runs a request's ``log_response`` (every 4xx/5xx) and ``response_for_exception`` on the event
    loop's default pool while the request holds its database connection; socket calls waiting for a
    connection must not fill that pool (a 10 s stall until the pool timeout, at 64 games). Each side is
    filled with blocked work in turn, and the other still runs at once."""
    loop = asyncio.get_running_loop()
    release = threading.Event()
    blocked = [loop.run_in_executor(None, release.wait, 30) for _ in range(40)]  # the default pool, full
    try:
        assert await asyncio.wait_for(db_call(lambda: get_user_model().objects.count())(), 5) >= 0
    finally:
        release.set()
        await asyncio.gather(*blocked)
    release.clear()
    blocked = [asyncio.ensure_future(db_call(release.wait)(30)) for _ in range(40)]  # the socket pool, full
    try:
        assert await asyncio.wait_for(SyncToAsync(lambda: "logged", thread_sensitive=False)(), 5) == "logged"
    finally:
        release.set()
        await asyncio.gather(*blocked)


def test_a_forked_child_makes_its_own_thread_pool():
    """The parent's pool threads do not exist in a forked child (a server forking its workers after a
    call): the child starts with no pool and no call counted, and its calls, wrappers made before the fork
    included, use a pool of its own."""
    from config import asyncdb

    made_before = db_call(lambda: None)  # as a module-level wrapper made at import
    parent = asyncdb.socket_db_executor()
    assert made_before._executor is parent
    pid = os.fork()
    if pid == 0:  # the child: report by exit status only
        fresh = asyncdb._executor is None and asyncdb._in_flight == 0
        ok = fresh and made_before._executor is not parent and made_before._executor is asyncdb.socket_db_executor()
        os._exit(0 if ok else 1)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert asyncdb.socket_db_executor() is parent
