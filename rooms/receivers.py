"""Receivers of the rooms app: a game that ends moves its room to ``finished`` in the same transaction (see
:func:`rooms.services.room_game_finishing`). Connected in :meth:`rooms.apps.RoomsConfig.ready`."""

import logging

logger = logging.getLogger(__name__)


def on_game_finishing(sender=None, game_id=None, **kwargs) -> None:
    """``games.signals.game_finishing`` (in the transaction that ends the game, the game locked): the room
    playing ``game_id`` is finished and its players who left are unseated; with no human left it closes."""
    from rooms.services import room_game_finishing

    if game_id is not None:
        room_game_finishing(game_id=game_id)


def connect() -> None:
    """Connect to ``games.signals.game_finishing``."""
    from games.signals import game_finishing

    game_finishing.connect(on_game_finishing, dispatch_uid="rooms.on_game_finishing")
