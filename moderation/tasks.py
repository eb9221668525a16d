"""Celery tasks of moderation: thin, taking ids."""

from celery import shared_task
from django.db import OperationalError

from moderation.economy_flags import economy_check_game
from moderation.services import integrity_check_game


@shared_task(name="moderation.integrity_check", acks_late=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5)
def integrity_check(game_id: int) -> int:
    """Raise or refresh the integrity flags of a rated game's players
    (:func:`moderation.services.integrity_check_game`); returns how many."""
    return len(integrity_check_game(game_id=game_id))


@shared_task(name="moderation.economy_check", acks_late=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5)
def economy_check(game_id: int) -> int:
    """Raise or refresh the coin and XP integrity flags of a finished game's players
    (:func:`moderation.economy_flags.economy_check_game`); returns how many."""
    return len(economy_check_game(game_id=game_id))
