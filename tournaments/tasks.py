"""Thin Celery tasks of the tournaments app (ids in, the services do the work). Each is safe to run late,
twice or never: the services check the state under the tournament's row lock, and the beat task
:func:`sweep` (CELERY_BEAT_SCHEDULE ``tournaments-sweep``) catches what a lost task missed."""

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.tasks.start_tournament", ignore_result=True)
def start_tournament(tournament_id: int) -> bool:
    """The start time of ``tournament_id`` has come (scheduled with ``eta``): pair and start round 1."""
    return services.tournament_start(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.table_ended", ignore_result=True)
def table_ended(game_id: int) -> bool:
    """The game of a tournament table ended: record it; the round's last one starts the next round."""
    return services.tournament_table_ended(game_id=game_id)


@shared_task(name="tournaments.tasks.sweep", ignore_result=True)
def sweep() -> dict:
    """The beat task: due starts, and tables whose game ended without its signal reaching us."""
    return services.tournaments_sweep()
