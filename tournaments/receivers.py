"""Receivers of the tournaments app, connected in :meth:`tournaments.apps.TournamentsConfig.ready`.

``games.signals.game_finished(game_id)`` (after the commit) -> ``tournaments.tasks.table_ended`` when the
game is a tournament table's (one indexed query per ended game; other games enqueue nothing).
"""

import logging

from games.signals import game_finished
from tournaments.models import TournamentTable
from tournaments.tasks import table_ended

logger = logging.getLogger(__name__)


def on_game_finished(sender=None, game_id=None, **kwargs) -> None:
    """Enqueue the table's end for a tournament game; never raises (the game has committed; the sweep
    settles a table whose task was lost)."""
    if game_id is None:
        return
    try:
        if TournamentTable.objects.filter(game_id=game_id, status=TournamentTable.PLAYING).exists():
            table_ended.delay(int(game_id))
    except Exception:  # noqa: BLE001 - a receiver must not break the game's path
        logger.exception("could not hand the end of game %s to its tournament", game_id)


def connect() -> None:
    game_finished.connect(on_game_finished, dispatch_uid="tournaments.on_game_finished")
