"""DRF throttles counted in Redis by one atomic script: exact under concurrency, no lock, O(1) per request.

DRF's ``SimpleRateThrottle`` reads a key's history (a list of every timestamp in the period), decides,
then writes it back: requests that arrive together all read the same history and all pass (40 chat
messages sent at once let 11 through a 5-per-10-s limit), and at a raised rate the list, read and written
whole on each request, grows with the rate. :class:`SlidingWindowThrottleMixin` keeps instead a sliding-
window counter per key, decided and updated inside Redis by one Lua script (one round trip, atomic, no
lock): the counts of the current and the previous fixed window of the throttle's period, the previous one
weighted by the part of it still inside the period (Cloudflare's approximation, with the previous window's
requests taken as spread between its first and its last request rather than over the whole window: a
burst then leaves the period exactly one period after it came, and ``Retry-After`` never exceeds it).
"""

import math

from django_redis.client import DefaultClient, ShardClient
from redis.commands.core import Script

# KEYS[1]: the throttle's key, a hash {w: window index, c/cf/cl: the current window's count, first and
# last request (ms), p/pf/pl: the previous window's}. ARGV: now (ms), the period (ms), the limit, the
# mode (0 peek: decide, count nothing; 1 decide, count if allowed; 2 count whatever the decision).
# Returns {allowed (1/0), c, cf, cl, p, pf, pl} as they stand after the request.
_LUA = b"""
local now, dur, limit, mode = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local win = math.floor(now / dur)
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then redis.call('DEL', KEYS[1]) end
local h = redis.call('HMGET', KEYS[1], 'w', 'c', 'cf', 'cl', 'p', 'pf', 'pl')
local w = tonumber(h[1])
local c, cf, cl, p, pf, pl = 0, 0, 0, 0, 0, 0
if w ~= nil and w >= win then
  win = w
  c, cf, cl = tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
  p, pf, pl = tonumber(h[5]), tonumber(h[6]), tonumber(h[7])
elseif w == win - 1 then
  p, pf, pl = tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
end
local inside = 0
local edge = now - dur
if p > 0 and pl > edge then
  if pl == pf or pf > edge then inside = p else inside = p * (pl - edge) / (pl - pf) end
end
local allowed = 1
if mode ~= 2 and inside + c + 1 > limit then allowed = 0 end
if allowed == 1 and mode ~= 0 then
  if c == 0 then cf = now end
  c = c + 1
  if now > cl then cl = now end
  redis.call('HSET', KEYS[1], 'w', win, 'c', c, 'cf', cf, 'cl', cl, 'p', p, 'pf', pf, 'pl', pl)
  redis.call('PEXPIRE', KEYS[1], 2 * dur)
end
return {allowed, c, cf, cl, p, pf, pl}
"""
_SCRIPT = Script(None, _LUA)  # EVALSHA, loaded on first use per server (redis-py's Script)

PEEK, HIT, COUNT = 0, 1, 2


def _clear_after(n: int, first: int, last: int, dur: int, room: int) -> int:
    """When (ms) the share of ``n`` requests spread over [``first``, ``last``] still inside a period of
    ``dur`` ms falls to ``room`` or below (``n * inside <= room``, inside shrinking from 1 at
    ``first + dur`` to 0 at ``last + dur``)."""
    if n <= room:
        return 0
    if last == first:
        return last + dur
    return last + dur - math.floor(room * (last - first) / n)


class SlidingWindowThrottleMixin:
    """For a ``SimpleRateThrottle`` subclass (put it first): ``allow_request`` decided and counted by one
    Lua script on django-redis' raw client (``cache.client.get_client()``), keyed by the throttle's cache
    key (a Redis hash of 7 integers: its size does not depend on the rate). ``wait()``: seconds (float)
    until a request of that key would pass. A cache other than django-redis (the tests' local memory):
    DRF's own check. Redis unreachable: redis-py's ``ConnectionError``/``TimeoutError`` propagate (the
    API answers 503 ``unavailable``, ``config.errors``)."""

    _window: tuple[int, ...] | None = None

    def _redis(self) -> DefaultClient | None:
        """django-redis' client of the throttle's cache (``cache`` is Django's proxy: duck-typed), or
        ``None`` for another cache or a sharded one."""
        client = getattr(self.cache, "client", None)
        return client if isinstance(client, DefaultClient) and not isinstance(client, ShardClient) else None

    def _run(self, key: str, mode: int) -> bool:
        client = self._redis()
        now = round(self.timer() * 1000)
        dur = round(self.duration * 1000)
        allowed, *state = _SCRIPT(keys=[client.make_key(key)], args=[now, dur, self.num_requests, mode],
                                  client=client.get_client(write=True))
        self.key, self.now, self._window = key, now / 1000, (now, *(int(x) for x in state))
        return bool(allowed)

    def _key(self, request, view) -> str | None:
        return None if self.rate is None else self.get_cache_key(request, view)

    def allow_request(self, request, view):
        """Decide and count one request: ``True`` passes (counted), ``False`` is refused (not counted)."""
        if self._redis() is None:
            return super().allow_request(request, view)
        if (key := self._key(request, view)) is None:
            return True
        return self._run(key, HIT) or self.throttle_failure()

    def peek(self, request, view) -> bool:
        """Whether a request would pass now, counting nothing (``wait()`` then answers for a refusal)."""
        if (key := self._key(request, view)) is None:
            return True
        if self._redis() is not None:
            return self._run(key, PEEK)
        self.key, self.now = key, self.timer()
        self.history = [t for t in self.cache.get(key, []) if t > self.now - self.duration]
        return len(self.history) < self.num_requests or self.throttle_failure()

    def count(self, request, view) -> None:
        """Count one request of ``request``'s key whatever the budget left."""
        if (key := self._key(request, view)) is None:
            return
        if self._redis() is not None:
            self._run(key, COUNT)
            return
        now = self.timer()
        history = [t for t in self.cache.get(key, []) if t > now - self.duration]
        history.insert(0, now)
        self.cache.set(key, history, self.duration)

    def wait(self):
        """Seconds (float, >= 0) until a request of the last key checked would pass if nothing else came;
        ``None`` when none ever can (a limit of 0). Without Redis: DRF's estimate."""
        if self._window is None:
            return super().wait()
        limit = self.num_requests
        if limit <= 0:
            return None
        now, c, cf, cl, p, pf, pl = self._window
        dur = round(self.duration * 1000)
        if c + 1 <= limit:  # the previous window's share must fall to what this one leaves
            at = _clear_after(p, pf, pl, dur, limit - 1 - c)
        else:  # the current window must become the previous one and fall to limit - 1
            at = _clear_after(c, cf, cl, dur, limit - 1)
        return max(0, at - now) / 1000
