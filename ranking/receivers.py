"""Signal receivers of ranking, connected in :meth:`ranking.apps.RankingConfig.ready`.

- ``games.signals.game_finished(game_id)`` (sent after commit) -> enqueue ``ranking.tasks.rate_game``.
- ``rooms.signals.room_joined(room_id, user_id, host_id)`` -> host and joiner become friends.
"""

import logging

logger = logging.getLogger(__name__)


def on_game_finished(sender=None, game_id=None, **kwargs) -> None:
    """Enqueue the rating/statistics task for a finished (or aborted) game; never raises."""
    if game_id is None:
        return
    from ranking.tasks import rate_game

    try:
        rate_game.delay(int(game_id))
    except Exception:  # noqa: BLE001 - the broker may be down; the game itself has committed
        logger.exception("could not enqueue rate_game(%s)", game_id)


def on_room_joined(sender=None, room_id=None, user_id=None, host_id=None, **kwargs) -> None:
    """Joining a room by its code makes joiner and host friends."""
    from ranking.services import on_room_joined as handle

    handle(room_id=room_id, user_id=user_id, host_id=host_id)


def connect() -> None:
    """Connect the receivers to the signals that exist (the games and rooms apps may still be growing)."""
    try:
        from games.signals import game_finished
    except ImportError:
        logger.info("games.signals.game_finished not found: games will not be rated")
    else:
        game_finished.connect(on_game_finished, dispatch_uid="ranking.on_game_finished")
    try:
        from rooms.signals import room_joined
    except ImportError:
        logger.info("rooms.signals.room_joined not found: room invitations make no friends")
    else:
        room_joined.connect(on_room_joined, dispatch_uid="ranking.on_room_joined")
