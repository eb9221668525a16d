"""The Celery app: JSON only, time limits from settings (CELERY_*), tasks discovered from the apps."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("chinchi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="config.ping")
def ping() -> str:
    """Answer ``"pong"``: used by /healthz to see that a worker answers."""
    return "pong"


@signals.worker_ready.connect
def _serve_metrics(**_kwargs) -> None:
    """With METRICS_PORT set (docker compose), the worker serves its processes' Prometheus metrics there."""
    port = os.environ.get("METRICS_PORT")
    if port:
        from config.metrics import serve_worker_metrics

        serve_worker_metrics(int(port))
