"""Shared fixtures. Tests marked ``postgres``, ``redis``, ``browser``, ``caddy`` or ``pg_tools`` need that
real service (DATABASE_URL pointing at PostgreSQL; REDIS_URL; the machine's Chromium; the ``caddy``
binary; ``pg_dump`` and ``pg_restore``): without it they are skipped with the reason
"missing service: …", which .ci/run treats as a failure."""

import os
import shutil

import pytest

MISSING = "missing service"


def _db_is_postgres() -> bool:
    try:
        from django.conf import settings

        return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    except Exception:  # run with -p no:django: no settings configured
        return False


def pytest_collection_modifyitems(config, items):
    has_redis = bool(os.environ.get("REDIS_URL"))
    is_postgres = _db_is_postgres()
    for item in items:
        missing = []
        if item.get_closest_marker("postgres") and not is_postgres:
            missing.append("PostgreSQL (set DATABASE_URL)")
        if (item.get_closest_marker("redis") or item.get_closest_marker("e2e")) and not has_redis:
            missing.append("Redis (set REDIS_URL)")
        if item.get_closest_marker("browser") and not (os.environ.get("CHROMIUM") or shutil.which("chromium")):
            missing.append("Chromium (apt-get install chromium, or set CHROMIUM)")
        if item.get_closest_marker("caddy") and not shutil.which("caddy"):
            missing.append("Caddy (apt-get install caddy)")
        if item.get_closest_marker("pg_tools") and not (shutil.which("pg_dump") and shutil.which("pg_restore")):
            missing.append("pg_dump and pg_restore (apt-get install postgresql-client)")
        if missing:
            item.add_marker(pytest.mark.skip(reason=f"{MISSING}: {', '.join(missing)}"))


@pytest.fixture(autouse=True)
def _clear_cache():
    """Throttle counters live in the cache: every test starts with none (and with no presence time this
    process remembers writing there: games.timers.game_note_seen)."""
    try:
        from django.core.cache import cache

        cache.clear()
    except Exception:  # pure tests run with -p no:django have no cache
        pass
    else:
        from games import timers

        timers._SEEN_NOTED.clear()
    yield


@pytest.fixture
async def fresh_channel_layer():
    """For tests that open sockets in process: a channel layer made in this test's event loop
    (channels-redis binds its locks and pools to the loop that first used them, and each test has a new
    loop), its pools closed after, each on its own loop; then the consumers' socket calls, cancelled
    mid-way, finish (``config.asyncdb.wait_idle``) and the database connections they opened in their
    threads are closed (else the database is flushed under them, and PostgreSQL refuses to drop the test
    database)."""
    import asyncio

    from channels.db import database_sync_to_async
    from channels.layers import channel_layers
    from django.db import connections

    from config.asyncdb import wait_idle

    channel_layers.backends.clear()
    yield
    layer = channel_layers.backends.pop("default", None)
    if getattr(type(layer), "wait_received", None) is not None:
        await layer.wait_received()
    here = asyncio.get_running_loop()
    # channels-redis' per-loop pools: this loop's, and the sender loop's (config.groups)
    for loop, pools in list(vars(layer).get("_layers", {}).items()) if layer is not None else ():
        if loop is here:
            await pools.flush()
        elif loop.is_running():
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(pools.flush(), loop))
    await asyncio.to_thread(wait_idle)
    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def api():
    """An unauthenticated DRF test client."""
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def make_client():
    """``make_client(user)`` -> an APIClient sending that user's token."""
    from rest_framework.test import APIClient

    from tests.factories import token_for

    def _make(user):
        client = APIClient()
        key = token_for(user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        client.user = user
        client.token = key
        return client

    return _make


@pytest.fixture
def user(db):
    from tests.factories import UserFactory

    return UserFactory()


@pytest.fixture
def guest(db):
    from tests.factories import GuestFactory

    return GuestFactory()
