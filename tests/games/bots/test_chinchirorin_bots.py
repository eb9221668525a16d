"""CPU players for Chinchirorin: each level's policy on hand-made views, and legality in real games."""

import random
from fractions import Fraction

import pytest

from games.bots import chinchirorin as B
from games.engine import chinchirorin as C

BETS = [{"type": "bet", "amount": a} for a in (10, 20, 50, 100)]
STEP = [{"type": "step_down", "down": False}, {"type": "step_down", "down": True}]


def view(points, phase="betting", dealer=0, hand_number=1, you=None):
    v = {
        "phase": phase,
        "awaiting": [],
        "turn": None,
        "players": [{"seat": i, "points": p, "resigned": False, "out": False, "reentries": 0}
                    for i, p in enumerate(points)],
        "table": {"dealer": dealer, "first_dealer_rolls": {}, "hand_number": hand_number, "dealer_streak": 0,
                  "bets": {}, "roll_order": [], "rolls": {}, "hands": {}, "last_hand": None},
        "result": None,
    }
    if you is not None:
        v["you"] = you
    return v


@pytest.mark.parametrize("level", B.LEVELS)
def test_a_forced_roll_is_returned_at_every_level(level):
    assert B.choose(view([1000, 1000]), [{"type": "roll"}], level, random.Random(1), seat=1) == {"type": "roll"}


def test_unknown_level_and_no_action():
    with pytest.raises(ValueError):
        B.choose(view([1000, 1000]), BETS, "expert", random.Random(1), seat=1)
    with pytest.raises(ValueError):
        B.choose(view([1000, 1000]), [], "easy", random.Random(1), seat=1)


def test_easy_picks_at_random_among_the_legal_actions():
    rng = random.Random(7)
    picks = {B.choose(view([1000, 1000]), BETS, "easy", rng, seat=1)["amount"] for _ in range(200)}
    assert picks == {10, 20, 50, 100}
    downs = {B.choose(view([1000, 1000], "step_down"), STEP, "easy", rng, seat=0)["down"] for _ in range(100)}
    assert downs == {True, False}


@pytest.mark.parametrize(("points", "amount"), [(1000, 50), (300, 10), (2000, 100), (999, 20), (100, 10)])
def test_normal_bets_about_five_percent_of_its_points(points, amount):
    v = view([1000, points], you=1)
    assert B.choose(v, BETS, "normal", random.Random(1)) == {"type": "bet", "amount": amount}


def test_normal_step_down_only_when_far_behind():
    stay = B.choose(view([900, 1000, 1100], "step_down"), STEP, "normal", random.Random(1))
    assert stay == {"type": "step_down", "down": False}
    # average 1000: below half of it, the dealer steps down
    down = B.choose(view([400, 1300, 1300], "step_down"), STEP, "normal", random.Random(1))
    assert down == {"type": "step_down", "down": True}


def test_player_edge_by_hand():
    # common, defaults: the dealer wins at once 329/864, loses at once 297/864 (per point bet, multiplied),
    # and against a rolling player with point v the dealer's net is (105 (2v - 7) - 32) / 864, summed over
    # v = 2..5 = -128/864, each with probability 105/864: dealer EV = 32/864 - 105 x 128 / 864^2.
    dealer_ev = Fraction(32, 864) - Fraction(105 * 128, 864 * 864)
    assert B.player_edge(C.validate_rules({"style": "common"})) == pytest.approx(-float(dealer_ev), abs=1e-12)
    assert B.player_edge(C.validate_rules({})) < -0.1  # streamer: ties go to the dealer


def test_hard_steps_down_exactly_when_dealing_loses_on_average():
    common = C.validate_rules({"style": "common"})
    v = view([1000, 1000, 1000], "step_down")
    assert B.choose(v, STEP, "hard", random.Random(1), rules=common)["down"] is False
    # with out_of_bowl on, the dealer's 1-in-36 throws out of the bowl lose at once: dealing is negative
    oob = C.validate_rules({"style": "common", "out_of_bowl": True})
    assert B.player_edge(oob) > 0
    assert B.choose(v, STEP, "hard", random.Random(1), rules=oob)["down"] is True
    assert B.choose(v, STEP, "hard", random.Random(1), rules={"style": "common", "out_of_bowl": True})["down"]


def test_hard_bets_small_when_leading_and_big_when_behind_late():
    rules = C.validate_rules({"rounds": 1})
    rng = random.Random(1)
    # leading: the smallest bet
    assert B.choose(view([900, 1200, 1000], you=1), BETS, "hard", rng, rules=rules)["amount"] == 10
    # behind by 300 on the last hand (3 seats, 1 round, hand 3): the largest
    assert B.choose(view([900, 1200, 1000], hand_number=3, you=0), BETS, "hard", rng, rules=rules)["amount"] == 100
    # behind by 40 with 3 hands left: 40 / 3 -> the smallest option covering it is 20
    assert B.choose(view([960, 1000, 900], hand_number=1, dealer=2, you=0), BETS, "hard", rng,
                    rules=rules)["amount"] == 20
    # its loss is capped by what it holds: bets the largest
    assert B.choose(view([80, 1500, 1420], dealer=2, you=0), BETS, "hard", rng, rules=rules)["amount"] == 100


def test_hands_left_estimate():
    streamer = C.validate_rules({"rounds": 2})
    assert B.hands_left(view([1, 1, 1], hand_number=1), streamer) == 6
    assert B.hands_left(view([1, 1, 1], hand_number=6), streamer) == 1
    common = C.validate_rules({"style": "common"})
    assert 2 < B.mean_dealer_hands(common) < 3  # kept with probability 1 - 297/864 ... at most 3 hands
    assert B.hands_left(view([1, 1], hand_number=1), common) == pytest.approx(2 * B.mean_dealer_hands(common))


@pytest.mark.parametrize("level", B.LEVELS)
@pytest.mark.parametrize("style", ["streamer", "common"])
def test_cpu_games_only_send_legal_actions_from_their_view(level, style):
    rules = C.validate_rules({"style": style, "first_dealer": "roll"})
    for seed in range(3):
        rng, bot_rng = random.Random(seed), random.Random(seed + 100)
        s, _ = C.initial_state(rules, 4, rng)
        while s["phase"] != "finished":
            seat = C.awaiting(s)[0]
            legal = C.legal_actions(s, seat)
            action = B.choose(C.view_for(s, seat), legal, level, bot_rng, seat=seat, rules=rules)
            assert action in legal
            s, _ = C.apply(s, seat, action, rng)


def test_seat_comes_from_you_or_the_awaited_turn():
    v = view([1000, 1000, 1000], you=2)
    v["turn"] = 1
    assert B.choose(v, BETS, "normal", random.Random(1))["amount"] == 50
    v = view([1000, 200, 1000])
    v["turn"] = 1  # no "you": the single awaited seat
    assert B.choose(v, BETS, "normal", random.Random(1))["amount"] == 10
