"""DRF throttles that count concurrent requests one after the other.

DRF's ``SimpleRateThrottle`` reads a key's history from the cache, decides, then writes the history back:
requests that arrive together all read the same history and all pass (40 chat messages sent at once let
11 through a 5-per-10-s limit, 60 logins at once 11 through 10 a minute). :class:`SerialThrottleMixin`
runs that read-decide-write under a lock on the key, the cache's own (django-redis' ``cache.lock``:
redis-py's ``Lock``), so each request reads the history the previous one wrote.
"""

from redis.exceptions import LockError


class SerialThrottleMixin:
    """For a ``SimpleRateThrottle`` subclass (put it first): ``allow_request`` under the cache's lock on
    the throttle's key, waited for up to ``lock_wait`` seconds (polled every ``lock_poll`` s; held at most
    ``lock_wait`` s). A cache without locks (the tests' local memory), a key of ``None`` (not throttled)
    or a lock not had in time: DRF's check as it is, unlocked."""

    lock_wait = 2.0
    lock_poll = 0.005

    def allow_request(self, request, view):
        make_lock = getattr(self.cache, "lock", None)
        key = self.get_cache_key(request, view) if make_lock is not None and self.rate is not None else None
        if key is None:
            return super().allow_request(request, view)
        lock = make_lock(f"{key}:lock", timeout=self.lock_wait, sleep=self.lock_poll,
                         blocking_timeout=self.lock_wait, thread_local=False)
        try:
            acquired = lock.acquire()
        except LockError:
            acquired = False
        if not acquired:
            return super().allow_request(request, view)
        try:
            return super().allow_request(request, view)
        finally:
            try:
                lock.release()
            except LockError:  # held past lock_wait and expired: nothing left to free
                pass
