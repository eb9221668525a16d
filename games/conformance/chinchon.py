"""The chinchón ops of the rules conformance protocol (../shared/conformance/README.md).

Each handler takes the case's ``args`` and returns its ``result``; invalid args raise ``ValueError`` or an
engine error (the dispatcher turns either into ``{"error": message}``). Built on the engine's own
functions: :mod:`games.engine.chinchon` (rules) and :mod:`games.engine.chinchon_melds`.
"""

from typing import Any

from games.engine import chinchon_melds as melds
from games.engine.cards import check_cards
from games.engine.chinchon import Rules, first_mano, validate_rules

MAX_ARRANGE_CARDS = 16
"""``chinchon.arrange`` takes at most this many cards (a hand holds 7 or 8; the exact solver grows fast)."""


def _rules(args: dict[str, Any]) -> Rules:
    rules = args.get("rules")
    return validate_rules({} if rules is None else rules)


def _cards(args: dict[str, Any], key: str = "cards") -> list[str]:
    cards = args[key]
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise ValueError(f"{key} must be a list of card codes")
    return cards


def _seat(v: Any, name: str, rules: Rules) -> int:
    """A seat number: an integer as a value, a string of its decimal digits as an object key (README:
    "as values integers; as object keys, strings"), from 0 to the seat count the rules allow, minus 1."""
    if isinstance(v, str) and v.isascii() and v.isdigit() and str(int(v)) == v:
        v = int(v) if name == "seat" else v
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{name} must be a seat number")
    top = 8 if rules.decks == 2 else 4
    if not 0 <= v < top:
        raise ValueError(f"{name} must be a seat number from 0 to {top - 1}")
    return v


def op_value(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchon.value``: ``rules``, ``card`` -> ``{"value": points}``."""
    card = args["card"]
    if not isinstance(card, str):
        raise ValueError("card must be a card code")
    return {"value": melds.value(card, _rules(args))}


def op_is_meld(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchon.is_meld``: ``rules``, ``cards`` -> ``{"meld": bool}``."""
    return {"meld": melds.is_meld(_cards(args), _rules(args))}


def op_arrange(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchon.arrange``: ``rules``, ``cards`` -> ``{"loose_points", "loose_count", "melds"}``."""
    cards = _cards(args)
    if len(cards) > MAX_ARRANGE_CARDS:
        raise ValueError(f"cards must hold at most {MAX_ARRANGE_CARDS} cards")
    found, loose, points = melds.best_arrangement(cards, _rules(args))
    return {"loose_points": points, "loose_count": len(loose), "melds": found}


def op_close(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchon.close``: ``rules``, ``cards`` (8), ``face_down``, ``first_round_complete`` (default true)
    -> ``{"can_close", "kind", "score"}`` (``score`` null for a chinchón that wins the game)."""
    rules = _rules(args)
    cards = _cards(args)
    if len(cards) != 8:
        raise ValueError("cards must hold 8 cards (after the draw)")
    face_down = args["face_down"]
    frc = args.get("first_round_complete", True)
    if not isinstance(frc, bool):
        raise ValueError("first_round_complete must be true or false")
    melds.is_meld(cards, rules)  # raises for a card the deck cannot hold
    if face_down not in cards:
        raise ValueError("face_down is not one of the cards")
    options = melds.close_options(cards, rules, first_round_complete=frc)
    for opt in options:
        if opt["card"] == face_down:
            return {"can_close": True, "kind": opt["kind"], "score": opt["score"]}
    return {"can_close": False, "kind": None, "score": None}


def op_score(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchon.score``: ``rules``, ``closer``, ``hands`` {seat: 7 cards} -> ``{"deltas": {seat: points
    added}, "winner": seat or null}`` (plus ``kind`` of the close)."""
    rules = _rules(args)
    closer = _seat(args["closer"], "closer", rules)
    hands_in = args["hands"]
    if not isinstance(hands_in, dict) or len(hands_in) < 2:
        raise ValueError("hands must be an object of seat -> cards, for 2 seats or more")
    hands = {}
    for s, cards in hands_in.items():
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ValueError("each hand must be a list of card codes")
        if len(cards) != 7:
            raise ValueError(f"seat {s} must hold 7 cards")
        hands[_seat(s, "seat", rules)] = cards
    if closer not in hands:
        raise ValueError("closer is not one of the hands")
    out = melds.score_hand(closer, hands, rules)
    return {
        "deltas": {str(s): d for s, d in out["deltas"].items()},
        "winner": out["winner"],
        "kind": out["kind"],
    }


def op_first_mano(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchon.first_mano``: ``rules``, ``draws`` (the rounds of the draw for the first mano, each
    ``{seat: card}``; every seat in the first, only the seats tied for highest in each later one) ->
    ``{"mano": seat, "redraw": []}``, or ``{"mano": null, "redraw": [seat...]}`` when the last round is
    still tied (those seats draw again). Highest by rank, 12 down to 1 (seed 002); suits never break a tie. An error for rules whose
    ``first_mano`` is not ``high_card``, a card the pack cannot hold (each round is drawn from a full
    pack; a joker is never drawn), or rounds that do not follow from the ones before."""
    rules = _rules(args)
    if rules.first_mano != "high_card":
        raise ValueError("the first mano is drawn by cards only with first_mano high_card")
    draws = args["draws"]
    if not isinstance(draws, list) or not draws:
        raise ValueError("draws must be a list of rounds, at least one")
    rounds = []
    for rnd in draws:
        if not isinstance(rnd, dict) or not all(isinstance(c, str) for c in rnd.values()):
            raise ValueError("each round must be an object of seat -> card")
        if "JK" in rnd.values():
            raise ValueError("a joker is never drawn for the mano")
        check_cards(rnd.values(), deck=rules.deck, decks=rules.decks)
        rounds.append({_seat(s, "seat", rules): card for s, card in rnd.items()})
    mano, tied = first_mano(rounds)
    return {"mano": mano, "redraw": tied}


OPS = {
    "chinchon.value": op_value,
    "chinchon.is_meld": op_is_meld,
    "chinchon.arrange": op_arrange,
    "chinchon.close": op_close,
    "chinchon.score": op_score,
    "chinchon.first_mano": op_first_mano,
}
