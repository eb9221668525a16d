"""Celery tasks of ranking: thin, taking ids; the services do the work and are idempotent."""

from celery import shared_task
from django.db import OperationalError

from ranking import services
from ranking.signals import game_recorded


@shared_task(name="ranking.rate_game", acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def rate_game(game_id: int) -> dict:
    """Rate a finished ranked game and record every seat's statistics, XP and achievements (see
    :func:`ranking.services.game_process_finished`). Safe to run twice or concurrently, so a database
    outage (``OperationalError``) is simply retried with backoff. Then announces
    :data:`ranking.signals.game_recorded` (moderation sends a ranked game just recorded to its integrity
    check)."""
    out = services.game_process_finished(game_id=game_id)
    game_recorded.send(sender=None, game_id=game_id, ranked=out.get("recorded_ranked", 0))
    return out


@shared_task(name="ranking.queue_expire")
def queue_expire() -> int:
    """Delete expired queue entries (beat: every minute is plenty; expiry is also applied lazily)."""
    return services.queue_expire()
