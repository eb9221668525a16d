"""Receivers of the rooms app: a game that ends moves its room to ``finished`` (see
:func:`rooms.services.room_game_ended`). Connected in :meth:`rooms.apps.RoomsConfig.ready`."""

import logging

logger = logging.getLogger(__name__)


def on_game_finished(sender=None, game_id=None, **kwargs) -> None:
    """``games.signals.game_finished`` (after the commit): the room playing ``game_id`` is finished and its
    players who left are unseated; with no human left it closes."""
    from rooms.services import room_game_ended

    if game_id is not None:
        room_game_ended(game_id=game_id)


def connect() -> None:
    """Connect to ``games.signals.game_finished``."""
    from games.signals import game_finished

    game_finished.connect(on_game_finished, dispatch_uid="rooms.on_game_finished")
