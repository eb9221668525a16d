"""The Celery app: JSON only, time limits from settings (CELERY_*), tasks discovered from the apps."""

import logging
import logging.config
import os

import django
from celery import Celery, signals
from celery.apps import worker as celery_worker
from django import db
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("chinchi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="config.ping")
def ping() -> str:
    """Answer ``"pong"``: used by /healthz to see that a worker answers."""
    return "pong"


@signals.task_prerun.connect
@signals.task_postrun.connect
def _close_old_connections(sender=None, **_kwargs) -> None:
    """Before and after each task run by a worker, Django's ``close_old_connections()``, as around a
    request: a connection older than ``CONN_MAX_AGE``, unusable after an error, or (``CONN_HEALTH_CHECKS``)
    found broken at its next use is replaced; the others are kept for the next task (Celery's own
    closing of every connection is turned off by ``CELERY_DB_REUSE_MAX``, see settings). Not for an eager
    task, which runs inside its caller's request or transaction."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return

    db.close_old_connections()


@signals.setup_logging.connect
def _django_logging(**_kwargs) -> None:
    """Celery's processes log as Django's settings say (``LOGGING``: JSON lines under ``LOG_FORMAT=json``,
    Python warnings included, config.apps) instead of Celery's own handlers; its banner is off with
    ``--quiet`` (docker-compose.yml)."""
    django.setup()
    logging.config.dictConfig(settings.LOGGING)
    logging.captureWarnings(True)
    if settings.LOG_FORMAT == "json":
        # What a worker prints on a shutdown signal ("worker: Warm shutdown (MainProcess)") goes straight to
        # stderr (celery.apps.worker.safe_say): a log line instead.
        celery_worker.safe_say = _say


def _say(msg: str, f=None) -> None:
    logging.getLogger("celery.worker").warning(msg.strip())


@signals.worker_ready.connect
def _serve_metrics(**_kwargs) -> None:
    """With METRICS_PORT set (docker compose), the worker serves its processes' Prometheus metrics there."""
    port = os.environ.get("METRICS_PORT")
    if port:
        # lazy: config.metrics makes its metric files at import, and `config` imports this module early
        from config.metrics import serve_worker_metrics

        serve_worker_metrics(int(port))
