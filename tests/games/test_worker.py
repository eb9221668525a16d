"""Timers with a real Celery worker (and its embedded beat) on Redis and PostgreSQL: the real scheduling
path (tasks armed after commit, ETA countdowns, the sweeper). Turn seconds are scaled by 0.1
(GAMES_TIME_SCALE) so 30 s is 3 s; the worker has a queue of its own so nothing else on this Redis
consumes its tasks. Kept few and short."""

import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection
from django.utils import timezone

from config.celery_app import app
from games import services
from games.models import Game, GameAction, SweepHeartbeat
from tests.factories import UserFactory
from tests.games.factories import GameFactory, cpu, human

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SCALE = 0.1
GRACE = 1.0
ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """A ``celery -A config worker -B`` subprocess on the test database (its own process group), on the
    queue ``env["CELERY_TASK_DEFAULT_QUEUE"]``; ``pool`` and ``concurrency`` as Celery's ``-P`` and ``-c``."""

    def __init__(self, env: dict, log: Path, pool: str = "threads", concurrency: int = 4):
        self.env, self.log, self.proc = env, log, None
        self.pool, self.concurrency = pool, concurrency

    def start(self) -> None:
        cmd = [str(Path(sys.executable).with_name("celery")), "-A", "config", "worker", "-B", "-P", self.pool,
               "-c", str(self.concurrency), "-Q", self.env["CELERY_TASK_DEFAULT_QUEUE"], "--loglevel", "INFO",
               "--without-gossip", "--without-mingle", "-s", str(self.log.with_suffix(".beat")),
               "-n", f"games-test-{uuid.uuid4().hex[:6]}@%h"]
        out = open(self.log, "a")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _wait(pred, timeout: float, step: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(step)
    return pred()


def _wait_heartbeat(after, timeout=20.0) -> None:
    ok = _wait(lambda: SweepHeartbeat.objects.filter(pk=1, at__gt=after).exists(), timeout, 0.1)
    assert ok, "the worker's beat never swept"


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker, tmp_path_factory):
    url = urlsplit(os.environ["DATABASE_URL"])
    test_db = urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))
    queue = f"games-test-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_db,
           "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_TASK_DEFAULT_QUEUE": queue,
           "GAMES_TIME_SCALE": str(SCALE), "AWAY_GRACE_SECONDS": str(GRACE), "CONN_MAX_AGE": "0"}
    w = Worker(env, tmp_path_factory.mktemp("worker") / "worker.log")
    saved = (app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.task_always_eager, app.conf.task_default_queue = False, queue
    w.start()
    yield w
    w.stop()
    app.conf.task_always_eager, app.conf.task_default_queue = saved
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).delete(queue)


@pytest.fixture
def live(worker, settings):
    settings.GAMES_TIME_SCALE = SCALE
    settings.AWAY_GRACE_SECONDS = GRACE
    if worker.proc.poll() is not None:
        worker.start()
    _wait_heartbeat(timezone.now() - timedelta(seconds=1.5))
    return worker


def _row(game, seq):
    return GameAction.objects.filter(game=game, seq=seq).first()


def test_a_seat_that_stops_acting_is_played_within_1s_of_its_deadline(live):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)], turn_seconds=30)
    deadline = game.deadline
    assert 2.9 <= (deadline - game.window_opened_at).total_seconds() <= 3.1
    row = _wait(lambda: _row(game, 1), 8)
    assert row is not None, live.log.read_text()[-3000:]
    assert (row.seat, row.by, row.action) == (1, "timeout", {"type": "bet", "amount": 10})
    late = (row.created_at - deadline).total_seconds()
    assert -0.06 <= late <= 1.0, late


def test_worker_killed_mid_countdown_the_sweeper_acts_once(live):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)], turn_seconds=60)  # 6 s
    deadline = game.deadline
    time.sleep(2.5)
    live.kill()  # the armed timer dies with it
    live.start()
    row = _wait(lambda: _row(game, 1), 15)
    assert row is not None, live.log.read_text()[-3000:]
    assert (row.seat, row.by) == (1, "timeout") and row.created_at >= deadline
    time.sleep(1.5)
    assert GameAction.objects.filter(game=game, seat=1, by="timeout").count() == 1
    game.refresh_from_db()
    assert game.seq == 1


def test_cpu_plays_a_disconnected_seat_only_while_it_is_away(live):
    a = UserFactory()
    game = GameFactory(seats=[cpu(), human(a)], cpu_speed="fast", rules={"first_dealer": "seat", "rounds": 3})
    services.game_set_connected(game_id=game.pk, seat=1, connected=True)
    time.sleep(0.3)
    assert GameAction.objects.filter(game=game).count() == 1  # only the start: seat 1 is awaited
    gone = timezone.now()
    services.game_set_connected(game_id=game.pk, seat=1, connected=False)
    first = _wait(lambda: GameAction.objects.filter(game=game, seat=1, by="away").first(), 6)
    assert first is not None, live.log.read_text()[-3000:]
    assert first.created_at >= gone + timedelta(seconds=GRACE - 0.05)
    time.sleep(1.0)
    services.game_set_connected(game_id=game.pk, seat=1, connected=True)
    back = timezone.now()
    time.sleep(2.0)
    away_rows = GameAction.objects.filter(game=game, seat=1).exclude(by="player")
    assert all(gone < r.created_at <= back for r in away_rows)
    assert {r.by for r in away_rows} == {"away"}


def test_two_games_with_timers_do_not_disturb_each_other(live):
    a1, b1, a2, b2 = (UserFactory() for _ in range(4))
    g1 = GameFactory(seats=[human(a1), human(b1)], turn_seconds=30)
    g2 = GameFactory(seats=[human(a2), human(b2)], turn_seconds=30)
    time.sleep(1.0)
    services.game_apply_action(game_id=g2.pk, actor=b2, expected_seq=0, action={"type": "bet", "amount": 20})
    g2.refresh_from_db()
    d1, d2 = g1.deadline, g2.deadline
    assert d2 > d1 + timedelta(seconds=0.9)
    r1 = _wait(lambda: _row(g1, 1), 8)
    r2 = _wait(lambda: _row(g2, 2), 8)
    assert r1 is not None and r2 is not None, live.log.read_text()[-3000:]
    assert (r1.by, r1.seat) == ("timeout", 1) and 0 <= (r1.created_at - d1).total_seconds() <= 1.0
    assert _row(g2, 1).by == "player"
    assert (r2.by, r2.seat, r2.action) == ("timeout", 1, {"type": "roll"})
    assert 0 <= (r2.created_at - d2).total_seconds() <= 1.0
    assert Game.objects.get(pk=g1.pk).seq >= 1
