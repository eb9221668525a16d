"""Signal receivers of ranking, connected in :meth:`ranking.apps.RankingConfig.ready`.

- ``games.signals.game_finished(game_id)`` (sent after commit) -> enqueue ``ranking.tasks.rate_game``.
- ``rooms.signals.room_joined(room_id, user_id, host_id)`` -> host and joiner become friends.
- ``GET /api/me``'s ratings: ``accounts.hooks.provide_ratings(ratings_for_user)``.
- ``accounts.signals.user_out(user)`` (in the transaction of a suspension, ban or deactivation) -> the
  user's ranked-queue entry is dropped.
"""

import logging

from accounts import hooks as accounts_hooks
from accounts.signals import user_out
from games.signals import game_finished
from ranking import services
from ranking.selectors import ratings_for_user
from ranking.tasks import rate_game
from rooms.signals import room_joined

logger = logging.getLogger(__name__)


def on_game_finished(sender=None, game_id=None, **kwargs) -> None:
    """Enqueue the rating/statistics task for a finished (or aborted) game; never raises."""
    if game_id is None:
        return
    try:
        rate_game.delay(int(game_id))
    except Exception:  # noqa: BLE001 - the broker may be down; the game itself has committed
        logger.exception("could not enqueue rate_game(%s)", game_id)


def on_room_joined(sender=None, room_id=None, user_id=None, host_id=None, **kwargs) -> None:
    """Joining a room by its code makes joiner and host friends."""
    services.on_room_joined(room_id=room_id, user_id=user_id, host_id=host_id)


def on_user_out(sender=None, user=None, **kwargs) -> None:
    """``accounts.signals.user_out``: the user leaves the ranked queue."""
    services.queue_leave(user=user)


def connect() -> None:
    """Connect the receivers."""
    game_finished.connect(on_game_finished, dispatch_uid="ranking.on_game_finished")
    room_joined.connect(on_room_joined, dispatch_uid="ranking.on_room_joined")
    user_out.connect(on_user_out, dispatch_uid="ranking.on_user_out")
    accounts_hooks.provide_ratings(ratings_for_user)
