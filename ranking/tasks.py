"""Celery tasks of ranking: thin, taking ids; the services do the work and are idempotent."""

from celery import shared_task
from django.db import OperationalError


@shared_task(name="ranking.rate_game", acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def rate_game(game_id: int) -> dict:
    """Rate a finished ranked game and record every seat's statistics, XP and achievements (see
    :func:`ranking.services.game_process_finished`). Safe to run twice or concurrently, so a database
    outage (``OperationalError``) is simply retried with backoff. A game just recorded then goes to the
    moderators' integrity check (``moderation.integrity_check``; ranked games only)."""
    from ranking.services import game_process_finished

    out = game_process_finished(game_id=game_id)
    if out.get("recorded_ranked"):  # the flags are about ranked play: an unranked game has none to raise
        from moderation.tasks import integrity_check

        integrity_check.delay(game_id)  # the integrity flags read the records and rating changes just written
    return out


@shared_task(name="ranking.queue_expire")
def queue_expire() -> int:
    """Delete expired queue entries (beat: every minute is plenty; expiry is also applied lazily)."""
    from ranking.services import queue_expire as expire

    return expire()
