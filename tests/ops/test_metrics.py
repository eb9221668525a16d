"""Prometheus metrics: the protected endpoint, what each family counts (values worked out by hand from
what the test did), multi-process mode across processes, and JSON log lines of a game."""

import json
import logging
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from config import metrics
from games import services
from games.models import Game, SweepHeartbeat
from tests.factories import UserFactory
from tests.games.factories import GameFactory, human

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "metrics-test-token"


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(client) -> dict:
    """``{(name, frozenset(labels)): value}`` of one authorised scrape."""
    res = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert res.status_code == 200 and res["Content-Type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for fam in text_string_to_metric_families(res.content.decode()) for s in fam.samples}


@pytest.mark.django_db
def test_metrics_are_off_without_a_token_and_need_it_when_set(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics").status_code == 401
    res = client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong")
    assert res.status_code == 401 and res["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


@pytest.mark.django_db
def test_requests_are_counted_and_timed_by_route(api, user, make_client):
    labels = {"method": "GET", "route": "api/me", "status": "200"}
    before = sample("chinchi_http_requests_total", **labels)
    timed = sample("chinchi_http_request_duration_seconds_count", method="GET", route="api/me")
    client = make_client(user)
    assert client.get("/api/me").status_code == 200
    assert client.get("/api/me").status_code == 200
    assert api.get("/api/me").status_code == 401
    assert sample("chinchi_http_requests_total", **labels) == before + 2
    assert sample("chinchi_http_request_duration_seconds_count", method="GET", route="api/me") == timed + 3
    unmatched = sample("chinchi_http_requests_total", method="GET", route="<unmatched>", status="404")
    api.get("/no/such/page")
    assert sample("chinchi_http_requests_total", method="GET", route="<unmatched>", status="404") == unmatched + 1


@pytest.mark.django_db
def test_actions_are_counted_by_game_and_by_and_a_late_deadline_is_observed(
        make_client, django_capture_on_commit_callbacks):
    a, b = UserFactory(), UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        game = GameFactory(seats=[human(a), human(b)], turn_seconds=30)  # seat 1 bets first (hand 1)
    players = sample("chinchi_game_actions_total", game="chinchirorin", by="player")
    timeouts = sample("chinchi_game_actions_total", game="chinchirorin", by="timeout")
    late = sample("chinchi_timer_lateness_seconds_count", game="chinchirorin")
    late_sum = sample("chinchi_timer_lateness_seconds_sum", game="chinchirorin")
    in_2s = sample("chinchi_timer_lateness_seconds_bucket", game="chinchirorin", le="2.0")
    in_1s = sample("chinchi_timer_lateness_seconds_bucket", game="chinchirorin", le="1.0")
    with django_capture_on_commit_callbacks(execute=True):
        res = make_client(b).post(f"/api/games/{game.pk}/actions", {"type": "bet", "amount": 20, "seq": 0},
                                  format="json")
    assert res.status_code == 200
    assert sample("chinchi_game_actions_total", game="chinchirorin", by="player") == players + 1
    # The dealer's roll window: its deadline passed 1.5 s ago, the sweeper's heartbeat is fresh.
    SweepHeartbeat.objects.update_or_create(pk=1, defaults={"at": timezone.now()})
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1.5))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.game_handle_timeout(game_id=game.pk, seq=game.seq)
    assert sample("chinchi_game_actions_total", game="chinchirorin", by="timeout") == timeouts + 1
    assert sample("chinchi_timer_lateness_seconds_count", game="chinchirorin") == late + 1
    assert 1.5 <= sample("chinchi_timer_lateness_seconds_sum", game="chinchirorin") - late_sum < 5
    assert sample("chinchi_timer_lateness_seconds_bucket", game="chinchirorin", le="2.0") == in_2s + 1
    assert sample("chinchi_timer_lateness_seconds_bucket", game="chinchirorin", le="1.0") == in_1s


@pytest.mark.django_db
def test_scrape_reads_games_in_progress_and_the_sweepers_age(client, settings):
    settings.METRICS_TOKEN = TOKEN
    GameFactory()
    GameFactory()
    GameFactory(game="chinchon", seats=[human(), human()])
    SweepHeartbeat.objects.update_or_create(pk=1, defaults={"at": timezone.now() - timedelta(seconds=30)})
    got = scrape(client)
    assert got[("chinchi_games_in_progress", frozenset({("game", "chinchirorin")}))] == 2
    assert got[("chinchi_games_in_progress", frozenset({("game", "chinchon")}))] == 1
    assert 30 <= got[("chinchi_sweep_heartbeat_age_seconds", frozenset())] < 40


@pytest.mark.redis
@pytest.mark.django_db
def test_scrape_reads_the_celery_queue_depth(client, settings):
    import redis

    settings.METRICS_TOKEN = TOKEN
    queue = f"metrics-test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    r = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        r.lpush(queue, "a", "b", "c")
        assert scrape(client)[("chinchi_celery_queue_depth", frozenset({("queue", queue)}))] == 3
    finally:
        r.delete(queue)


CHILD = """
import sys
from config import metrics
from config.asyncdb import wait_idle
metrics.actions_applied("chinchon", ["player", "player", "cpu"])
metrics.timer_fired("chinchon", 0.3)
metrics.OPEN_SOCKETS.inc(int(sys.argv[1]))
print("ready", flush=True)
sys.stdin.readline()  # stays alive (its sockets open) until told
"""


@pytest.mark.django_db
def test_multi_process_mode_adds_up_every_process_and_forgets_a_dead_ones_sockets(tmp_path, monkeypatch, settings):
    """Two processes write to PROMETHEUS_MULTIPROC_DIR (as uvicorn workers and Celery children do); one
    scrape adds their counters and histograms; the open sockets of a process that has exited no longer
    count, its counters still do."""
    env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(n)], cwd=ROOT, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE) for n in (2, 5)]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

        def values():
            text = metrics.generate_latest(metrics.registry()).decode()
            return {(s.name, frozenset(s.labels.items())): s.value
                    for fam in text_string_to_metric_families(text) for s in fam.samples}

        got = values()
        assert got[("chinchi_game_actions_total", frozenset({("game", "chinchon"), ("by", "player")}))] == 4
        assert got[("chinchi_game_actions_total", frozenset({("game", "chinchon"), ("by", "cpu")}))] == 2
        assert got[("chinchi_timer_lateness_seconds_count", frozenset({("game", "chinchon")}))] == 2
        assert got[("chinchi_open_sockets", frozenset())] == 7
        procs[1].communicate("\n", timeout=30)
        got = values()
        assert got[("chinchi_open_sockets", frozenset())] == 2
        assert got[("chinchi_game_actions_total", frozenset({("game", "chinchon"), ("by", "player")}))] == 4
    finally:
        for p in procs:
            if p.poll() is None:
                p.communicate("\n", timeout=30)


@pytest.mark.django_db
def test_a_game_log_line_carries_game_id_and_seq_and_json_lines_show_them(settings, caplog):
    from pythonjsonlogger.json import JsonFormatter

    game = GameFactory(seats=[human(), human()], turn_seconds=30)
    # The sweeper was down when the deadline passed: the deadline is renewed, with a warning line.
    SweepHeartbeat.objects.update_or_create(pk=1, defaults={"at": timezone.now() - timedelta(seconds=60)})
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    with caplog.at_level(logging.WARNING, logger="games.services"):
        assert services.game_handle_timeout(game_id=game.pk, seq=0)
    [record] = [r for r in caplog.records if "outage" in r.getMessage()]
    assert (record.game_id, record.seq) == (game.pk, 0)
    spec = settings.LOGGING["formatters"]["json"]
    line = json.loads(JsonFormatter(spec["format"], rename_fields=spec["rename_fields"]).format(record))
    assert (line["game_id"], line["seq"], line["level"], line["logger"]) == (game.pk, 0, "WARNING", "games.services")
    assert line["message"].startswith(f"game {game.pk}: deadline missed during an outage")


@pytest.mark.django_db(transaction=True)
async def test_open_sockets_counts_seated_sockets_while_they_are_open(fresh_channel_layer):
    from channels.db import database_sync_to_async

    from tests.test_fuzz_api import _open, _socket_world

    code, _game_id, keys = await database_sync_to_async(_socket_world)()
    before = sample("chinchi_open_sockets")
    first, second = await _open(code, keys[0]), await _open(code, keys[1])
    assert sample("chinchi_open_sockets") == before + 2
    await first.disconnect()
    await second.disconnect()
    assert sample("chinchi_open_sockets") == before
