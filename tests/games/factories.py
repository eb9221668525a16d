"""Factories for games: a game is always made through ``games.services.game_start`` (the one way a game
begins), so its seed, state, log row 0 and timers are real."""

import factory

from games import services
from games.models import Game
from tests.factories import UserFactory


def human(user=None) -> dict:
    """A human seat spec for ``game_start``."""
    return {"user": user or UserFactory(), "cpu": False, "cpu_level": None}


def cpu(level: str = "normal") -> dict:
    """A CPU seat spec for ``game_start``."""
    return {"user": None, "cpu": True, "cpu_level": level}


class GameFactory(factory.Factory):
    """``GameFactory(seats=[human(), cpu()], rules={...}, turn_seconds=30)`` -> a started :class:`Game`.

    Defaults: chinchirorin, two human seats, first dealer ``seat`` (hand 1's betting opens at once),
    no timer, normal CPU speed, unranked, group ``room-TEST``.
    """

    class Meta:
        model = Game

    game = "chinchirorin"
    rules = factory.LazyAttribute(lambda o: {"first_dealer": "seat"} if o.game == "chinchirorin" else {})
    seats = factory.LazyFunction(lambda: [human(), human()])
    turn_seconds = None
    cpu_speed = "normal"
    ranked = False
    group = "room-TEST"

    @classmethod
    def _create(cls, model_class, **kwargs):
        return services.game_start(**kwargs)

    @classmethod
    def _build(cls, model_class, **kwargs):
        return services.game_start(**kwargs)
