"""Notify's reactions to the games below it (connected in :meth:`notify.apps.NotifyConfig.ready`)."""

from games.models import Game
from games.signals import game_turn
from notify import services


def on_game_turn(sender, *, game_id, game, group, user_ids, deadline, **kwargs) -> None:
    """A decision window opened: tell the awaited players (``notify.services.notify_turn``)."""
    if user_ids:
        services.notify_turn(game_id=game_id, game=game, group=group, user_ids=user_ids, deadline=deadline)


def connect() -> None:
    game_turn.connect(on_game_turn, sender=Game, dispatch_uid="notify.on_game_turn")
