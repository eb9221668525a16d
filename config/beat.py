"""Exactly one Celery beat sends the schedule, however many are started (``CELERY_BEAT_SCHEDULER``).

:class:`SingleBeatScheduler` is Celery's ``PersistentScheduler`` that sends nothing unless it holds a lock
in the broker's Redis (redis-py's ``Lock``: ``SET key token NX PX``, renewed by its token only). A beat
started by mistake beside the running one (a second compose ``beat``, ``--scale beat=2``, a ``make run`` on
the same Redis) finds the lock taken and idles, trying again every ``BEAT_LOCK_SECONDS / 3``; when the
holder stops, it releases the lock and the other takes over at its next try; when the holder dies, the
lock expires ``BEAT_LOCK_SECONDS`` (default 10 s) after its last renewal. The holder renews it at every
tick, at least every ``BEAT_LOCK_SECONDS / 3``. Redis unreachable: no beat sends (the broker is down too).
Each change of state is logged once (``chinchi.beat``: "holds the lock", "idles").
"""

import logging
import os
import socket

import redis
from celery.beat import PersistentScheduler
from django.conf import settings
from redis.exceptions import LockError, LockNotOwnedError, RedisError

logger = logging.getLogger("chinchi.beat")

DEFAULT_LOCK_KEY = "chinchi:beat-lock"


def lock_redis_url() -> str:
    """The Redis the lock lives in: the broker's when it is Redis (two beats on one broker are what must
    not happen), else ``REDIS_URL``; ``""`` when there is none."""
    broker = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if broker.startswith(("redis://", "rediss://")):
        return broker
    return getattr(settings, "REDIS_URL", "") or ""


class SingleBeatScheduler(PersistentScheduler):
    """``PersistentScheduler`` gated by the Redis lock (module docstring). ``lock_seconds`` and
    ``lock_key`` default to ``settings.BEAT_LOCK_SECONDS`` and ``settings.BEAT_LOCK_KEY``."""

    def __init__(self, *args, lock_seconds: float | None = None, lock_key: str | None = None,
                 redis_url: str | None = None, **kwargs):
        self.lock_seconds = float(lock_seconds or getattr(settings, "BEAT_LOCK_SECONDS", 10.0))
        self.lock_key = lock_key or getattr(settings, "BEAT_LOCK_KEY", DEFAULT_LOCK_KEY)
        url = lock_redis_url() if redis_url is None else redis_url
        self._redis = redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0) if url else None
        self._lock = None if self._redis is None else self._redis.lock(
            self.lock_key, timeout=self.lock_seconds, blocking=False, thread_local=False)
        self.holding: bool | None = None  # None: not tried yet
        super().__init__(*args, **kwargs)

    @property
    def retry_seconds(self) -> float:
        return self.lock_seconds / 3

    def tick(self, *args, **kwargs) -> float:
        if not self.hold_lock():
            return self.retry_seconds
        return min(super().tick(*args, **kwargs), self.retry_seconds)

    def hold_lock(self) -> bool:
        """Take the lock, or renew it if held; ``True`` while this beat holds it."""
        if self._lock is None:
            return self._now_holding(True, "no Redis to hold a lock in: sending the schedule")
        try:
            if self.holding:
                try:
                    self._lock.reacquire()
                    return True
                except LockNotOwnedError:  # expired (this beat was stalled) or taken by another: try again
                    pass
            taken = self._lock.acquire(blocking=False)
        except (LockError, RedisError) as exc:
            return self._now_holding(False, f"cannot hold the beat lock ({type(exc).__name__}): idling")
        if taken:
            return self._now_holding(True, f"holds the beat lock {self.lock_key!r} on {socket.gethostname()} "
                                           f"(pid {os.getpid()}): sending the schedule")
        return self._now_holding(False, f"another beat holds the lock {self.lock_key!r}: idling")

    def _now_holding(self, holding: bool, message: str) -> bool:
        if holding != self.holding:
            (logger.warning if not holding else logger.info)(message)
        self.holding = holding
        return holding

    def close(self) -> None:
        """Stop: save the schedule, and release the lock if held (another beat takes over at once)."""
        try:
            super().close()
        finally:
            if self._lock is not None and self.holding:
                try:
                    self._lock.release()
                except (LockError, RedisError):
                    pass
                self.holding = False
