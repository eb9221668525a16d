"""config.throttling: the sliding-window counter in Redis (issue #32 item 3). Exact under concurrency, no
lock, one round trip and a constant size per key whatever the rate; ``wait()`` says when a request
would pass; another cache falls back to DRF's check."""

import pytest
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.test import RequestFactory
from rest_framework.throttling import SimpleRateThrottle

from accounts.throttles import GuestCreateThrottle
from config.throttling import SlidingWindowThrottleMixin
from rooms.throttles import parse_rate
from tests.concurrency import run_together

T0 = 1_800_000_000.0  # a multiple of 10 s and of 60 s: the start of a window


class Clock:
    """A settable ``timer`` (seconds)."""

    def __init__(self, now: float = T0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class Probe(SlidingWindowThrottleMixin, SimpleRateThrottle):
    """A throttle of the mixin with a given rate (``n/<period>``) and clock; the "request" is the ident."""

    def __init__(self, rate: str, clock=None, store=None):
        self.rate_text = rate
        if clock is not None:
            self.timer = clock
        if store is not None:
            self.cache = store
        super().__init__()

    def get_rate(self):
        return self.rate_text

    def parse_rate(self, rate):
        return parse_rate(rate)

    def get_cache_key(self, request, view):
        return f"throttle_probe_{request}"


def _raw():
    return cache.client.get_client(write=True)


@pytest.mark.redis
def test_requests_at_once_exactly_the_limit_passes():
    """200 requests of one key at once against 150: exactly 150 pass; 40 misses counted at once: 40."""
    assert run_together(*[lambda: Probe("150/min").allow_request("burst", None)] * 200).count(True) == 150
    run_together(*[lambda: Probe("150/min").count("misses", None)] * 40)
    assert int(_raw().hget(cache.make_key("throttle_probe_misses"), "c")) == 40


@pytest.mark.redis
def test_one_round_trip_per_request_and_no_lock(monkeypatch):
    """The mechanism: each request is one EVALSHA on the key (no SET NX lock, no polling, no GET/SET of a
    history), and after a burst the only key is the counter."""
    def no_lock(*args, **kwargs):
        raise AssertionError("a throttle took a lock")

    monkeypatch.setattr(cache, "lock", no_lock)
    Probe("5/min").allow_request("warm", None)  # loads the script once (EVALSHA, SCRIPT LOAD)
    client, sent = _raw(), []
    real = client.execute_command

    def spy(*args, **kwargs):
        sent.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "execute_command", spy)
    for _ in range(20):
        Probe("5/min").allow_request("one", None)
    assert sent == ["EVALSHA"] * 20
    monkeypatch.undo()
    run_together(*[lambda: Probe("30/min").allow_request("many", None)] * 40)
    keys = sorted(k.decode() for k in _raw().keys("*throttle_probe*"))
    assert keys == [cache.make_key(f"throttle_probe_{k}") for k in ("many", "one", "warm")]


@pytest.mark.redis
def test_the_stored_size_does_not_grow_with_the_rate(monkeypatch):
    """1,000 guests from one address at a raised THROTTLE_GUEST: the key stays a hash of 7 integers, the
    same size after 200 requests and after 1,000 (DRF's pickled history held every timestamp)."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "guest": "100000/min"})
    clock, request = Clock(T0 + 1), RequestFactory().post("/api/auth/guest", REMOTE_ADDR="203.0.113.9")
    key = cache.make_key("throttle_guest_203.0.113.9")
    sizes = {}
    for i in range(1, 1001):
        clock.now += 0.001
        throttle = GuestCreateThrottle()
        throttle.timer = clock
        assert throttle.allow_request(request, None)
        if i in (200, 1000):
            sizes[i] = _raw().memory_usage(key)
    assert _raw().type(key) == b"hash" and _raw().hlen(key) == 7
    assert sizes[200] == sizes[1000] < 256


@pytest.mark.redis
def test_wait_is_when_a_request_passes():
    """``wait()`` is exact: refused a millisecond before it, passed at it; never more than the period."""
    clock = Clock(T0 + 3)
    for _ in range(5):  # a burst: it leaves the period 10 s after it came
        assert Probe("5/10s", clock).allow_request("burst", None)
    refused = Probe("5/10s", clock)
    assert not refused.allow_request("burst", None)
    assert refused.wait() == 10.0
    clock.now = T0 + 12.999
    assert not Probe("5/10s", clock).allow_request("burst", None)
    clock.now = T0 + 13
    assert Probe("5/10s", clock).allow_request("burst", None)

    clock = Clock(T0 + 100)
    for second in range(1, 6):  # one a second: the previous window's share falls as the period slides
        clock.now = T0 + 100 + second
        assert Probe("5/10s", clock).allow_request("spread", None)
    clock.now = T0 + 111
    refused = Probe("5/10s", clock)
    assert not refused.allow_request("spread", None)
    wait = refused.wait()
    assert 0 < wait <= 10
    clock.now = T0 + 111 + wait - 0.001
    assert not Probe("5/10s", clock).peek("spread", None)
    clock.now = T0 + 111 + wait
    assert Probe("5/10s", clock).allow_request("spread", None)


@pytest.mark.redis
def test_peek_counts_nothing_and_a_refusal_counts_nothing():
    clock = Clock(T0 + 1)
    for _ in range(3):
        assert Probe("3/min", clock).peek("k", None)
    for _ in range(3):
        Probe("3/min", clock).count("k", None)
    assert not Probe("3/min", clock).peek("k", None)
    assert not Probe("3/min", clock).allow_request("k", None)
    assert int(_raw().hget(cache.make_key("throttle_probe_k"), "c")) == 3
    clock.now = T0 + 120  # two windows later: nothing left
    assert Probe("3/min", clock).allow_request("k", None)


@pytest.mark.redis
def test_an_old_pickled_history_under_the_key_is_replaced():
    """Keys written by the previous mechanism (DRF's list) are strings: the script starts them afresh."""
    cache.set("throttle_probe_old", [T0] * 10, 60)
    assert Probe("3/min", Clock(T0 + 1)).allow_request("old", None)
    assert _raw().type(cache.make_key("throttle_probe_old")) == b"hash"


def test_another_cache_falls_back_to_drf():
    """A cache that is not django-redis (local memory): DRF's history, with the same peek/count/wait."""
    store = LocMemCache("throttle-test", {})
    clock = Clock(T0 + 1)
    for _ in range(2):
        assert Probe("3/min", clock, store).allow_request("m", None)
    Probe("3/min", clock, store).count("m", None)
    assert len(store.get("throttle_probe_m")) == 3
    refused = Probe("3/min", clock, store)
    assert not refused.peek("m", None)
    assert not Probe("3/min", clock, store).allow_request("m", None)
    assert 0 < refused.wait() <= 60


@pytest.mark.redis
def test_reports_sent_at_once_by_one_user_are_counted_exactly(settings):
    """The reports throttle is the same counter: 30 checks of one user at once against ``10/hour`` let
    exactly 10 through (DRF's own read-decide-write let every one of them read the same empty history)."""
    from moderation.throttles import ReportThrottle
    from tests.factories import UserFactory

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "report": "10/hour"}}
    request = RequestFactory().post("/api/reports")
    request.user = UserFactory.build(pk=987_654)
    assert run_together(*[lambda: ReportThrottle().allow_request(request, None)] * 30).count(True) == 10
