"""The cache shares its Redis connections across requests (config/settings: django-redis).

Django hands each thread and each async context a cache object of its own, and under ASGI every request
runs in a new one; with Django's own RedisCache each of those objects built its own connection pool, so
every request that touched the cache (a throttle, a presence write) opened a new Redis connection."""

import threading

import pytest
import redis
from django.conf import settings
from django.core.cache import caches

pytestmark = pytest.mark.redis

REQUESTS = 30


def _connections_received() -> int:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return int(client.info("stats")["total_connections_received"])
    finally:
        client.close()


def test_requests_in_fresh_threads_reuse_the_process_connections():
    """30 threads one after the other, each as a request would: its own cache object, a write and a read.
    Django's RedisCache opened 30 connections here (one per thread); now at most a couple are opened."""
    seen = []

    def request(i: int) -> None:
        cache = caches["default"]  # this thread's cache object, as a request's
        cache.set(f"pool-test:{i}", i, timeout=30)
        seen.append((id(cache), cache.get(f"pool-test:{i}")))

    request(-1)  # the process's first connection
    before = _connections_received()
    for i in range(REQUESTS):
        thread = threading.Thread(target=request, args=(i,))
        thread.start()
        thread.join()
    opened = _connections_received() - before - 1  # the count's own connection
    assert len({cache_id for cache_id, _ in seen}) > 1  # the threads did get cache objects of their own
    assert [value for _, value in seen[1:]] == list(range(REQUESTS))
    assert opened <= 3, f"{opened} new Redis connections for {REQUESTS} requests"
