"""Exactly one beat sends the schedule (config/beat.py): a second one idles while the first holds the lock
in Redis, takes over when the first stops (released) or dies (expired), and a beat that lost its lock
stops sending."""

import os
import time
import uuid

import pytest
import redis

from config.beat import SingleBeatScheduler
from config.celery_app import app

pytestmark = pytest.mark.redis
WAIT = 30.0


class Recording(SingleBeatScheduler):
    """Sends nothing to the broker: records the names of the entries it would send."""

    def __init__(self, *args, **kwargs):
        self.sent: list[str] = []
        super().__init__(*args, **kwargs)

    def apply_async(self, entry, producer=None, advance=True, **kwargs):
        self.sent.append(entry.name)


@pytest.fixture
def beats(tmp_path):
    key = f"test:beat-lock:{uuid.uuid4().hex}"
    made = []

    def make(name: str) -> Recording:
        beat = Recording(app=app, schedule_filename=str(tmp_path / name), lock_seconds=3, lock_key=key,
                         redis_url=os.environ["REDIS_URL"])
        made.append(beat)
        return beat

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    yield make, client, key
    for beat in made:
        beat.close()
    client.delete(key)
    client.close()


def _until(condition, what: str):
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _sweep_due(beat) -> bool:
    return beat.schedule["games-sweep"].is_due()[0]


def test_a_second_beat_idles_until_the_first_stops_then_takes_over(beats):
    make, client, key = beats
    first, second = make("first"), make("second")
    assert first.tick() <= first.retry_seconds and first.holding is True
    assert 0 < client.pttl(key) <= 3000  # the lock lives BEAT_LOCK_SECONDS unless renewed

    # The second beat's sweep entry is due, yet it sends nothing while the first holds the lock.
    _until(lambda: _sweep_due(second), "the second beat's sweep to be due")
    assert second.tick() == second.retry_seconds and second.holding is False
    assert second.sent == []
    # The first keeps sending (and renewing) meanwhile.
    _until(lambda: first.tick() is not None and "games-sweep" in first.sent, "the first beat to send")
    assert second.tick() == second.retry_seconds and second.sent == []

    first.close()  # a stopped beat releases the lock
    assert client.exists(key) == 0
    _until(lambda: second.tick() is not None and "games-sweep" in second.sent, "the second beat to send")
    assert second.holding is True


def test_a_dead_beats_lock_expires_and_a_beat_that_lost_it_stops_sending(beats):
    make, client, key = beats
    first, second = make("first"), make("second")
    first.tick()
    assert first.holding is True
    # The first beat dies without releasing: its lock runs out (shortened here) and nobody renews it.
    client.pexpire(key, 1)
    _until(lambda: client.exists(key) == 0, "the lock to expire")
    second.tick()
    assert second.holding is True
    # The first, back from a stall, finds the lock gone to another: it idles and sends nothing more.
    sent_before = len(first.sent)
    _until(lambda: _sweep_due(first), "the first beat's sweep to be due")
    assert first.tick() == first.retry_seconds and first.holding is False
    assert len(first.sent) == sent_before


def test_without_redis_to_hold_a_lock_a_beat_sends(tmp_path):
    beat = Recording(app=app, schedule_filename=str(tmp_path / "alone"), lock_seconds=3, redis_url="")
    try:
        _until(lambda: beat.tick() is not None and "games-sweep" in beat.sent, "the beat to send")
        assert beat.holding is True
    finally:
        beat.close()
