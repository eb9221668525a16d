"""Signal receivers of moderation, connected in :meth:`moderation.apps.ModerationConfig.ready`.

- ``ranking.signals.game_recorded(game_id, ranked)`` -> a ranked game just recorded goes to the integrity
  check (``moderation.integrity_check``: the flags read the records and rating changes just written; an
  unranked game has none to raise).
- ``games.signals.game_finished(game_id)`` (after commit) -> enqueue ``moderation.economy_check`` (the
  coin and XP flags, any finished game).
"""

import logging

from games.signals import game_finished
from moderation.tasks import economy_check, integrity_check
from ranking.signals import game_recorded

logger = logging.getLogger(__name__)


def on_game_recorded(sender=None, game_id=None, ranked=0, **kwargs) -> None:
    """Enqueue the integrity check of a ranked game whose records were just written."""
    if game_id is not None and ranked:
        integrity_check.delay(game_id)


def on_game_finished(sender=None, game_id=None, **kwargs) -> None:
    """Enqueue the coin and XP integrity check of a finished game; never raises."""
    if game_id is None:
        return
    try:
        economy_check.delay(int(game_id))
    except Exception:  # noqa: BLE001 - the broker may be down; the game itself has committed
        logger.exception("could not enqueue economy_check(%s)", game_id)


def connect() -> None:
    """Connect the receivers."""
    game_recorded.connect(on_game_recorded, dispatch_uid="moderation.on_game_recorded")
    game_finished.connect(on_game_finished, dispatch_uid="moderation.on_game_finished")
