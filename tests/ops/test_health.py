"""/healthz answers fast and says what is down; a 503 is not logged as an error; the API docs pages load
their scripts from the service itself; a Django log line is printed once."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from config import health
from games.models import SweepHeartbeat


class FakeControl:
    def __init__(self, replies):
        self.replies, self.calls = replies, []

    def ping(self, **kwargs):
        self.calls.append(kwargs)
        if isinstance(self.replies, Exception):
            raise self.replies
        return self.replies


@pytest.fixture
def control(monkeypatch):
    from config.celery_app import app

    def install(replies):
        fake = FakeControl(replies)
        monkeypatch.setattr(app, "control", fake)
        monkeypatch.setattr(health, "_celery_down", None)
        return fake

    return install


def test_celery_ping_ends_at_the_first_answer_and_a_failure_is_remembered(control, monkeypatch):
    up = control([{"worker@a": {"ok": "pong"}}])
    assert health.check_celery() == "ok"
    assert up.calls == [{"timeout": health.CELERY_PING_TIMEOUT, "limit": 1}]
    down = control([])
    assert health.check_celery() == "down: no worker answered"
    assert health.check_celery() == "down: no worker answered"
    assert len(down.calls) == 1  # the second poll did not wait for another ping
    clock = [1000.0]
    monkeypatch.setattr(health.time, "monotonic", lambda: clock[0])
    health._celery_down = (clock[0], "down: no worker answered")
    back = control([{"worker@a": {"ok": "pong"}}])
    health._celery_down = (clock[0], "down: no worker answered")
    clock[0] += health.CELERY_DOWN_MEMO + 0.1
    assert health.check_celery() == "ok" and len(back.calls) == 1


def test_broker_errors_are_down_not_500(control):
    control(ConnectionError("refused"))
    assert health.check_celery() == "down: ConnectionError"


@pytest.mark.django_db
def test_beat_part_reads_the_sweepers_heartbeat():
    assert health.check_beat() == "down: no sweep yet"
    SweepHeartbeat.objects.update_or_create(pk=1, defaults={"at": timezone.now() - timedelta(seconds=2)})
    assert health.check_beat() == "ok"
    SweepHeartbeat.objects.filter(pk=1).update(at=timezone.now() - timedelta(seconds=37))
    assert health.check_beat() == "down: no sweep for 37 s (beat or worker)"


@pytest.mark.django_db
def test_a_503_is_an_answer_not_an_error_line_and_beat_is_not_counted(api, monkeypatch, caplog):
    monkeypatch.setattr(health, "check_redis", lambda: "ok")
    monkeypatch.setattr(health, "check_celery", lambda: "down: no worker answered")
    with caplog.at_level(logging.INFO):
        res = api.get("/healthz")
    assert res.status_code == 503
    assert res.json() == {"database": "ok", "redis": "ok", "celery": "down: no worker answered",
                          "beat": "down: no sweep yet"}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    monkeypatch.setattr(health, "check_celery", lambda: "ok")
    res = api.get("/healthz")
    assert res.status_code == 200 and res.json()["beat"] == "down: no sweep yet"


def _handlers_reached(name: str) -> int:
    """How many handlers print a record of logger ``name`` (walking up while it propagates)."""
    logger, count = logging.getLogger(name), 0
    while logger:
        count += len(logger.handlers)
        if not logger.propagate:
            break
        logger = logger.parent
    return count


def test_django_lines_are_printed_once():
    from django.conf import settings
    from django.utils.log import configure_logging

    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)  # what a server process does at start
    assert _handlers_reached("django.request") == 1
    assert _handlers_reached("games.services") == 1


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_docs_pages_load_their_scripts_from_our_static_files(client, path):
    html = client.get(path).content.decode()
    scripts = [part.split('"')[0] for part in html.split('src="')[1:]]
    assert scripts and all(s.startswith("/static/drf_spectacular_sidecar/") for s in scripts), scripts
    # "cdn." (a host name), not "cdn": the page's random CSRF token may hold those three letters
    assert "cdn." not in html.lower() and "https://" not in html.replace("https://swagger.io", "")
    for src in scripts:
        res = client.get(src)
        assert res.status_code == 200, src
        assert len(b"".join(res.streaming_content)) > 10_000, src


@pytest.mark.django_db
def test_a_database_outage_is_a_503_unavailable_not_a_500(make_client, user, monkeypatch):
    from django.db import OperationalError

    from accounts.apis import MeApi

    def down(self, request):
        raise OperationalError("couldn't get a connection after 10.00 sec")

    monkeypatch.setattr(MeApi, "get", down)
    res = make_client(user).get("/api/me")
    assert res.status_code == 503 and res["Retry-After"] == "5"
    assert res.json() == {"code": "unavailable", "detail": "The service is briefly unavailable; try again shortly.",
                          "retry_after": 5}
