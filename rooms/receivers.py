"""Receivers of the rooms app, connected in :meth:`rooms.apps.RoomsConfig.ready`.

- ``games.signals.game_finishing(game_id)`` (in the transaction that ends the game, the game locked) ->
  the game's room moves to ``finished`` in the same transaction (:func:`rooms.services.room_game_finishing`).
- ``accounts.signals.user_out(user)`` (in the transaction of a suspension, ban or deactivation) -> each
  seat the user holds is left as when the player leaves (:func:`rooms.services.room_leave`: played for
  during a game, freed before one).
"""

import logging

from accounts.signals import user_out
from config.errors import ApiError
from games import hooks
from games.signals import game_finishing
from rooms.models import RoomStatus, Seat
from rooms.selectors import game_watchable
from rooms.services import room_game_finishing, room_leave

logger = logging.getLogger(__name__)


def on_game_finishing(sender=None, game_id=None, **kwargs) -> None:
    """``games.signals.game_finishing`` (in the transaction that ends the game, the game locked): the room
    playing ``game_id`` is finished and its players who left are unseated; with no human left it closes."""
    if game_id is not None:
        room_game_finishing(game_id=game_id)


def on_user_out(sender=None, user=None, **kwargs) -> None:
    """``accounts.signals.user_out``: leave every room where ``user`` holds a seat (not closed ones)."""
    codes = (Seat.objects.filter(user=user, left=False).exclude(room__status=RoomStatus.CLOSED)
             .values_list("room__code", flat=True))
    for code in list(codes):
        try:
            room_leave(code=code, user=user)
        except ApiError:  # closed or left meanwhile
            pass


def connect() -> None:
    """Connect to ``games.signals.game_finishing`` and ``accounts.signals.user_out``."""
    game_finishing.connect(on_game_finishing, dispatch_uid="rooms.on_game_finishing")
    user_out.connect(on_user_out, dispatch_uid="rooms.on_user_out")


def register_hooks() -> None:
    """Answer games' ``watchable`` question (``games.hooks``) with :func:`rooms.selectors.game_watchable`."""
    hooks.register_watch(watchable=game_watchable)
