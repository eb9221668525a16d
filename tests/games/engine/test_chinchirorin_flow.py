"""The Chinchirorin state machine, driven with scripted dice; every expected value worked out by hand
from rules/chinchirorin.md ("Play styles", "Paying what you can", "The flow of a game", "Resigning")."""

import copy
import json
import random

import pytest

from games.engine import chinchirorin as C
from games.engine.errors import IllegalAction, InvalidAction, NotYourTurn


class ScriptedRng:
    """An rng whose dice are given in advance, in the order the engine asks for them.

    ``script`` items: an int (one first-dealer die), a list of three dice (one throw), or ``None`` (a throw
    out of the bowl). Asking for more than scripted, or for the wrong kind, fails the test.
    """

    def __init__(self, *script):
        self.script = list(script)
        self.oob_checks = 0

    def _next(self):
        assert self.script, "the engine asked for more dice than the test scripted"
        return self.script.pop(0)

    def randint(self, a, b):
        item = self._next()
        assert isinstance(item, int) and (a, b) == (1, 6), f"expected a die, script has {item!r}"
        return item

    def randrange(self, n):
        assert n == 36
        self.oob_checks += 1
        if self.script and self.script[0] is None:
            self.script.pop(0)
            return 0
        return 7

    def choices(self, population, k):
        item = self._next()
        assert isinstance(item, list) and k == 3 and list(population) == [1, 2, 3, 4, 5, 6], item
        return list(item)

    def random(self):  # pragma: no cover - the engine never needs it
        raise AssertionError("unexpected rng.random()")


def start(seats=3, **settings):
    """A new game; ``first_dealer`` defaults to ``seat`` so seat 0 deals and betting opens at once."""
    settings.setdefault("first_dealer", "seat")
    state, _ = C.initial_state(C.validate_rules(settings), seats, ScriptedRng())
    return state


def act(state, seat, action, *script):
    """Apply one action with scripted dice; checks every scripted die was used and the input unchanged."""
    before = copy.deepcopy(state)
    rng = ScriptedRng(*script)
    new, events = C.apply(state, seat, action, rng)
    assert state == before, "apply mutated its input"
    assert not rng.script, f"dice left unused: {rng.script}"
    return new, events


def bet(state, seat, amount):
    return act(state, seat, {"type": "bet", "amount": amount})[0]


def roll(state, seat, *throws):
    """``seat`` throws each of ``throws`` in turn (one action each); returns the state and all events."""
    events = []
    for t in throws:
        state, ev = act(state, seat, {"type": "roll"}, t)
        events += ev
    return state, events


def payments(events):
    return [{k: e[k] for k in ("from", "to", "amount")} for e in events if e["type"] == "payment"]


def H(name, value=None):
    return {"hand": name, "value": value}


ROLL = {"type": "roll"}
RESIGN = {"type": "resign"}


# ------------------------------------------------------------------------------------------ start
def test_seat_first_dealer_opens_betting_at_once():
    s = start(3)
    assert (s["phase"], s["dealer"], s["hand_number"], s["window"]) == ("betting", 0, 1, 1)
    assert C.awaiting(s) == [1, 2]
    assert C.legal_actions(s, 1) == [{"type": "bet", "amount": a} for a in (10, 20, 50, 100)]
    assert C.legal_actions(s, 0) == []
    assert C.other_actions(s, 0) == [RESIGN]
    assert s["points"] == [1000, 1000, 1000]


def test_first_dealer_by_roll_with_two_re_rolls():
    s = start(4, first_dealer="roll")
    assert (s["phase"], s["dealer"], s["hand_number"], s["window"]) == ("first_dealer", None, 0, 1)
    assert C.awaiting(s) == [0] and C.legal_actions(s, 0) == [ROLL]
    with pytest.raises(NotYourTurn):
        act(s, 1, ROLL, 3)
    s, ev = act(s, 0, ROLL, 6)
    assert ev == [{"type": "first_dealer_roll", "audience": "all", "seat": 0, "die": 6}]
    s, _ = act(s, 1, ROLL, 2)
    s, _ = act(s, 2, ROLL, 6)
    s, ev = act(s, 3, ROLL, 6)
    assert ev[-1] == {"type": "first_dealer_tie", "audience": "all", "seats": [0, 2, 3]}
    assert C.awaiting(s) == [0] and s["window"] == 5
    s, _ = act(s, 0, ROLL, 5)
    s, _ = act(s, 2, ROLL, 5)
    s, _ = act(s, 3, ROLL, 3)  # 0 and 2 tie again at 5; 3 is out
    assert C.awaiting(s) == [0] and s["window"] == 8
    s, _ = act(s, 0, ROLL, 1)
    s, ev = act(s, 2, ROLL, 4)
    assert s["dealer"] == 2 and s["phase"] == "betting" and s["hand_number"] == 1 and s["window"] == 10
    assert C.awaiting(s) == [0, 1, 3]
    assert C.view_for(s, 1)["table"]["first_dealer_rolls"] == {"0": [6, 5, 1], "1": [2], "2": [6, 5, 4], "3": [6, 3]}
    assert [e["type"] for e in ev] == ["first_dealer_roll", "dealer", "hand_started"]


# ------------------------------------------------------------------------------------------ streamer
def test_streamer_hand_from_bets_to_settlement():
    s = start(3)
    s = bet(s, 1, 50)
    assert C.awaiting(s) == [2] and C.legal_actions(s, 1) == []
    assert C.other_actions(s, 1) == [{"type": "bet", "amount": a} for a in (10, 20, 100)] + [RESIGN]
    s = bet(s, 2, 20)
    assert s["phase"] == "rolling" and s["roll_order"] == [2, 1, 0] and C.awaiting(s) == [2]
    assert s["window"] == 2
    s, ev = roll(s, 2, [1, 3, 5])
    assert ev == [{"type": "throw", "audience": "all", "seat": 2, "throw": 1, "dice": [1, 3, 5]}]
    assert C.awaiting(s) == [2] and s["window"] == 3 and s["hands"] == {}
    s, _ = roll(s, 2, [2, 5, 5])
    assert s["hands"] == {"2": H("point", 2)} and C.awaiting(s) == [1] and s["window"] == 4
    s, _ = roll(s, 1, [6, 4, 5])
    assert C.awaiting(s) == [0] and s["window"] == 5
    s, ev = roll(s, 0, [3, 1, 1])
    # dealer point 3: collects 20 from seat 2 first, then pays seat 1 50 x 2 x 1
    assert payments(ev) == [{"from": 2, "to": 0, "amount": 20}, {"from": 0, "to": 1, "amount": 100}]
    assert s["points"] == [920, 1100, 980]
    assert [e["type"] for e in ev] == [
        "throw", "hand", "payment", "payment", "hand_settled", "dealer", "hand_started"
    ]
    table = C.view_for(s, None)["table"]
    assert table["last_hand"] == {
        "hand_number": 1, "dealer": 0, "bets": {"1": 50, "2": 20},
        "rolls": {"2": [[1, 3, 5], [2, 5, 5]], "1": [[6, 4, 5]], "0": [[3, 1, 1]]},
        "hands": {"2": H("point", 2), "1": H("shigoro"), "0": H("point", 3)},
        "payments": [{"from": 2, "to": 0, "amount": 20}, {"from": 0, "to": 1, "amount": 100}],
        "points_after": {"0": 920, "1": 1100, "2": 980},
    }
    # the role moved to seat 1 and hand 2 is open
    assert (table["dealer"], table["hand_number"], table["dealer_streak"]) == (1, 2, 0)
    assert (table["bets"], table["rolls"], table["hands"], table["roll_order"]) == ({}, {}, {}, [])
    assert s["phase"] == "betting" and C.awaiting(s) == [0, 2] and s["window"] == 6 and s["moves"] == 1


def test_streamer_no_point_after_three_throws_and_out_of_bowl_off_never_asks():
    s = start(2)
    s = bet(s, 1, 10)
    rng = ScriptedRng([1, 2, 4])
    s, _ = C.apply(s, 1, ROLL, rng)
    assert rng.oob_checks == 0
    s, _ = roll(s, 1, [2, 3, 5], [6, 5, 3])
    assert s["hands"] == {"1": H("no_point")} and C.awaiting(s) == [0]
    s, ev = roll(s, 0, [1, 2, 3])  # dealer hifumi loses to no_point: pays 10 x 1 x 2
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 20}]


def test_streamer_out_of_bowl_player_loses_even_to_a_dealer_out_of_bowl():
    s = start(2, out_of_bowl=True)
    s = bet(s, 1, 10)
    s, ev = roll(s, 1, None)
    assert ev[0]["dice"] is None and s["hands"] == {"1": H("out_of_bowl")} and s["rolls"] == {"1": [None]}
    s, ev = roll(s, 0, None)
    assert payments(ev) == [{"from": 1, "to": 0, "amount": 10}]
    assert s["points"] == [1010, 990]


def test_streamer_dealer_out_of_bowl_loses_to_a_player_hand():
    s = start(2, out_of_bowl=True)
    s = bet(s, 1, 20)
    s, _ = roll(s, 1, [1, 2, 4], [3, 3, 3])  # no hand, then arashi 3 (the out-of-bowl check said no twice)
    s, ev = roll(s, 0, None)
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 60}]  # 20 x 3 x 1


def test_streamer_short_dealer_and_short_player_pay_what_they_hold():
    s = start(3, starting_points=100)
    s = bet(s, 1, 100)
    s = bet(s, 2, 100)
    assert s["roll_order"] == [1, 2, 0]  # equal bets: seat order from the seat after the dealer
    s, _ = roll(s, 1, [1, 1, 1])  # pinzoro
    s, _ = roll(s, 2, [2, 2, 6])  # point 6
    s, ev = roll(s, 0, [5, 5, 5])  # arashi 5
    # seat 2 owes 100 x 3 x 1 = 300, holds 100; then the dealer (200) owes seat 1 100 x 5 x 3 = 1500
    assert payments(ev) == [{"from": 2, "to": 0, "amount": 100}, {"from": 0, "to": 1, "amount": 200}]
    assert s["points"] == [0, 300, 0]
    assert s["phase"] == "finished"
    assert C.outcome(s) == {
        "standing": [{"seat": 1, "place": 1, "points": 300}, {"seat": 0, "place": 2, "points": 0},
                     {"seat": 2, "place": 2, "points": 0}],
        "reason": "zero_points",
    }
    assert s["moves"] == 0  # the game ended before the role moved


def test_streamer_rounds_count_hands():
    for rounds, seats in ((1, 3), (2, 2), (3, 2)):
        rng = random.Random(rounds)
        s, _ = C.initial_state(C.validate_rules({"rounds": rounds, "starting_points": 100000}), seats, rng)
        while s["phase"] != "finished":
            seat = C.awaiting(s)[0]
            s, _ = C.apply(s, seat, C.default_action(s, seat), rng)
        assert s["hand_number"] == seats * rounds and s["moves"] == seats * rounds
        assert C.outcome(s)["reason"] == "rounds_complete"


# -------------------------------------------------------------------------------------------- common
def test_common_dealer_wins_at_once_then_stays_then_max_dealer_hands_moves_the_role():
    s = start(3, style="common", max_dealer_hands=2)
    s = bet(s, 1, 10)
    s = bet(s, 2, 100)
    assert s["roll_order"] == [1, 2] and C.awaiting(s) == [0]  # the dealer rolls first
    s, ev = roll(s, 0, [6, 6, 6])
    assert [e for e in ev if e["type"] == "opening"][0]["outcome"] == "dealer_wins"
    assert payments(ev) == [{"from": 1, "to": 0, "amount": 30}, {"from": 2, "to": 0, "amount": 300}]
    assert s["points"] == [1330, 970, 700]
    # the dealer kept the role: asked to step down before the bets
    view = C.view_for(s, 0)
    assert (view["phase"], view["awaiting"], view["turn"]) == ("step_down", [0], 0)
    assert (view["table"]["hand_number"], view["table"]["dealer_streak"]) == (1, 1)
    assert C.legal_actions(s, 0) == [{"type": "step_down", "down": False}, {"type": "step_down", "down": True}]
    assert C.legal_actions(s, 1) == [] and C.other_actions(s, 1) == [RESIGN]
    assert C.default_action(s, 0) == {"type": "step_down", "down": False}
    w = s["window"]
    s, _ = act(s, 0, {"type": "step_down", "down": False})
    assert s["phase"] == "betting" and s["hand_number"] == 2 and s["dealer_streak"] == 1 and s["window"] == w + 1
    s = bet(s, 1, 10)
    s = bet(s, 2, 10)
    s, ev = roll(s, 0, [2, 2, 5])  # point 5: players roll
    assert [e for e in ev if e["type"] == "opening"][0]["outcome"] == "players_roll"
    assert C.awaiting(s) == [1]
    s, ev = roll(s, 1, [3, 3, 6])  # point 6 beats point 5: paid at once
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 10}] and s["points"] == [1320, 980, 700]
    s, ev = roll(s, 2, [1, 2, 4], [1, 2, 4], [1, 2, 4])  # no_point loses 10 x max(1, 1)
    assert payments(ev) == [{"from": 2, "to": 0, "amount": 10}]
    assert s["points"] == [1330, 980, 690]
    # second hand in a row with max_dealer_hands 2: the role moves, the new dealer is not asked
    assert (s["dealer"], s["dealer_streak"], s["phase"], s["moves"]) == (1, 0, "betting", 1)
    assert C.awaiting(s) == [0, 2]


def test_common_dealer_point_1_loses_at_once_and_step_down_that_ends_the_game():
    s = start(2, style="common")
    s = bet(s, 1, 20)
    s, ev = roll(s, 0, [5, 5, 1])  # point 1: pays 20 x 1, passes the role
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 20}]
    assert (s["dealer"], s["moves"], s["phase"]) == (1, 1, "betting")
    s = bet(s, 0, 50)
    s, ev = roll(s, 1, [4, 5, 6])  # shigoro wins 50 x 2
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 100}]
    assert s["phase"] == "step_down" and C.awaiting(s) == [1]
    s, ev = act(s, 1, {"type": "step_down", "down": True})
    # 2 seats x 1 round = 2 moves: the step-down's move ends the game before another hand
    assert s["phase"] == "finished" and s["moves"] == 2 and s["hand_number"] == 2
    assert [e["type"] for e in ev] == ["step_down", "dealer", "game_over"]
    assert C.outcome(s) == {
        "standing": [{"seat": 1, "place": 1, "points": 1120}, {"seat": 0, "place": 2, "points": 880}],
        "reason": "rounds_complete",
    }


def test_common_step_down_moves_the_role_and_the_new_dealer_is_not_asked():
    s = start(3, style="common")
    s = bet(s, 1, 10)
    s = bet(s, 2, 10)
    s, _ = roll(s, 0, [3, 3, 3])
    s, ev = act(s, 0, {"type": "step_down", "down": True})
    assert (s["dealer"], s["moves"], s["phase"], s["hand_number"], s["dealer_streak"]) == (1, 1, "betting", 2, 0)
    assert C.awaiting(s) == [0, 2]
    assert ev[1] == {"type": "dealer", "audience": "all", "seat": 1, "previous": 0, "reason": "step_down"}


def test_common_example_7_dealer_hifumi_pays_everyone_and_passes():
    s = start(3, style="common")
    s = bet(s, 1, 20)
    s = bet(s, 2, 20)
    s, ev = roll(s, 0, [2, 3, 1])
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 40}, {"from": 0, "to": 2, "amount": 40}]
    assert s["points"] == [920, 1040, 1040] and s["dealer"] == 1


def test_common_hifumi_multiplier_1():
    s = start(2, style="common", hifumi_multiplier=1)
    s = bet(s, 1, 20)
    s, ev = roll(s, 0, [2, 3, 1])
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 20}]


def test_common_pinzoro_multiplier_setting():
    s = start(2, style="common", pinzoro_multiplier=7)
    s = bet(s, 1, 10)
    s, ev = roll(s, 0, [1, 1, 1])
    assert payments(ev) == [{"from": 1, "to": 0, "amount": 70}]


def test_common_dealer_out_of_bowl_loses_at_once():
    s = start(3, style="common", out_of_bowl=True)
    s = bet(s, 1, 50)
    s = bet(s, 2, 10)
    s, ev = roll(s, 0, None)
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 50}, {"from": 0, "to": 2, "amount": 10}]
    assert s["dealer"] == 1


def test_common_dealer_reaching_zero_mid_hand_ends_it_and_the_game():
    s = start(4, style="common", starting_points=100)
    for seat in (1, 2, 3):
        s = bet(s, seat, 100)
    s, _ = roll(s, 0, [3, 3, 2])  # point 2: players roll
    s, ev = roll(s, 1, [1, 1, 1])  # pinzoro: owed 100 x 5, the dealer holds 100
    assert payments(ev) == [{"from": 0, "to": 1, "amount": 100}]
    assert s["points"] == [0, 200, 100, 100] and s["phase"] == "finished"
    assert s["last_hand"]["rolls"] == {"0": [[3, 3, 2]], "1": [[1, 1, 1]]}  # 2 and 3 never rolled
    assert C.outcome(s) == {
        "standing": [{"seat": 1, "place": 1, "points": 200}, {"seat": 2, "place": 2, "points": 100},
                     {"seat": 3, "place": 2, "points": 100}, {"seat": 0, "place": 4, "points": 0}],
        "reason": "zero_points",
    }


def test_common_short_dealer_loses_at_once_pays_from_the_seat_after_it():
    s = start(3, style="common", starting_points=100, first_dealer="roll")
    s, _ = act(s, 0, ROLL, 2)
    s, _ = act(s, 1, ROLL, 5)
    s, _ = act(s, 2, ROLL, 3)
    assert s["dealer"] == 1
    s = bet(s, 0, 100)
    s = bet(s, 2, 100)
    assert s["roll_order"] == [2, 0]
    s, ev = roll(s, 1, [3, 2, 1])  # hifumi: owes 200 to seat 2 first, then 200 to seat 0; holds 100
    assert payments(ev) == [{"from": 1, "to": 2, "amount": 100}]
    assert s["points"] == [100, 0, 200] and C.outcome(s)["reason"] == "zero_points"


def test_common_rounds_and_max_dealer_hands_1_move_every_hand():
    rng = random.Random(5)
    rules = C.validate_rules({"style": "common", "max_dealer_hands": 1, "rounds": 2, "starting_points": 100000})
    s, _ = C.initial_state(rules, 3, rng)
    while s["phase"] != "finished":
        seat = C.awaiting(s)[0]
        assert s["phase"] != "step_down"
        s, _ = C.apply(s, seat, C.default_action(s, seat), rng)
    assert s["hand_number"] == 6 and s["moves"] == 6 and C.outcome(s)["reason"] == "rounds_complete"


# ----------------------------------------------------------------------------------------- bets
def test_bets_change_until_the_last_seat_chooses_and_defaults():
    s = start(3)
    assert C.default_action(s, 1) == {"type": "bet", "amount": 10}  # no earlier hand: smallest option
    s = bet(s, 1, 10)
    with pytest.raises(IllegalAction):
        act(s, 1, {"type": "bet", "amount": 10})  # re-posting the bet already placed
    with pytest.raises(IllegalAction):
        act(s, 2, {"type": "bet", "amount": 30})  # not an option
    s = bet(s, 1, 100)
    assert s["bets"] == {"1": 100} and C.awaiting(s) == [1, 2][1:]
    s = bet(s, 2, 50)
    assert s["roll_order"] == [2, 1, 0]
    with pytest.raises(NotYourTurn):
        act(s, 1, {"type": "bet", "amount": 20})  # the betting is closed
    s, _ = roll(s, 2, [2, 2, 3])
    s, _ = roll(s, 1, [2, 2, 3])
    s, _ = roll(s, 0, [2, 2, 3])
    # hand 2, dealer 1: each seat's default is its latest bet in an earlier hand
    assert C.default_action(s, 2) == {"type": "bet", "amount": 50}
    assert C.default_action(s, 0) == {"type": "bet", "amount": 10}
    with pytest.raises(NotYourTurn):
        C.default_action(s, 1)
    s = bet(s, 2, 20)
    assert C.default_action(s, 0) == {"type": "bet", "amount": 10}


def test_bet_options_setting():
    s = start(2, bet_options=[5, 500])
    assert C.legal_actions(s, 1) == [{"type": "bet", "amount": 5}, {"type": "bet", "amount": 500}]
    with pytest.raises(IllegalAction):
        act(s, 1, {"type": "bet", "amount": 10})


def test_reposting_the_only_bet_option_is_illegal_not_out_of_turn():
    # API.md "Games": re-posting the bet already placed is illegal_action, even when bet_options has a
    # single amount (so other_actions lists no other bet for the seat).
    s = start(3, bet_options=[25])
    s = bet(s, 1, 25)
    assert C.other_actions(s, 1) == [RESIGN]
    with pytest.raises(IllegalAction):
        act(s, 1, {"type": "bet", "amount": 25})
    with pytest.raises(IllegalAction):
        act(s, 1, {"type": "bet", "amount": 10})  # a bet type with an amount not offered
    with pytest.raises(NotYourTurn):
        act(s, 0, {"type": "bet", "amount": 25})  # the dealer never bets
    s = bet(s, 2, 25)
    assert s["phase"] == "rolling"
    with pytest.raises(NotYourTurn):
        act(s, 1, {"type": "bet", "amount": 25})  # the betting is closed


# ------------------------------------------------------------------------------------------ resigning
def test_resigning_roller_passes_the_turn_and_is_not_paid():
    s = start(3)
    s = bet(s, 1, 10)
    s = bet(s, 2, 20)
    assert s["roll_order"] == [1, 2, 0]
    s, _ = roll(s, 1, [1, 2, 4])
    w = s["window"]
    s, ev = act(s, 1, RESIGN)
    assert C.awaiting(s) == [2] and s["window"] == w + 1
    assert ev == [{"type": "resigned", "audience": "all", "seat": 1}]
    assert C.legal_actions(s, 1) == [] and C.other_actions(s, 1) == []
    with pytest.raises(NotYourTurn):
        act(s, 1, RESIGN)
    s, _ = roll(s, 2, [2, 2, 3])
    s, ev = roll(s, 0, [4, 4, 2])
    assert payments(ev) == [{"from": 0, "to": 2, "amount": 20}]
    assert s["points"] == [980, 1000, 1020]
    assert s["last_hand"]["rolls"]["1"] == [[1, 2, 4]]
    assert s["dealer"] == 2  # the role skips the resigned seat 1


def test_resigning_last_bettor_closes_the_betting():
    s = start(4)
    s = bet(s, 1, 10)
    s = bet(s, 2, 50)
    s, ev = act(s, 3, RESIGN)
    assert s["phase"] == "rolling" and s["roll_order"] == [1, 2, 0] and C.awaiting(s) == [1]
    assert [e["type"] for e in ev] == ["resigned", "betting_closed"]
    assert s["bets"] == {"1": 10, "2": 50}


def test_resigning_bettor_who_had_chosen_is_dropped():
    s = start(3)
    s = bet(s, 1, 10)
    s, _ = act(s, 1, RESIGN)
    assert s["bets"] == {} and C.awaiting(s) == [2] and s["phase"] == "betting"
    s = bet(s, 2, 20)
    assert s["roll_order"] == [2, 0]


def test_resigning_dealer_ends_the_hand_without_payments_and_the_role_moves():
    s = start(3)
    s = bet(s, 1, 10)
    s = bet(s, 2, 20)
    s, _ = roll(s, 1, [2, 2, 6])
    s, _ = roll(s, 2, [3, 3, 1])
    s, ev = act(s, 0, RESIGN)
    assert s["points"] == [1000, 1000, 1000]
    assert s["last_hand"]["payments"] == [] and s["last_hand"]["hand_number"] == 1
    assert (s["dealer"], s["moves"], s["phase"], s["hand_number"]) == (1, 1, "betting", 2)
    assert C.awaiting(s) == [2]
    assert [e["type"] for e in ev] == ["resigned", "hand_settled", "dealer", "hand_started"]


def test_resigning_common_dealer_keeps_payments_already_made():
    s = start(3, style="common")
    s = bet(s, 1, 10)
    s = bet(s, 2, 10)
    s, _ = roll(s, 0, [2, 2, 4])
    s, _ = roll(s, 1, [5, 5, 6])
    s, _ = act(s, 0, RESIGN)
    assert s["points"] == [990, 1010, 1000]
    assert s["last_hand"]["payments"] == [{"from": 0, "to": 1, "amount": 10}]
    assert s["dealer"] == 1 and s["phase"] == "betting" and s["moves"] == 1


def test_resigning_dealer_at_the_step_down_question():
    s = start(3, style="common")
    s = bet(s, 1, 10)
    s = bet(s, 2, 10)
    s, _ = roll(s, 0, [6, 6, 6])
    s, _ = act(s, 0, RESIGN)
    assert (s["dealer"], s["moves"], s["phase"]) == (1, 1, "betting") and C.awaiting(s) == [2]


def test_resignation_leaving_one_seat_ends_the_game_with_resigned_seats_below():
    s = start(3)
    s = bet(s, 1, 10)
    s = bet(s, 2, 100)
    s, _ = roll(s, 1, [1, 2, 3])
    s, _ = roll(s, 2, [6, 6, 6])
    s, _ = roll(s, 0, [2, 2, 1])  # point 1: takes 10 x 1 x 2 from 1, pays 100 x 3 to 2
    assert s["points"] == [720, 980, 1300]
    s, _ = act(s, 2, RESIGN)  # during hand 2's betting
    s, ev = act(s, 1, RESIGN)
    assert s["phase"] == "finished" and C.awaiting(s) == []
    assert C.outcome(s) == {
        "standing": [{"seat": 0, "place": 1, "points": 720}, {"seat": 1, "place": 2, "points": 980},
                     {"seat": 2, "place": 3, "points": 1300}],
        "reason": "resignations",
    }
    assert s["last_hand"]["hand_number"] == 2  # the open hand is closed as it stood
    assert ev[-1]["type"] == "game_over"
    for seat in range(3):
        assert C.legal_actions(s, seat) == [] and C.other_actions(s, seat) == []
    with pytest.raises(NotYourTurn):
        act(s, 0, ROLL)


def test_resigning_during_the_first_dealer_roll():
    s = start(3, first_dealer="roll")
    s, _ = act(s, 2, RESIGN)  # not awaited: no new window
    assert C.awaiting(s) == [0] and s["window"] == 1
    s, _ = act(s, 0, RESIGN)
    assert C.awaiting(s) == [] and s["phase"] == "finished"
    s = start(3, first_dealer="roll")
    s, _ = act(s, 0, ROLL, 6)
    s, _ = act(s, 0, RESIGN)
    s, _ = act(s, 1, ROLL, 2)
    s, _ = act(s, 2, ROLL, 3)
    assert s["dealer"] == 2 and C.awaiting(s) == [1]


# --------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "action",
    [
        None, [], {}, {"type": "dance"}, {"type": 3}, {"type": "bet"}, {"type": "bet", "amount": True},
        {"type": "bet", "amount": "20"}, {"type": "bet", "amount": 20.0}, {"type": "bet", "amount": 20, "x": 1},
        {"type": "roll", "times": 2}, {"type": "step_down"}, {"type": "step_down", "down": 1},
        {"type": "resign", "now": True},
    ],
)
def test_malformed_actions(action):
    with pytest.raises(InvalidAction):
        C.apply(start(3), 1, action, ScriptedRng())


def test_not_your_turn_and_illegal():
    s = start(3)
    with pytest.raises(NotYourTurn):
        act(s, 0, {"type": "bet", "amount": 10})  # the dealer does not bet
    with pytest.raises(NotYourTurn):
        act(s, 1, ROLL)
    with pytest.raises(NotYourTurn):
        act(s, 0, {"type": "step_down", "down": True})
    with pytest.raises(InvalidAction):
        C.apply(s, 3, ROLL, ScriptedRng())
    with pytest.raises(InvalidAction):
        C.apply(s, True, ROLL, ScriptedRng())


# ----------------------------------------------------------------------------------------- view/state
def test_view_shape():
    s = start(3)
    s = bet(s, 1, 20)
    v = C.view_for(s, 2)
    assert set(v) == {"phase", "awaiting", "turn", "players", "table", "result"}
    assert set(v["table"]) == {
        "dealer", "first_dealer_rolls", "hand_number", "dealer_streak", "bets", "roll_order", "rolls", "hands",
        "last_hand",
    }
    assert v["players"][1] == {"seat": 1, "points": 1000, "resigned": False, "out": False, "reentries": 0}
    assert (v["phase"], v["awaiting"], v["turn"], v["result"]) == ("betting", [2], 2, None)
    assert v["table"]["bets"] == {"1": 20}
    assert C.view_for(start(3), None)["turn"] is None  # two seats awaited
    assert C.view_for(s, None) == v  # nothing is hidden in chinchirorin
    text = json.dumps(v)
    assert "seed" not in text and "rng" not in text
    v["table"]["bets"]["1"] = 999
    v["players"][0]["points"] = 0
    assert s["bets"] == {"1": 20} and s["points"][0] == 1000  # a view is a copy


def test_round_trip_and_schema():
    s = start(3, style="common", out_of_bowl=True)
    s = bet(s, 1, 10)
    s = bet(s, 2, 20)
    s, _ = roll(s, 0, [2, 2, 3])
    s, _ = roll(s, 1, None)
    again = C.from_dict(json.loads(json.dumps(C.to_dict(s))))
    assert again == s and again["schema"] == 1 and C.window(again) == s["window"]
    with pytest.raises(ValueError):
        C.from_dict({**C.to_dict(s), "schema": 99})
    with pytest.raises(ValueError):
        C.from_dict({"game": "chinchon"})


def test_apply_never_mutates_even_across_a_hand_end():
    s = start(2)
    s = bet(s, 1, 10)
    s, _ = roll(s, 1, [2, 2, 3])
    frozen = copy.deepcopy(s)
    new, _ = C.apply(s, 0, ROLL, ScriptedRng([4, 4, 5]))
    assert s == frozen and new["last_hand"] is not None and s["last_hand"] is None
