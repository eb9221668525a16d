"""Signal receivers of moderation, connected in :meth:`moderation.apps.ModerationConfig.ready`.

- ``ranking.signals.game_recorded(game_id, ranked)`` -> a ranked game just recorded goes to the integrity
  check (``moderation.integrity_check``: the flags read the records and rating changes just written; an
  unranked game has none to raise).
"""

from moderation.tasks import integrity_check
from ranking.signals import game_recorded


def on_game_recorded(sender=None, game_id=None, ranked=0, **kwargs) -> None:
    """Enqueue the integrity check of a ranked game whose records were just written."""
    if game_id is not None and ranked:
        integrity_check.delay(game_id)


def connect() -> None:
    """Connect the receivers."""
    game_recorded.connect(on_game_recorded, dispatch_uid="moderation.on_game_recorded")
