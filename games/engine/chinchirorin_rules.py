"""Chinchirorin rules as data and pure functions: settings, dice hands, strength, multipliers, the
comparison of a player with the dealer, the common opening, the rolling order and the payments of a hand.

Everything here is a function of its arguments (no game state); :mod:`games.engine.chinchirorin` builds
the game's state machine on it and :mod:`games.conformance.chinchirorin` answers the protocol with it.
Section names refer to ``rules/chinchirorin.md`` (the normative rules file).

A **hand** is a dict ``{"hand": name, "value": int | None}`` with ``name`` one of :data:`HAND_NAMES`;
``value`` is the arashi's number (2..6) or the point (1..6), else ``None``. Amounts are points.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from games.engine.errors import InvalidRules
from games.engine.settings import (
    BOOLEAN,
    CHOICE,
    INTEGER,
    INTEGER_LIST,
    MSG_INTEGER,
    MSG_NOT_AN_OBJECT,
    MSG_UNKNOWN,
    Choice,
    Preset,
    Setting,
    gettext_noop,
    table_index,
)

PINZORO = "pinzoro"
ARASHI = "arashi"
SHIGORO = "shigoro"
POINT = "point"
HIFUMI = "hifumi"
NO_POINT = "no_point"
OUT_OF_BOWL = "out_of_bowl"
HAND_NAMES = (PINZORO, ARASHI, SHIGORO, POINT, HIFUMI, NO_POINT, OUT_OF_BOWL)

STREAMER = "streamer"
COMMON = "common"

DEALER_WINS = "dealer_wins"
DEALER_LOSES = "dealer_loses"
PLAYERS_ROLL = "players_roll"

MIN_SEATS = 2
MAX_SEATS = 8
MAX_THROWS = 3
FACES = (1, 2, 3, 4, 5, 6)
OUT_OF_BOWL_ODDS = 36  # one throw in 36 leaves the bowl when ``out_of_bowl`` is on

Hand = dict[str, Any]


# --------------------------------------------------------------------------------------------- settings
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "style",
        CHOICE,
        STREAMER,
        gettext_noop("Play style"),
        gettext_noop(
            "streamer: players roll in order of their bet and the dealer last, ties go to the dealer, the "
            "dealer role moves every hand; common: the dealer rolls first and may win or lose against "
            "everyone at once, ties are a push"
        ),
        choices=(Choice(STREAMER, gettext_noop("Streamer")), Choice(COMMON, gettext_noop("Common"))),
    ),
    Setting(
        "pinzoro_multiplier",
        INTEGER,
        5,
        gettext_noop("Pinzoro multiplier"),
        gettext_noop("What a pinzoro (1-1-1) multiplies the bet by"),
        min=1,
        max=10,
    ),
    Setting(
        "hifumi_multiplier",
        INTEGER,
        2,
        gettext_noop("Hifumi multiplier"),
        gettext_noop("What a losing hifumi (1-2-3) multiplies the bet by"),
        min=1,
        max=2,
    ),
    Setting(
        "out_of_bowl",
        BOOLEAN,
        False,
        gettext_noop("Out of the bowl"),
        gettext_noop("One throw in 36 leaves the bowl: the turn ends at once and that hand loses"),
    ),
    Setting(
        "first_dealer",
        CHOICE,
        "roll",
        gettext_noop("First dealer"),
        gettext_noop(
            "How the first dealer is chosen: every seat rolls one die (highest deals), or seat 0 deals"
        ),
        choices=(Choice("roll", gettext_noop("Roll a die")), Choice("seat", gettext_noop("Seat 0"))),
    ),
    Setting(
        "rounds",
        INTEGER,
        1,
        gettext_noop("Rounds"),
        gettext_noop("Times the dealer role goes round the table before the game ends"),
        min=1,
        max=3,
    ),
    Setting(
        "starting_points",
        INTEGER,
        1000,
        gettext_noop("Starting points"),
        gettext_noop("Points every seat starts with (points, never money)"),
        min=100,
        max=100000,
    ),
    Setting(
        "max_dealer_hands",
        INTEGER,
        3,
        gettext_noop("Hands a dealer may deal"),
        gettext_noop("Common style: hands in a row one dealer may deal before the role moves on"),
        min=1,
        max=10,
    ),
    Setting(
        "bet_options",
        INTEGER_LIST,
        (10, 20, 50, 100),
        gettext_noop("Bets"),
        gettext_noop("The amounts a player may put in each hand: distinct, in ascending order"),
        min=1,
        min_items=1,
        max_items=6,
    ),
)
"""Every Chinchirorin setting (rules file, "Settings"), in the order :func:`validate_rules` checks them."""

_SETTINGS = table_index(SETTINGS)

PRESET_TABLE: tuple[Preset, ...] = ()
"""Chinchirorin has no presets."""


@dataclass(frozen=True)
class Rules:
    """The validated settings of a Chinchirorin game (rules file, "Settings"; API names; the allowed values
    and defaults are :data:`SETTINGS`).

    - ``style``: ``"streamer"`` | ``"common"`` (play style, "Play styles").
    - ``pinzoro_multiplier``: 1..10, the multiplier of pinzoro.
    - ``hifumi_multiplier``: 1 | 2, what a losing hifumi multiplies by.
    - ``out_of_bowl``: bool, a throw leaves the bowl 1 time in 36.
    - ``first_dealer``: ``"roll"`` | ``"seat"``.
    - ``rounds``: 1..3, times the dealer role goes round the table.
    - ``starting_points``: 100..100000 points per seat.
    - ``bet_options``: 1..6 distinct positive ints, ascending (points a player may put in).
    - ``max_dealer_hands``: 1..10 hands in a row a common-style dealer may deal.
    """

    style: str
    pinzoro_multiplier: int
    hifumi_multiplier: int
    out_of_bowl: bool
    first_dealer: str
    rounds: int
    starting_points: int
    bet_options: tuple[int, ...]
    max_dealer_hands: int


def validate_rules(settings: Mapping[str, Any] | Rules | None = None, seats: int | None = None) -> Rules:
    """Build :class:`Rules` from API settings (rules file, "Settings"), defaults filled, each value checked
    by its row of :data:`SETTINGS`.

    ``settings``: a dict of API names (missing names take their defaults; ``None`` means all defaults;
    a :class:`Rules` is re-checked). ``seats``: the seat count to check against :func:`SEAT_RANGE` (2..8),
    or ``None``.

    Raises :class:`~games.engine.errors.InvalidRules` ``(field, message)`` for an unknown name, a value out
    of range, a boolean given for a number, a ``bet_options`` that is not 1..6 distinct positive ints in
    ascending order, or (field ``"seats"``) a seat count outside 2..8. Chinchirorin has no presets.
    """
    if settings is None:
        settings = {}
    elif isinstance(settings, Rules):
        settings = rules_to_dict(settings)
    if not isinstance(settings, Mapping):
        raise InvalidRules("rules", MSG_NOT_AN_OBJECT)
    for name in settings:
        if name not in _SETTINGS:
            raise InvalidRules(str(name), MSG_UNKNOWN)
    values = {s.name: s.check(settings.get(s.name, s.default)) for s in SETTINGS}
    if seats is not None:
        lo, hi = SEAT_RANGE(settings)
        if isinstance(seats, bool) or not isinstance(seats, int) or not lo <= seats <= hi:
            raise InvalidRules("seats", MSG_INTEGER, min=lo, max=hi)
    return Rules(**{**values, "bet_options": tuple(values["bet_options"])})


DEFAULT_RULES = validate_rules()


def rules_to_dict(rules: Rules) -> dict[str, Any]:
    """Every setting of ``rules`` resolved, by API name (``bet_options`` as a list); JSON-able."""
    out = asdict(rules)
    out["bet_options"] = list(rules.bet_options)
    return out


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rebuild :class:`Rules` from :func:`rules_to_dict` output without re-validating (trusted state)."""
    return Rules(**{**data, "bet_options": tuple(data["bet_options"])})


def SEAT_RANGE(settings: Mapping[str, Any] | Rules | None = None) -> tuple[int, int]:  # noqa: N802
    """The seat counts Chinchirorin allows whatever the settings: ``(2, 8)`` (rules file, "Table")."""
    return (MIN_SEATS, MAX_SEATS)


# ------------------------------------------------------------------------------------------------ hands
def _check_dice(dice: Any) -> list[int]:
    if not isinstance(dice, (list, tuple)) or len(dice) != 3:
        raise ValueError("dice must be three ints 1..6")
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise ValueError("dice must be three ints 1..6")
    return list(dice)


def hand_of(dice: Sequence[int]) -> Hand | None:
    """The hand one throw of three dice makes (rules file, "Dice hands", the table), or ``None``.

    ``dice``: three ints 1..6 in any order. Returns ``{"hand", "value"}``: pinzoro (1-1-1), arashi x
    (x-x-x, value x), shigoro (4-5-6), point (a pair and an odd die; value the odd die: 2-2-4 is point 4,
    5-5-1 is point 1), hifumi (1-2-3); ``None`` for no hand (throw again).
    Raises ``ValueError("dice must be three ints 1..6")``.
    """
    a, b, c = sorted(_check_dice(dice))
    if a == b == c:
        return {"hand": PINZORO, "value": None} if a == 1 else {"hand": ARASHI, "value": a}
    if (a, b, c) == (4, 5, 6):
        return {"hand": SHIGORO, "value": None}
    if (a, b, c) == (1, 2, 3):
        return {"hand": HIFUMI, "value": None}
    if a == b:
        return {"hand": POINT, "value": c}
    if b == c:
        return {"hand": POINT, "value": a}
    return None


# every sorted throw (56) -> its hand, built once from :func:`hand_of` (a fast path for the engine)
_HAND_BY_SORTED_DICE = {
    (a, b, c): hand_of((a, b, c)) for a in range(1, 7) for b in range(a, 7) for c in range(b, 7)
}


def normalize_hand(obj: Any, rules: Rules | None = None) -> Hand:
    """Check a hand given as ``{"hand": name, "value": int | None}`` and return it as a fresh dict.

    ``value`` may be omitted for hands without one. arashi needs 2..6, point 1..6, others ``None``.
    With ``rules`` given, ``out_of_bowl`` is only a hand when that setting is on.
    Raises ``ValueError`` naming what is wrong.
    """
    if not isinstance(obj, Mapping) or "hand" not in obj:
        raise ValueError("a hand must be an object {hand, value}")
    name = obj["hand"]
    if name not in HAND_NAMES:
        raise ValueError(f"unknown hand {name!r}; one of " + ", ".join(HAND_NAMES))
    value = obj.get("value")
    if name in (ARASHI, POINT):
        lo = 2 if name == ARASHI else 1
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= 6:
            raise ValueError(f"{name} needs a value {lo}..6")
    elif value is not None:
        raise ValueError(f"{name} has no value (null)")
    if name == OUT_OF_BOWL and rules is not None and not rules.out_of_bowl:
        raise ValueError("out_of_bowl is not a hand unless the out_of_bowl setting is on")
    return {"hand": name, "value": value}


_BASE_STRENGTH = {PINZORO: 100, ARASHI: 80, SHIGORO: 70, POINT: 60, NO_POINT: 50, OUT_OF_BOWL: 40, HIFUMI: 30}


def strength(hand: Hand) -> int:
    """A number ordering hands, higher is stronger (rules file, "Dice hands", **Strength**).

    pinzoro > arashi 6 > ... > arashi 2 > shigoro > point 6 > ... > point 1 > no_point > out_of_bowl >
    hifumi. Equal numbers are equal strength (the same hand with the same value).
    """
    return _BASE_STRENGTH[hand["hand"]] + (hand["value"] or 0)


def multiplier(rules: Rules, hand: Hand, won: bool) -> int:
    """``m(hand)`` (rules file, "Dice hands", **Multipliers**): pinzoro ``pinzoro_multiplier``, arashi 3,
    shigoro 2, point / no_point / out_of_bowl 1; hifumi ``hifumi_multiplier`` when it loses (``won``
    false), 1 when it wins."""
    name = hand["hand"]
    if name == PINZORO:
        return rules.pinzoro_multiplier
    if name == ARASHI:
        return 3
    if name == SHIGORO:
        return 2
    if name == HIFUMI:
        return 1 if won else rules.hifumi_multiplier
    return 1


def compare(rules: Rules, bet: int, dealer: Hand, player: Hand) -> tuple[str, int]:
    """One player against the dealer under ``rules.style``; returns ``(winner, amount)``.

    ``winner`` is ``"dealer"``, ``"player"`` or ``"push"``; ``amount`` (points) is what the loser owes the
    winner before "paying what you can" (0 for a push).

    - streamer (rules file, "Play styles" / ``streamer``): a player out_of_bowl loses whatever the dealer
      has; else a dealer out_of_bowl loses; else the stronger hand wins and equal strength goes to the
      dealer; amount = bet × m(winning hand) × m(losing hand).
    - common (``common``): a player out_of_bowl loses; else the stronger hand wins and equal strength is a
      push; amount = bet × max(m(dealer), m(player)).
    """
    ds, ps = strength(dealer), strength(player)
    if rules.style == STREAMER:
        if player["hand"] == OUT_OF_BOWL:
            dealer_wins = True
        elif dealer["hand"] == OUT_OF_BOWL:
            dealer_wins = False
        else:
            dealer_wins = ds >= ps
        md = multiplier(rules, dealer, dealer_wins)
        mp = multiplier(rules, player, not dealer_wins)
        return ("dealer" if dealer_wins else "player"), bet * md * mp
    if player["hand"] == OUT_OF_BOWL:
        dealer_wins = True
    elif ds == ps:
        return "push", 0
    else:
        dealer_wins = ds > ps
    md = multiplier(rules, dealer, dealer_wins)
    mp = multiplier(rules, player, not dealer_wins)
    return ("dealer" if dealer_wins else "player"), bet * max(md, mp)


def opening(rules: Rules, dealer: Hand) -> str:
    """What the common-style dealer's own hand decides (rules file, ``common``, first bullet).

    ``"dealer_wins"`` for pinzoro, arashi, shigoro, point 6; ``"dealer_loses"`` for point 1, no_point,
    out_of_bowl, hifumi; ``"players_roll"`` for point 2..5.
    Raises ``ValueError`` under the streamer style, which has no opening.
    """
    if rules.style != COMMON:
        raise ValueError("opening is only for the common style")
    if losing_dealer_hand(dealer):
        return DEALER_LOSES
    if dealer["hand"] == POINT and dealer["value"] != 6:
        return PLAYERS_ROLL
    return DEALER_WINS


def roll_order(rules: Rules, seats: int, dealer: int, bettors: Mapping[int, int]) -> list[int]:
    """The order in which seats roll (rules file, "Play styles"); the table's ``roll_order``.

    ``seats``: N, the seat count at the start; ``bettors``: ``{seat: bet}`` for every player taking part.
    streamer: players by bet, smallest first, equal bets in seat order from the seat after the dealer;
    then the dealer. common: players in seat order from the seat after the dealer (the dealer, who rolls
    first, is not listed).
    """

    def after_dealer(seat: int) -> int:
        return (seat - dealer - 1) % seats

    if rules.style == STREAMER:
        return sorted(bettors, key=lambda s: (bettors[s], after_dealer(s))) + [dealer]
    return sorted(bettors, key=after_dealer)


def losing_dealer_hand(hand: Hand) -> bool:
    """True for the hands that make a common-style dealer lose at once and pass the role: point 1,
    no_point, out_of_bowl, hifumi (rules file, ``common``)."""
    return hand["hand"] in (NO_POINT, OUT_OF_BOWL, HIFUMI) or (hand["hand"] == POINT and hand["value"] == 1)


def dealer_keeps(rules: Rules, dealer_hand: Hand | None, dealer_streak: int) -> bool:
    """Whether the dealer keeps the role after a hand (rules file, "Play styles").

    streamer: never. common: unless the dealer's hand was point 1, no_point, out_of_bowl or hifumi, or
    the dealer has now dealt ``max_dealer_hands`` hands in a row (``dealer_streak``: hands it dealt in a
    row before this one). ``dealer_hand`` ``None`` (no hand rolled) never keeps.
    """
    if rules.style == STREAMER or dealer_hand is None:
        return False
    if losing_dealer_hand(dealer_hand):
        return False
    return dealer_streak + 1 < rules.max_dealer_hands


# --------------------------------------------------------------------------------------------- payments
def pay(points: MutableSequence[int], payer: int, payee: int, amount: int, payments: list[dict]) -> int:
    """Move ``amount`` points from ``payer`` to ``payee``, or what the payer holds if less (rules file,
    "Paying what you can"). Appends ``{"from", "to", "amount"}`` to ``payments`` when anything moved;
    returns the points moved."""
    paid = min(amount, points[payer])
    if paid > 0:
        points[payer] -= paid
        points[payee] += paid
        payments.append({"from": payer, "to": payee, "amount": paid})
    return paid


def settle_streamer(
    rules: Rules,
    dealer: int,
    points: MutableSequence[int],
    bets: Mapping[int, int],
    hands: Mapping[int, Hand],
    order: Sequence[int],
) -> list[dict]:
    """Settle a streamer hand in place on ``points`` (rules file, ``streamer`` and "Paying what you can").

    ``order``: the players in rolling order (the dealer excluded); each needs a bet and a hand, and the
    dealer a hand. The dealer first collects from every losing player in rolling order, then pays the
    winners in rolling order, each payer paying what it holds. Returns the payments made.
    """
    payments: list[dict] = []
    results = [(p, *compare(rules, bets[p], hands[dealer], hands[p])) for p in order]
    for p, winner, amount in results:
        if winner == "dealer":
            pay(points, p, dealer, amount, payments)
    for p, winner, amount in results:
        if winner == "player":
            pay(points, dealer, p, amount, payments)
    return payments


def settle_opening(
    rules: Rules,
    dealer: int,
    points: MutableSequence[int],
    bets: Mapping[int, int],
    dealer_hand: Hand,
    order: Sequence[int],
) -> tuple[str, list[dict]]:
    """The common dealer's own throw settled in place on ``points`` (rules file, ``common``).

    ``order``: the players in seat order from the seat after the dealer. dealer_wins: each player pays
    bet × m(dealer hand); dealer_loses: the dealer pays each bet × m(dealer hand) (hifumi:
    ``hifumi_multiplier``), in that order, what it holds; players_roll: nothing yet.
    Returns ``(opening, payments)``.
    """
    outcome = opening(rules, dealer_hand)
    payments: list[dict] = []
    if outcome == DEALER_WINS:
        m = multiplier(rules, dealer_hand, True)
        for p in order:
            pay(points, p, dealer, bets[p] * m, payments)
    elif outcome == DEALER_LOSES:
        m = multiplier(rules, dealer_hand, False)
        for p in order:
            pay(points, dealer, p, bets[p] * m, payments)
    return outcome, payments


def settle_player(
    rules: Rules,
    dealer: int,
    points: MutableSequence[int],
    bet: int,
    dealer_hand: Hand,
    player: int,
    player_hand: Hand,
) -> list[dict]:
    """One common-style player's result, paid as soon as it has rolled (rules file, ``common``
    **[decision]**), in place on ``points``; returns the payments made (none for a push)."""
    payments: list[dict] = []
    winner, amount = compare(rules, bet, dealer_hand, player_hand)
    if winner == "dealer":
        pay(points, player, dealer, amount, payments)
    elif winner == "player":
        pay(points, dealer, player, amount, payments)
    return payments


def settle_hand(
    rules: Rules,
    seats: int,
    dealer: int,
    points: Sequence[int],
    bets: Mapping[int, int],
    hands: Mapping[int, Hand],
    dealer_streak: int = 0,
) -> tuple[list[int], list[dict], bool]:
    """One whole hand from its hands (conformance ``chinchirorin.settle``).

    ``points``: every seat's points before (index = seat); ``bets``: ``{player: bet}``; ``hands``:
    ``{seat: hand}`` with the dealer's, and every player's that rolls (streamer: all; common: those the
    dealer's hand sends in, used in rolling order until the dealer has 0 points).
    Returns ``(points after, payments, dealer_keeps)``. Raises ``ValueError`` for a missing hand.
    """
    after = list(points)
    order = roll_order(rules, seats, dealer, bets)
    if dealer not in hands:
        raise ValueError("the dealer's hand is missing")
    dealer_hand = hands[dealer]
    if rules.style == STREAMER:
        players = order[:-1]
        missing = [p for p in players if p not in hands]
        if missing:
            raise ValueError(f"hand missing for seat {missing[0]}")
        payments = settle_streamer(rules, dealer, after, bets, hands, players)
    else:
        outcome, payments = settle_opening(rules, dealer, after, bets, dealer_hand, order)
        if outcome == PLAYERS_ROLL:
            for p in order:
                if after[dealer] == 0:
                    break
                if p not in hands:
                    raise ValueError(f"hand missing for seat {p}")
                payments += settle_player(rules, dealer, after, bets[p], dealer_hand, p, hands[p])
    return after, payments, dealer_keeps(rules, dealer_hand, dealer_streak)


# ------------------------------------------------------------------------------------------------ dice
def throw(rules: Rules, rng) -> list[int] | None:
    """One throw (rules file, "Dice hands", **Throwing**): ``None`` when a die leaves the bowl (1 in 36,
    only with ``out_of_bowl`` on, decided before the dice: ``rng.randrange(36) == 0``), else three dice
    1..6 as thrown (``rng.choices((1, 2, 3, 4, 5, 6), k=3)``). ``rng``: a ``random.Random``."""
    if rules.out_of_bowl and rng.randrange(OUT_OF_BOWL_ODDS) == 0:
        return None
    return rng.choices(FACES, k=3)


def turn_hand(throws: Sequence[Sequence[int] | None]) -> Hand | None:
    """The hand a turn's throws so far have ended with, or ``None`` while the roller throws again
    (rules file, **Throwing**): the first throw making a hand ends the turn, a throw out of the bowl
    gives out_of_bowl, three throws with no hand give no_point."""
    last = throws[-1]
    if last is None:
        return {"hand": OUT_OF_BOWL, "value": None}
    a, b, c = last
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    hand = _HAND_BY_SORTED_DICE.get((a, b, c), 0)
    if hand == 0:  # not three dice 1..6: let hand_of say so
        hand = hand_of(last)
    if hand is None:
        return {"hand": NO_POINT, "value": None} if len(throws) >= MAX_THROWS else None
    return dict(hand)


def turn_distribution(rules: Rules) -> dict[tuple[str, int | None], float]:
    """Exact probability of each outcome of a whole turn (up to 3 throws) under ``rules``:
    ``{(hand, value): probability}`` summing to 1 (used by the CPU players)."""
    per_throw: dict[tuple[str, int | None], float] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                h = hand_of((a, b, c))
                if h is not None:
                    key = (h["hand"], h["value"])
                    per_throw[key] = per_throw.get(key, 0.0) + 1 / 216
    q = 1 / OUT_OF_BOWL_ODDS if rules.out_of_bowl else 0.0
    p_none = (1 - q) * (1 - sum(per_throw.values()))
    out: dict[tuple[str, int | None], float] = {}
    reach = 1.0
    for _ in range(MAX_THROWS):
        for key, p in per_throw.items():
            out[key] = out.get(key, 0.0) + reach * (1 - q) * p
        if q:
            out[(OUT_OF_BOWL, None)] = out.get((OUT_OF_BOWL, None), 0.0) + reach * q
        reach *= p_none
    out[(NO_POINT, None)] = reach
    return out
