"""Chinchón: rules settings, presets and validation (rules/chinchon.md "Presets", "Settings").

The state machine follows below the rules part (added in a later step).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from games.engine.errors import InvalidRules

NAME = "chinchon"

PRESET_NAMES = ("standard", "traditional", "wild_ace")


@dataclass(frozen=True)
class Rules:
    """Every Chinchón setting, resolved (rules/chinchon.md "Settings"; API names).

    Points are penalty points (low is good). ``decks`` is 2 only for 5-8 seats in ``traditional``.
    Build it with :func:`validate_rules`; it is frozen and hashable (the solver caches by it).
    """

    preset: str = "standard"
    deck: int = 48
    decks: int = 1
    jokers: int = 2
    wild_card: str | None = None
    card_values: str = "figures_10"
    wild_value: int = 25
    max_jokers_per_meld: int = 1
    close_mode: str = "one_card"
    close_limit: int = 3
    close_after_first_round: bool = False
    minus_ten: int = -10
    seven_run: str = "win_game"
    seven_run_wild: int = -10
    layoff: bool = True
    layoff_onto: str = "closer"
    elimination: int = 100
    reentry: str = "off"


PRESETS: dict[str, dict[str, Any]] = {
    "standard": asdict(Rules()),
    "traditional": {
        **asdict(Rules()),
        "preset": "traditional",
        "jokers": 0,
        "card_values": "pip",  # ordinal_40 with a 40-card deck (see validate_rules)
        "close_mode": "total",
        "close_limit": 5,
        "seven_run": "minus_ten",
        "seven_run_wild": -10,
        "layoff_onto": "all",
        "reentry": "unlimited",
    },
    "wild_ace": {
        **asdict(Rules()),
        "preset": "wild_ace",
        "deck": 40,
        "jokers": 0,
        "wild_card": "1O",
        "close_after_first_round": True,
        "seven_run_wild": -25,
        "elimination": 50,
        "reentry": "unlimited",
    },
}
"""The three presets, each fully resolved (``traditional`` with one deck of 48 cards)."""

_CHOICES: dict[str, tuple] = {
    "deck": (40, 48),
    "decks": (1, 2),
    "jokers": (0, 1, 2),
    "wild_card": (None, "1O"),
    "card_values": ("figures_10", "pip", "ordinal_40"),
    "max_jokers_per_meld": (1, 2),
    "close_mode": ("one_card", "total"),
    "seven_run": ("win_game", "minus_ten"),
    "seven_run_wild": (-10, -25),
    "layoff_onto": ("closer", "all"),
    "elimination": (50, 70, 100),
    "reentry": ("off", "once", "unlimited"),
}
_INT_RANGES = {"wild_value": (0, 50), "minus_ten": (-50, 0)}
_BOOLS = ("close_after_first_round", "layoff")
_SEATS = {"standard": (2, 4), "traditional": (2, 8), "wild_ace": (2, 4)}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_value(name: str, v: Any) -> None:
    if name in _BOOLS:
        if not isinstance(v, bool):
            raise InvalidRules(name, "must be true or false")
        return
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        if not _is_int(v) or not lo <= v <= hi:
            raise InvalidRules(name, f"must be an integer from {lo} to {hi}")
        return
    if name == "close_limit":
        if not _is_int(v) or not 0 <= v <= 10:
            raise InvalidRules(name, "must be an integer from 0 to 10")
        return
    choices = _CHOICES[name]
    typed = v is None or (isinstance(v, (int, str)) and not isinstance(v, bool))
    if not typed or v not in choices:
        shown = ", ".join("null" if c is None else str(c) for c in choices)
        raise InvalidRules(name, f"must be one of {shown}")


def validate_rules(settings: dict | None = None, seats: int | None = None) -> Rules:
    """Build :class:`Rules` from API settings: the preset, then each given setting overriding it.

    ``settings``: ``{"preset": "standard"|"traditional"|"wild_ace", <setting>: value, ...}`` (None or {} =
    standard). ``seats``: the room's seat count, checked when given. Rules of rules/chinchon.md "Presets" /
    "Settings": ``traditional`` counts ``pip`` with 48 cards and ``ordinal_40`` with 40 unless
    ``card_values`` is given; its ``decks`` follows the seats (2 for 5-8) unless given, and a given ``decks``
    must agree. Raises ``InvalidRules(field, msg)`` naming the setting: an unknown name, a value outside the
    allowed ones, ``decks: 2`` outside ``traditional``, ``close_limit`` outside 0/3/5 with ``one_card``
    (0..10 with ``total``), ``ordinal_40`` with 48 cards; ``"seats"`` for a seat count the preset does not
    allow.
    """
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise InvalidRules("rules", "must be an object")
    preset = settings.get("preset", "standard")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidRules("preset", "must be one of standard, traditional, wild_ace")
    values = dict(PRESETS[preset])
    for name, v in settings.items():
        if not isinstance(name, str) or name not in values:
            raise InvalidRules(str(name), "unknown setting")
        if name == "preset":
            continue
        _check_value(name, v)
        values[name] = v
    if preset == "traditional" and "card_values" not in settings:
        values["card_values"] = "ordinal_40" if values["deck"] == 40 else "pip"
    if values["card_values"] == "ordinal_40" and values["deck"] != 40:
        raise InvalidRules("card_values", "ordinal_40 needs a 40-card deck")
    if values["close_mode"] == "one_card" and values["close_limit"] not in (0, 3, 5):
        raise InvalidRules("close_limit", "must be 0, 3 or 5 with close_mode one_card")
    if values["decks"] == 2 and preset != "traditional":
        raise InvalidRules("decks", "two decks are played only in the traditional preset")
    if seats is not None:
        lo, hi = _SEATS[preset]
        if not _is_int(seats) or not lo <= seats <= hi:
            raise InvalidRules("seats", f"{preset} is played by {lo} to {hi} seats")
        need = 2 if seats >= 5 else 1
        if "decks" in settings and settings["decks"] != need:
            raise InvalidRules("decks", f"{seats} seats play with {need} deck{'s' if need > 1 else ''}")
        values["decks"] = need
    return Rules(**values)


def SEAT_RANGE(settings: dict | None = None) -> tuple[int, int]:  # noqa: N802 - name fixed by base.py
    """The seat counts the settings allow: standard and wild_ace 2-4; traditional 2-8 (2-4 with
    ``decks: 1`` given, 5-8 with ``decks: 2``). Raises ``InvalidRules`` for bad settings."""
    rules = validate_rules(settings)
    if rules.preset != "traditional":
        return _SEATS[rules.preset]
    given = (settings or {}).get("decks")
    if given == 1:
        return (2, 4)
    if given == 2:
        return (5, 8)
    return (2, 8)


def rules_to_dict(rules: Rules) -> dict[str, Any]:
    """Every setting resolved, by its API name (the inverse of :func:`validate_rules` for a full dict)."""
    return asdict(rules)


@lru_cache(maxsize=256)
def _rules_from_items(items: tuple) -> Rules:
    return Rules(**dict(items))


def rules_from_dict(data: dict[str, Any]) -> Rules:
    """A :class:`Rules` from a :func:`rules_to_dict` dict (trusted, as stored in a state); cached."""
    return _rules_from_items(tuple(sorted(data.items())))
