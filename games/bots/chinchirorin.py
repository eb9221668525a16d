"""CPU players for Chinchirorin: pure policies from what a seat sees to an action.

:func:`choose` ``(view, legal_actions, level, rng, *, seat=None, rules=None) -> action``. A policy sees
only the seat's view (the engine's ``view_for`` or the API view), the complete bodies it may send, and
the public room rules; never the engine state. Rolls are forced (the only legal action is ``roll``);
the decisions are the bet and, in the common style, the step-down question. Randomness only through
``rng`` (a ``random.Random``; the service derives it from the game seed and ``"bot:" + seq``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.engine.chinchirorin_rules import (
    COMMON,
    DEALER_LOSES,
    DEALER_WINS,
    STREAMER,
    Rules,
    compare,
    losing_dealer_hand,
    multiplier,
    opening,
    turn_distribution,
    validate_rules,
)

LEVELS = ("easy", "normal", "hard")
NORMAL_BET_SHARE = 0.05  # normal bets about 5 % of its points
NORMAL_STEP_DOWN_SHARE = 0.5  # normal steps down below half the table's average


# ------------------------------------------------------------------------------------------- odds
@lru_cache(maxsize=64)
def player_edge(rules: Rules) -> float:
    """A player's expected gain per point bet against the dealer under ``rules`` (points per point; the
    dealer's expected gain per point of each bet is its negative). Exact over the turn distribution of
    the rules file ("Throwing"), ignoring "paying what you can". Default streamer ≈ -0.123, common ≈ -0.019; common with ``out_of_bowl`` on ≈ +0.004.
    """
    dist = [({"hand": h, "value": v}, p) for (h, v), p in turn_distribution(rules).items()]

    def against(dealer_hand: dict) -> float:
        total = 0.0
        for player_hand, p in dist:
            winner, amount = compare(rules, 1, dealer_hand, player_hand)
            total += p * (amount if winner == "player" else -amount if winner == "dealer" else 0)
        return total

    edge = 0.0
    for dealer_hand, p in dist:
        if rules.style == COMMON:
            outcome = opening(rules, dealer_hand)
            if outcome == DEALER_WINS:
                edge -= p * multiplier(rules, dealer_hand, True)
                continue
            if outcome == DEALER_LOSES:
                edge += p * multiplier(rules, dealer_hand, False)
                continue
        edge += p * against(dealer_hand)
    return edge


@lru_cache(maxsize=64)
def mean_dealer_hands(rules: Rules) -> float:
    """Expected hands one dealer deals in a row: 1 in streamer; in common, each hand kept with the
    probability of a hand that is not a losing dealer hand, at most ``max_dealer_hands``."""
    if rules.style == STREAMER:
        return 1.0
    keep = sum(
        p for (h, v), p in turn_distribution(rules).items() if not losing_dealer_hand({"hand": h, "value": v})
    )
    return sum(keep**k for k in range(rules.max_dealer_hands))


# ------------------------------------------------------------------------------------------- reading the view
def _resolve_rules(view: dict, rules: Any) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, dict):
        return validate_rules(rules)
    if isinstance(view.get("rules"), dict):
        return validate_rules(view["rules"])
    return validate_rules({})


def _resolve_seat(view: dict, seat: int | None) -> int | None:
    if seat is not None:
        return seat
    if isinstance(view.get("you"), int):
        return view["you"]
    if view.get("phase") == "step_down":
        return view["table"]["dealer"]
    return view.get("turn")


def _points(view: dict) -> dict[int, int]:
    """Points of the seats still playing, by seat."""
    return {
        p["seat"]: p.get("points", p.get("score", 0)) for p in view["players"] if not p.get("resigned", False)
    }


def hands_left(view: dict, rules: Rules) -> float:
    """Estimated hands still to play, this one included (rules file, "End of the game"): the role moves
    N × rounds times; streamer moves it every hand, common on average every :func:`mean_dealer_hands`."""
    n = len(view["players"])
    hand_number = max(1, view["table"].get("hand_number") or 1)
    tenure = mean_dealer_hands(rules)
    moves_done = (hand_number - 1) / tenure
    return max(1.0, (n * rules.rounds - moves_done) * tenure)


# ------------------------------------------------------------------------------------------- policies
def _bet_body(amount: int) -> dict:
    return {"type": "bet", "amount": amount}


def _normal_bet(options: list[int], me: int) -> int:
    fits = [a for a in options if a <= NORMAL_BET_SHARE * me]
    return fits[-1] if fits else options[0]


def _hard_bet(options: list[int], view: dict, points: dict[int, int], seat: int | None, rules: Rules) -> int:
    if seat is None or seat not in points:
        return options[0]
    me = points[seat]
    dealer = view["table"].get("dealer")
    others = [p for s, p in points.items() if s != seat]
    if player_edge(rules) > 0:
        return options[-1]
    if not others:
        return options[0]
    deficit = max(others) - me
    if deficit < 0 or (deficit == 0 and dealer is not None):
        return options[0]  # leading (or level): keep the swings small against a dealer's edge
    left = hands_left(view, rules)
    if left <= 1.5 or me <= options[-1]:
        return options[-1]  # last chance, or a loss is capped by what it holds
    need = deficit / left
    big_enough = [a for a in options if a >= need]
    return big_enough[0] if big_enough else options[-1]


def choose(
    view: dict,
    legal_actions: list[dict],
    level: str,
    rng,
    *,
    seat: int | None = None,
    rules: Rules | dict | None = None,
) -> dict:
    """The CPU's action: one of ``legal_actions`` (complete bodies), as a fresh dict.

    ``view``: the seat's view (``view_for`` / API view: ``players``, ``table``, ``phase``; ``you`` if
    present names the seat); ``level``: ``"easy"`` | ``"normal"`` | ``"hard"``; ``rng``: ``random.Random``;
    ``seat``: the deciding seat when the view does not say (``you``); ``rules``: the room's public rules
    (:class:`Rules` or settings), defaults when not given.
    Raises ``ValueError`` for an unknown level or no legal action.

    - A forced action (``roll``, the only one offered) is returned as is at every level.
    - **easy**: a uniformly random legal action (any bet, step down or stay at even odds).
    - **normal**: a fixed policy. Bets the largest option not above 5 % of its points (the smallest if
      none), i.e. 50 of 1000 with the default options; as dealer, stays unless its points are below half
      the average of the seats still playing.
    - **hard**: sizes bets from its points relative to the others and the hands left
      (:func:`hands_left`): the smallest bet while leading or level (a player's edge against the dealer is
      negative, :func:`player_edge`); when behind, the smallest option covering the deficit spread over
      the hands left; the largest on the last hand, when its points are no more than the largest option
      (its loss is capped by what it holds), or if the player's edge were ever positive. As dealer, steps
      down exactly when the expected value of dealing is negative given the multipliers
      (``-player_edge(rules) < 0``), else stays.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown CPU level {level!r}; one of easy, normal, hard")
    if not legal_actions:
        raise ValueError("no legal action to choose from")
    kinds = {a["type"] for a in legal_actions}
    if kinds == {"roll"}:
        return dict(legal_actions[0])
    if level == "easy":
        return dict(rng.choice(legal_actions))
    resolved = _resolve_rules(view, rules)
    me_seat = _resolve_seat(view, seat)
    points = _points(view)
    if "bet" in kinds:
        options = sorted(a["amount"] for a in legal_actions if a["type"] == "bet")
        if level == "normal":
            me = points.get(me_seat, resolved.starting_points) if me_seat is not None else resolved.starting_points
            return _bet_body(_normal_bet(options, me))
        return _bet_body(_hard_bet(options, view, points, me_seat, resolved))
    if "step_down" in kinds:
        if level == "normal":
            avg = sum(points.values()) / len(points) if points else 0
            down = me_seat in points and points[me_seat] < NORMAL_STEP_DOWN_SHARE * avg
        else:
            down = -player_edge(resolved) < 0
        return {"type": "step_down", "down": bool(down)}
    return dict(rng.choice(legal_actions))
