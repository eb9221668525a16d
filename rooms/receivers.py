"""Receivers of the rooms app, connected in :meth:`rooms.apps.RoomsConfig.ready`.

- ``games.signals.game_finishing(game_id)`` (in the transaction that ends the game, the game locked) ->
  the game's room moves to ``finished`` in the same transaction (:func:`rooms.services.room_game_finishing`).
- ``accounts.signals.user_out(user)`` (in the transaction of a suspension, ban or deactivation) -> each
  seat the user holds is left as when the player leaves (:func:`rooms.services.room_leave`: played for
  during a game, freed before one).
- a new mute (``post_save`` of :class:`accounts.models.Sanction`) -> after the commit, the user's sockets
  leave voice (``voice.revoke`` to ``user-<id>``, ``rooms.voice_socket``).
"""

import logging

from django.db import transaction
from django.db.models.signals import post_save

from accounts.models import Sanction
from accounts.sanctions import user_group
from accounts.signals import user_out
from config.errors import ApiError
from config.timefmt import iso_ms
from games import hooks
from games.events import group_send
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


def on_sanction_saved(sender=None, instance=None, created=False, **kwargs) -> None:
    """A new mute: after the commit, every socket of the user leaves voice with the ``muted`` error
    (``voice.revoke`` to ``user-<id>``). Suspensions and bans close the sockets, which leaves voice too."""
    if not created or instance.kind != Sanction.MUTE or instance.until is None:
        return
    until = iso_ms(instance.until)
    message = {"type": "voice.revoke", "code": "muted", "detail": f"You are muted until {until}.", "until": until}
    group = user_group(instance.user_id)
    transaction.on_commit(lambda: group_send(group, message))


def connect() -> None:
    """Connect to ``games.signals.game_finishing`` and ``accounts.signals.user_out``."""
    game_finishing.connect(on_game_finishing, dispatch_uid="rooms.on_game_finishing")
    user_out.connect(on_user_out, dispatch_uid="rooms.on_user_out")
    post_save.connect(on_sanction_saved, sender=Sanction, dispatch_uid="rooms.on_sanction_saved")


def register_hooks() -> None:
    """Answer games' ``watchable`` question (``games.hooks``) with :func:`rooms.selectors.game_watchable`."""
    hooks.register_watch(watchable=game_watchable)
