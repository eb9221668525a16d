"""Specific engine errors. The service layer maps each to the API.md error table."""


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class InvalidRules(EngineError):
    """A rules setting is unknown or out of range.

    ``field`` names the setting as the API names it, e.g. ``"pinzoro_multiplier"``; the API reports it as
    ``rules.<field>`` (or ``seats`` for a seat count the game does not allow). ``template`` is the English
    message with ``{name}`` fields (a translation message id), ``params`` its values and ``message`` the
    two put together.
    """

    def __init__(self, field: str, template: str, **params):
        self.field = field
        self.template = template
        self.params = params
        self.message = template.format(**params) if params else template
        super().__init__(f"{field}: {self.message}")


class InvalidAction(EngineError):
    """An action body that is malformed: unknown type, missing, extra or wrong-typed field (400 invalid_action)."""


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow now (400 illegal_action)."""


class NotYourTurn(EngineError):
    """The seat is not awaited for this type of action and may not send it unawaited (409 not_your_turn)."""


class InvalidCard(EngineError):
    """A card code the deck cannot hold (an 8 in a 40-card deck, a joker with ``jokers: 0``...)."""
