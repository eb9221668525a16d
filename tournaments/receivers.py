"""Receivers of the tournaments app, connected in :meth:`tournaments.apps.TournamentsConfig.ready`.

``games.signals.game_finished(game_id)`` (after the commit) -> ``tournaments.tasks.table_ended`` when the
game is a tournament table's, as the mark the service left in the cache says (one cache read, no database
query on the action path; other games enqueue nothing; a lost mark leaves the table to the sweep).
"""

import logging

from django.core.cache import cache

from games.signals import game_finished
from tournaments.services import table_game_key
from tournaments.tasks import table_ended

logger = logging.getLogger(__name__)


def on_game_finished(sender=None, game_id=None, **kwargs) -> None:
    """Enqueue the table's end for a tournament game; never raises (the game has committed; the sweep
    settles a table whose task was lost)."""
    if game_id is None:
        return
    try:
        if cache.get(table_game_key(int(game_id))):
            table_ended.delay(int(game_id))
    except Exception:  # noqa: BLE001 - a receiver must not break the game's path
        logger.exception("could not hand the end of game %s to its tournament", game_id)


def connect() -> None:
    game_finished.connect(on_game_finished, dispatch_uid="tournaments.on_game_finished")
