"""Prometheus metrics (prometheus-client) and ``GET /metrics``.

Recorded where they happen (every process; with ``PROMETHEUS_MULTIPROC_DIR`` set, in prometheus-client's
multi-process mode: each process writes its own memory-mapped file there and a scrape adds them up, so
uvicorn's worker processes and Celery's prefork children all count):

- ``chinchi_http_requests_total{method, route, status}`` and ``chinchi_http_request_duration_seconds
  {method, route}`` (histogram): every HTTP request, by URL pattern (``api/games/<int:game_id>/actions``;
  ``<unmatched>`` for no pattern), so the labels stay few;
- ``chinchi_http_slot_wait_seconds`` (histogram): how long a request waited for a request slot
  (``config.asgi.SlottedASGIHandler``) before Django; the request duration above starts after it;
- ``chinchi_game_actions_total{game, by}``: actions applied (committed), by game kind and ``by``
  (player, cpu, timeout, away, ...);
- ``chinchi_timer_lateness_seconds{game}`` (histogram): how late a turn deadline was acted on (the
  ``turn_timeout`` task or the sweeper), seconds after the stored deadline;
- ``chinchi_open_sockets``: seated room sockets open now (live processes only).

Read at scrape time from PostgreSQL and Redis (one query and two Redis calls; the same for every process):

- ``chinchi_games_in_progress{game}``: games playing;
- ``chinchi_celery_queue_depth{queue}``: tasks waiting in the broker's queue; ``chinchi_celery_unacked``:
  tasks a worker holds (countdowns: armed timers);
- ``chinchi_sweep_heartbeat_age_seconds``: seconds since the sweeper last ran (beat and a worker alive);
- what the apps above register with :func:`register_scrape` (``moderation.metrics``: open reports,
  reports and sanctions of the last hour; ``coins.metrics``: coins minted and spent in the last hour),
  each computed at most once every ``SCRAPE_CACHE_SECONDS`` (30 s) for all replicas (the shared cache).

``/metrics`` answers only ``Authorization: Bearer <METRICS_TOKEN>`` (401 otherwise); with no
``METRICS_TOKEN`` set it is off (404). Docker compose's worker serves its own processes' metrics on
``METRICS_PORT`` inside the compose network (:func:`serve_worker_metrics`), not published.
"""

import hmac
import os
import time
from pathlib import Path

import redis
from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily

from config import sources

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LATENESS_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0)

REQUESTS = Counter("chinchi_http_requests", "HTTP requests answered.", ["method", "route", "status"])
REQUEST_SECONDS = Histogram("chinchi_http_request_duration_seconds", "Seconds to answer an HTTP request.",
                            ["method", "route"], buckets=LATENCY_BUCKETS)
ACTIONS = Counter("chinchi_game_actions", "Game actions applied (committed).", ["game", "by"])
TIMER_LATENESS = Histogram("chinchi_timer_lateness_seconds",
                           "Seconds after a turn deadline that its timeout was acted on.", ["game"],
                           buckets=LATENESS_BUCKETS)
SLOT_WAIT_SECONDS = Histogram("chinchi_http_slot_wait_seconds",
                              "Seconds an HTTP request waited for a request slot (config.asgi) before Django.",
                              buckets=(0.001, *LATENCY_BUCKETS))
OPEN_SOCKETS = Gauge("chinchi_open_sockets", "Seated room sockets open.", multiprocess_mode="livesum")


def actions_applied(game: str, bys: list[str]) -> None:
    """Count committed actions of a ``game`` kind, one per entry of ``bys``."""
    for by in bys:
        ACTIONS.labels(game, by).inc()


def timer_fired(game: str, late_seconds: float) -> None:
    """A turn deadline of a ``game`` kind acted on ``late_seconds`` after it (negative: early, as 0)."""
    TIMER_LATENESS.labels(game).observe(max(0.0, late_seconds))


class MetricsMiddleware:
    """Counts and times every request (first in MIDDLEWARE, so it sees every answer). Sync and async."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        start = _clock()
        response = self.get_response(request)
        _observe(request, response, _clock() - start)
        return response

    async def _acall(self, request):
        start = _clock()
        response = await self.get_response(request)
        _observe(request, response, _clock() - start)
        return response


def _clock() -> float:
    return time.perf_counter()


def _observe(request, response, seconds: float) -> None:
    match = getattr(request, "resolver_match", None)
    route = (match.route or match.view_name or "<unnamed>") if match is not None else "<unmatched>"
    REQUESTS.labels(request.method, route, str(response.status_code)).inc()
    REQUEST_SECONDS.labels(request.method, route).observe(seconds)


SCRAPE_CACHE_SECONDS = 30
_SCRAPES: list = []


def register_scrape(name: str, compute, families) -> None:
    """An upper app's families read at scrape time. ``compute()`` returns ``{family: [(labels, value)]}``
    (JSON-able; cached ``SCRAPE_CACHE_SECONDS`` under ``metrics:<name>``, shared by every process);
    ``families``: ``[(family name, help text, label names)]``, each yielded as a gauge (empty when the
    database cannot answer). Registering a name again replaces it."""
    _SCRAPES[:] = [s for s in _SCRAPES if s[0] != name]
    _SCRAPES.append((name, compute, families))


def _registered_families():
    for name, compute, families in _SCRAPES:
        values: dict = {}
        try:
            key = f"metrics:{name}"
            values = cache.get(key)
            if values is None:
                values = compute()
                cache.set(key, values, SCRAPE_CACHE_SECONDS)
        except Exception:  # the database or the cache is down: these families stay empty
            values = values or {}
        for family, help_text, labels in families:
            gauge = GaugeMetricFamily(family, help_text, labels=list(labels))
            for label_values, value in values.get(family, []):
                gauge.add_metric([str(v) for v in label_values], value)
            yield gauge


class ScrapeTimeCollector:
    """What every process shares, read when scraped: games in progress, Celery's queue, the sweeper."""

    def collect(self):
        games = GaugeMetricFamily("chinchi_games_in_progress", "Games playing now.", labels=["game"])
        age = GaugeMetricFamily("chinchi_sweep_heartbeat_age_seconds", "Seconds since the timers' sweeper ran.")
        try:
            for kind, n in sources.read("games_in_progress").items():
                games.add_metric([kind], n)
            at = sources.read("sweep_heartbeat_at")
            if at is not None:
                age.add_metric([], (timezone.now() - at).total_seconds())
        except Exception:  # the database is down (or no reader): these families stay empty (/healthz says why)
            pass
        yield games
        yield age
        queue = GaugeMetricFamily("chinchi_celery_queue_depth", "Tasks waiting in the broker.", labels=["queue"])
        unacked = GaugeMetricFamily("chinchi_celery_unacked", "Tasks a worker holds (armed countdowns).")
        broker = getattr(settings, "CELERY_BROKER_URL", "") or ""
        if broker.startswith(("redis://", "rediss://")):
            name = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")
            try:
                client = redis.Redis.from_url(broker, socket_timeout=1.0, socket_connect_timeout=1.0)
                pipe = client.pipeline()
                pipe.llen(name)
                pipe.hlen("unacked")
                depth, held = pipe.execute()
                client.close()
                queue.add_metric([name], depth)
                unacked.add_metric([], held)
            except Exception:
                pass
        yield queue
        yield unacked
        yield from _registered_families()


_SCRAPE = ScrapeTimeCollector()
_registered = False


def _forget_dead_processes(path: str) -> None:
    """Remove the live gauges of processes gone (a restarted uvicorn worker's open sockets)."""
    for file in Path(path).glob("gauge_live*_*.db"):
        pid = int(file.stem.rsplit("_", 1)[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)
        except PermissionError:  # alive, someone else's
            pass


def registry() -> CollectorRegistry:
    """The registry a scrape reads: all processes' files in multi-process mode, else this process's."""
    global _registered
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        _forget_dead_processes(path)
        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg, path=path)
        reg.register(_SCRAPE)
        return reg
    if not _registered:
        REGISTRY.register(_SCRAPE)
        _registered = True
    return REGISTRY


def metrics_view(request):
    """``GET /metrics``: the Prometheus text format, for ``Authorization: Bearer <METRICS_TOKEN>`` only."""
    token = getattr(settings, "METRICS_TOKEN", "")
    if not token:
        return JsonResponse({"code": "not_found", "detail": "Metrics are off (METRICS_TOKEN is not set)."},
                            status=404)
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        response = JsonResponse({"code": "not_authenticated", "detail": "Send Authorization: Bearer <token>."},
                                status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


def serve_worker_metrics(port: int) -> None:
    """A Celery worker's own metrics on ``0.0.0.0:port`` (its processes' files; no scrape-time part, the
    web's /metrics has it). For a private network only: no token."""
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    reg = CollectorRegistry()
    if path:
        multiprocess.MultiProcessCollector(reg, path=path)
    else:
        reg = REGISTRY
    start_http_server(port, registry=reg)
