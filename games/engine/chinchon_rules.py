"""Chinchón's settings, presets and the resolved :class:`Rules` (pure; no Django). :mod:`games.engine.chinchon`
re-exports every name here; :mod:`games.engine.chinchon_melds` reads :func:`validate_rules` from here (the
game module imports the melds module, so the melds never import the game module).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from games.engine.errors import InvalidRules
from games.engine.settings import (
    BOOLEAN,
    CHOICE,
    INTEGER,
    MSG_CHOICE,
    MSG_NOT_AN_OBJECT,
    MSG_UNKNOWN,
    Choice,
    Preset,
    Setting,
    gettext_noop,
    preset_values,
    table_index,
)

NAME = "chinchon"

STANDARD, TRADITIONAL, WILD_ACE = "standard", "traditional", "wild_ace"
PRESET_NAMES = (STANDARD, TRADITIONAL, WILD_ACE)
STAKES = (0, 10, 25, 50, 100)
"""The values of the ``stake`` setting: coins each human seat puts into the pot at the start (0: no pot);
a re-entry costs the same."""

PRESET_TABLE: tuple[Preset, ...] = (
    Preset(
        STANDARD,
        gettext_noop("Standard"),
        gettext_noop("48 cards with two jokers; close with one loose card worth 3 or less; out over 100"),
        2,
        4,
    ),
    Preset(
        TRADITIONAL,
        gettext_noop("Traditional"),
        gettext_noop(
            "No jokers, cards count their face value; close when the loose cards add up to 5 or less; lay "
            "off onto every meld; unlimited re-entry; two decks for 5 to 8 players"
        ),
        2,
        8,
    ),
    Preset(
        WILD_ACE,
        gettext_noop("Wild ace"),
        gettext_noop(
            "40 cards, the Ace of Oros is wild; nobody closes in the first round; out over 50; "
            "unlimited re-entry"
        ),
        2,
        4,
    ),
)
"""The presets (rules/chinchon.md "Presets"): each is one seed text read literally; its values are the
``presets`` entries of :data:`SETTINGS`, its seat counts ``min_seats``..``max_seats``."""

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "deck",
        CHOICE,
        48,
        gettext_noop("Deck"),
        gettext_noop("Cards in the Spanish deck: 40 (no 8s and 9s) or 48"),
        choices=(Choice(40, gettext_noop("40 cards")), Choice(48, gettext_noop("48 cards"))),
        presets={WILD_ACE: 40},
    ),
    Setting(
        "decks",
        CHOICE,
        1,
        gettext_noop("Decks"),
        gettext_noop("Decks shuffled together: follows the seats (two for 5 to 8 seats, traditional only)"),
        choices=(Choice(1, gettext_noop("One deck")), Choice(2, gettext_noop("Two decks"))),
    ),
    Setting(
        "jokers",
        CHOICE,
        2,
        gettext_noop("Jokers"),
        gettext_noop("Jokers added to each deck; a joker is wild"),
        choices=(
            Choice(0, gettext_noop("None")),
            Choice(1, gettext_noop("One")),
            Choice(2, gettext_noop("Two")),
        ),
        presets={TRADITIONAL: 0, WILD_ACE: 0},
    ),
    Setting(
        "wild_card",
        CHOICE,
        None,
        gettext_noop("Wild card"),
        gettext_noop("A card of the deck that is wild too"),
        choices=(Choice(None, gettext_noop("None")), Choice("1O", gettext_noop("Ace of Oros"))),
        presets={WILD_ACE: "1O"},
    ),
    Setting(
        "card_values",
        CHOICE,
        "figures_10",
        gettext_noop("Card values"),
        gettext_noop(
            "What a loose card costs: figures 10 (Sota, Caballo, Rey count 10), pip (face value, Rey 12) "
            "or ordinal 40 (Sota 8, Caballo 9, Rey 10; 40 cards only); traditional counts pip with 48 "
            "cards and ordinal 40 with 40"
        ),
        choices=(
            Choice("figures_10", gettext_noop("Figures count 10")),
            Choice("pip", gettext_noop("Face value")),
            Choice("ordinal_40", gettext_noop("Ordinal (40 cards)")),
        ),
        presets={TRADITIONAL: "pip"},
    ),
    Setting(
        "wild_value",
        INTEGER,
        25,
        gettext_noop("Loose wild"),
        gettext_noop("Points a wild left loose costs"),
        min=0,
        max=50,
    ),
    Setting(
        "max_jokers_per_meld",
        CHOICE,
        1,
        gettext_noop("Wilds per meld"),
        gettext_noop("Most wilds one meld may hold"),
        choices=(Choice(1, gettext_noop("One")), Choice(2, gettext_noop("Two"))),
    ),
    Setting(
        "close_mode",
        CHOICE,
        "one_card",
        gettext_noop("Closing"),
        gettext_noop(
            "one card: all melded but at most one loose card within the limit; total: the loose cards add "
            "up to the limit at most"
        ),
        choices=(
            Choice("one_card", gettext_noop("One loose card")),
            Choice("total", gettext_noop("Total of loose cards")),
        ),
        presets={TRADITIONAL: "total"},
    ),
    Setting(
        "close_limit",
        INTEGER,
        3,
        gettext_noop("Closing limit"),
        gettext_noop(
            "The most the loose card(s) may be worth to close: 0, 3 or 5 when closing with one card, "
            "0 to 10 with a total"
        ),
        min=0,
        max=10,
        presets={TRADITIONAL: 5},
    ),
    Setting(
        "close_after_first_round",
        BOOLEAN,
        False,
        gettext_noop("No closing in the first round"),
        gettext_noop("Nobody closes before every seat has played one turn of the deal"),
        presets={WILD_ACE: True},
    ),
    Setting(
        "minus_ten",
        INTEGER,
        -10,
        gettext_noop("All melded"),
        gettext_noop("Points for closing with all seven cards melded (menos diez)"),
        min=-50,
        max=0,
    ),
    Setting(
        "seven_run",
        CHOICE,
        "win_game",
        gettext_noop("Chinchón"),
        gettext_noop(
            "A seven-card run of one suit with no wild: wins the whole game, or counts as all melded"
        ),
        choices=(
            Choice("win_game", gettext_noop("Wins the game")),
            Choice("minus_ten", gettext_noop("Counts as all melded")),
        ),
        presets={TRADITIONAL: "minus_ten"},
    ),
    Setting(
        "seven_run_wild",
        CHOICE,
        -10,
        gettext_noop("Seven-card run with a wild"),
        gettext_noop("Points for closing with a seven-card run that holds a wild"),
        choices=(Choice(-10, "-10"), Choice(-25, "-25")),
        presets={WILD_ACE: -25},
    ),
    Setting(
        "layoff",
        BOOLEAN,
        True,
        gettext_noop("Laying off"),
        gettext_noop("After a close, the other seats may add their loose cards to melds on the table"),
    ),
    Setting(
        "layoff_onto",
        CHOICE,
        "closer",
        gettext_noop("Lay off onto"),
        gettext_noop(
            "Whose melds the loose cards may be added to: the closer's only, or every meld laid before"
        ),
        choices=(
            Choice("closer", gettext_noop("The closer's melds")),
            Choice("all", gettext_noop("Every meld")),
        ),
        presets={TRADITIONAL: "all"},
    ),
    Setting(
        "first_mano",
        CHOICE,
        "random",
        gettext_noop("First mano"),
        gettext_noop(
            "Who is mano in the first hand: a seat picked at random, or each seat draws a card from the "
            "pack and the highest (Rey down to Ace) is mano, seats tied for highest drawing again"
        ),
        choices=(
            Choice("random", gettext_noop("At random")),
            Choice("high_card", gettext_noop("Highest card drawn")),
        ),
        presets={TRADITIONAL: "high_card"},
    ),
    Setting(
        "elimination",
        CHOICE,
        100,
        gettext_noop("Out over"),
        gettext_noop("A seat whose score goes over this is out"),
        choices=(Choice(50, "50"), Choice(70, "70"), Choice(100, "100")),
        presets={WILD_ACE: 50},
    ),
    Setting(
        "reentry",
        CHOICE,
        "off",
        gettext_noop("Re-entry"),
        gettext_noop(
            "Whether a seat that is out may come back with the highest score still in (3 or more seats)"
        ),
        choices=(
            Choice("off", gettext_noop("Never")),
            Choice("once", gettext_noop("Once")),
            Choice("unlimited", gettext_noop("Always")),
        ),
        presets={TRADITIONAL: "unlimited", WILD_ACE: "unlimited"},
    ),
    Setting(
        "stake",
        CHOICE,
        0,
        gettext_noop("Stake"),
        gettext_noop(
            "Coins each player puts into the pot before the game (0: no pot); the winner takes the pot, and "
            "re-entering costs the same into the pot. CPU seats neither pay nor win"
        ),
        choices=tuple(Choice(v, gettext_noop("No stake") if v == 0 else str(v)) for v in STAKES),
    ),
    Setting(
        "reentry_fee",
        CHOICE,
        None,
        gettext_noop("Re-entry fee"),
        gettext_noop(
            "Coins a seat pays into the pot to re-enter (none: the stake); only players who can pay are "
            "offered re-entry, never a CPU seat"
        ),
        choices=(Choice(None, gettext_noop("The stake")),
                 *(Choice(v, gettext_noop("Free") if v == 0 else str(v)) for v in STAKES)),
        presets={WILD_ACE: 25},
    ),
)
"""Every Chinchón setting but ``preset`` (rules/chinchon.md "Settings" and "Presets"), in API order."""

_SETTINGS = table_index(SETTINGS)
_PRESETS = {p.id: p for p in PRESET_TABLE}
_ONE_CARD_LIMITS = (0, 3, 5)


@dataclass(frozen=True)
class Rules:
    """Every Chinchón setting, resolved (rules/chinchon.md "Settings"; API names; allowed values, defaults
    and preset values are :data:`SETTINGS`).

    Points are penalty points (low is good). ``decks`` is 2 only for 5-8 seats in ``traditional``.
    Build it with :func:`validate_rules`; it is frozen and hashable (the solver caches by it).
    """

    preset: str
    deck: int
    decks: int
    jokers: int
    wild_card: str | None
    card_values: str
    wild_value: int
    max_jokers_per_meld: int
    close_mode: str
    close_limit: int
    close_after_first_round: bool
    minus_ten: int
    seven_run: str
    seven_run_wild: int
    layoff: bool
    layoff_onto: str
    elimination: int
    reentry: str
    stake: int = 0  # a default: states stored before the setting existed read as no stake
    reentry_fee: int | None = None  # None: the stake (states stored before the setting existed)
    first_mano: str = "random"  # states stored before the setting existed had a random first mano


def reentry_cost(rules: Rules) -> int:
    """Coins a re-entry costs under ``rules``: ``reentry_fee``, or the stake when it is None."""
    return rules.stake if rules.reentry_fee is None else rules.reentry_fee


def has_coins(rules: Rules) -> bool:
    """Whether a game under ``rules`` moves coins (a stake or a re-entry cost): it then has a pot."""
    return bool(rules.stake or reentry_cost(rules))


PRESETS: dict[str, dict[str, Any]] = {
    p.id: {"preset": p.id, **preset_values(SETTINGS, p.id)} for p in PRESET_TABLE
}
"""The three presets, each fully resolved (``traditional`` with one deck of 48 cards)."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def validate_rules(settings: dict | None = None, seats: int | None = None) -> Rules:
    """Build :class:`Rules` from API settings: the preset, then each given setting overriding it (each
    value checked by its row of :data:`SETTINGS`).

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
        raise InvalidRules("rules", MSG_NOT_AN_OBJECT)
    preset = settings.get("preset", STANDARD)
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidRules("preset", MSG_CHOICE, choices=", ".join(PRESET_NAMES))
    values = dict(PRESETS[preset])
    for name, v in settings.items():
        if name == "preset":
            continue
        if not isinstance(name, str) or name not in _SETTINGS:
            raise InvalidRules(str(name), MSG_UNKNOWN)
        values[name] = _SETTINGS[name].check(v)
    if preset == TRADITIONAL and "card_values" not in settings:
        values["card_values"] = "ordinal_40" if values["deck"] == 40 else "pip"
    if values["card_values"] == "ordinal_40" and values["deck"] != 40:
        raise InvalidRules("card_values", gettext_noop("ordinal_40 needs a 40-card deck"))
    if values["close_mode"] == "one_card" and values["close_limit"] not in _ONE_CARD_LIMITS:
        raise InvalidRules("close_limit", gettext_noop("must be 0, 3 or 5 with close_mode one_card"))
    if values["decks"] == 2 and preset != TRADITIONAL:
        raise InvalidRules("decks", gettext_noop("two decks are played only in the traditional preset"))
    if seats is not None:
        p = _PRESETS[preset]
        if not _is_int(seats) or not p.min_seats <= seats <= p.max_seats:
            raise InvalidRules("seats", gettext_noop("{preset} is played by {min} to {max} seats"), preset=preset,
                               min=p.min_seats, max=p.max_seats)
        need = 2 if seats >= 5 else 1
        if "decks" in settings and settings["decks"] != need:
            raise InvalidRules("decks", gettext_noop("{seats} seats play with one deck") if need == 1 else
                               gettext_noop("{seats} seats play with two decks"), seats=seats)
        values["decks"] = need
    return Rules(**values)


def SEAT_RANGE(settings: dict | None = None) -> tuple[int, int]:  # noqa: N802 - name fixed by base.py
    """The seat counts the settings allow: standard and wild_ace 2-4; traditional 2-8 (2-4 with
    ``decks: 1`` given, 5-8 with ``decks: 2``). Raises ``InvalidRules`` for bad settings."""
    rules = validate_rules(settings)
    if rules.preset != TRADITIONAL:
        p = _PRESETS[rules.preset]
        return (p.min_seats, p.max_seats)
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
