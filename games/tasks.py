"""Thin Celery tasks taking ids; all logic is in :mod:`games.timers` (through :mod:`games.services`) (DESIGN.md "Time and absence").

Every task is safe to run late, twice or never: the services check ``seq``/times under the game's lock,
and the beat task :func:`sweep` (every second, CELERY_BEAT_SCHEDULE ``games-sweep``) catches what a lost
task missed. Nothing is ever revoked. The write path sends these by name (``games.locking.TASK_*``): it does
not import this module.
"""

from datetime import datetime

from celery import shared_task

from games import services


@shared_task(name="games.tasks.turn_timeout", ignore_result=True)
def turn_timeout(game_id: int, seq: int) -> bool:
    """The deadline of the window open at ``seq`` has come: act for the awaited seats (no-op if stale)."""
    return services.game_handle_timeout(game_id=game_id, seq=seq)


@shared_task(name="games.tasks.bot_play", ignore_result=True)
def bot_play(game_id: int, seq: int) -> bool:
    """CPU and played-for seats awaited at ``seq`` act, all in one round (no-op if stale or early)."""
    return services.game_bot_play(game_id=game_id, seq=seq)


@shared_task(name="games.tasks.sweep", ignore_result=True)
def sweep() -> dict:
    """The beat task: overdue deadlines and due times, away seats, 24 h rules, the heartbeat."""
    return services.game_sweep()


@shared_task(name="games.tasks.mark_away", ignore_result=True)
def mark_away(game_id: int, seat: int, since: str | None = None) -> bool:
    """The grace period after a seat's last socket closed at ``since`` (ISO time) has passed."""
    return services.game_mark_away(game_id=game_id, seat=seat,
                                   since=datetime.fromisoformat(since) if since else None)
