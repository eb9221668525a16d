"""The chinchirorin ops of the conformance protocol (../shared/conformance/README.md).

Each handler takes the case's ``args`` dict and returns its result dict; it checks the shape of the args
and then calls the engine's own rule functions (:mod:`games.engine.chinchirorin`), never re-implementing a
rule. Invalid args raise ``ValueError`` (or ``InvalidRules`` for a bad setting) with a clear message.
"""

from __future__ import annotations

from typing import Any

from games.engine import chinchirorin as engine
from games.engine.chinchirorin import Rules


def _rules(args: dict[str, Any]) -> Rules:
    return engine.validate_rules(args.get("rules", {}))


def _int(args: dict[str, Any], name: str, lo: int | None = None, hi: int | None = None, default: Any = None) -> int:
    value = args.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        lo_s = "" if lo is None else str(lo)
        hi_s = "" if hi is None else str(hi)
        raise ValueError(f"{name} must be an integer {lo_s}..{hi_s}")
    return value


def _seat_key(key: Any, seats: int, what: str) -> int:
    if not isinstance(key, str) or not key.isdigit() or int(key) >= seats or str(int(key)) != key:
        raise ValueError(f"{what}: {key!r} is not a seat 0..{seats - 1}")
    return int(key)


def _hand(obj: Any, rules: Rules, what: str) -> dict:
    try:
        return engine.normalize_hand(obj, rules)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _bet(rules, bet: Any, what: str) -> int:
    """A bet must be one of the rules' ``bet_options`` (rules file "Points in (bets)": every seat but the
    dealer chooses 10, 20, 50 or 100, ``bet_options``). Raises ``ValueError`` naming ``what``."""
    if isinstance(bet, bool) or not isinstance(bet, int) or bet not in rules.bet_options:
        raise ValueError(f"{what} must be one of bet_options {list(rules.bet_options)}, got {bet!r}")
    return bet


def _bets(rules, raw: Any, seats: int, dealer: int) -> dict[int, int]:
    if not isinstance(raw, dict) or not raw:
        raise ValueError("bets must be a non-empty object {seat: bet}")
    bets: dict[int, int] = {}
    for key, bet in raw.items():
        seat = _seat_key(key, seats, "bets")
        if seat == dealer:
            raise ValueError("bets: the dealer does not bet")
        bets[seat] = _bet(rules, bet, f"bets: seat {seat}'s bet")
    return bets


def op_hand(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchirorin.hand``: ``{dice: [a, b, c]}`` -> ``{hand, value}`` (hand ``None`` for no hand)."""
    hand = engine.hand_of(args.get("dice"))
    if hand is None:
        return {"hand": None, "value": None}
    return hand


def op_compare(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchirorin.compare``: ``{rules, bet, dealer, player}`` -> ``{winner, amount}``."""
    rules = _rules(args)
    bet = _bet(rules, args.get("bet"), "bet")
    dealer = _hand(args.get("dealer"), rules, "dealer")
    player = _hand(args.get("player"), rules, "player")
    winner, amount = engine.compare(rules, bet, dealer, player)
    return {"winner": winner, "amount": amount}


def op_opening(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchirorin.opening``: ``{rules (common), dealer}`` -> ``{outcome}``; an error under streamer."""
    rules = _rules(args)
    dealer = _hand(args.get("dealer"), rules, "dealer")
    return {"outcome": engine.opening(rules, dealer)}


def op_roll_order(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchirorin.roll_order``: ``{rules, seats, dealer, bets}`` -> ``{order}``."""
    rules = _rules(args)
    lo, hi = engine.SEAT_RANGE(rules)
    seats = _int(args, "seats", lo, hi)
    dealer = _int(args, "dealer", 0, seats - 1)
    bets = _bets(rules, args.get("bets"), seats, dealer)
    return {"order": engine.roll_order(rules, seats, dealer, bets)}


def op_settle(args: dict[str, Any]) -> dict[str, Any]:
    """``chinchirorin.settle``: ``{rules, dealer, points, bets, hands, dealer_streak?}`` ->
    ``{points, dealer_keeps, payments}`` (points and hands keyed by seat strings)."""
    rules = _rules(args)
    raw_points = args.get("points")
    if not isinstance(raw_points, dict):
        raise ValueError("points must be an object {seat: points}")
    seats = len(raw_points)
    lo, hi = engine.SEAT_RANGE(rules)
    if not lo <= seats <= hi:
        raise ValueError(f"points must name {lo}..{hi} seats")
    points = [0] * seats
    for key, value in raw_points.items():
        seat = _seat_key(key, seats, "points")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"points: seat {seat}'s points must be an integer >= 0")
        points[seat] = value
    dealer = _int(args, "dealer", 0, seats - 1)
    streak = _int(args, "dealer_streak", 0, default=0)
    bets = _bets(rules, args.get("bets"), seats, dealer)
    raw_hands = args.get("hands")
    if not isinstance(raw_hands, dict):
        raise ValueError("hands must be an object {seat: hand}")
    hands = {_seat_key(k, seats, "hands"): _hand(v, rules, f"hands[{k}]") for k, v in raw_hands.items()}
    for seat in hands:
        if seat != dealer and seat not in bets:
            raise ValueError(f"hands: seat {seat} has no bet")
    after, payments, keeps = engine.settle_hand(rules, seats, dealer, points, bets, hands, streak)
    return {
        "points": {str(i): p for i, p in enumerate(after)},
        "dealer_keeps": keeps,
        "payments": payments,
    }


OPS = {
    "chinchirorin.hand": op_hand,
    "chinchirorin.compare": op_compare,
    "chinchirorin.opening": op_opening,
    "chinchirorin.roll_order": op_roll_order,
    "chinchirorin.settle": op_settle,
}
