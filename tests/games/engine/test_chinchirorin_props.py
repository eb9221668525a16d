"""Properties of whole Chinchirorin games (hypothesis), the dice frequencies of a whole turn, and the
purity of the engine and bot packages."""

import itertools
import json
import math
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import chinchirorin as C
from tests.games.engine.test_chinchirorin_rules import ALL_THROWS

SETTINGS = st.fixed_dictionaries({
    "style": st.sampled_from(["streamer", "common"]),
    "pinzoro_multiplier": st.integers(1, 10),
    "hifumi_multiplier": st.sampled_from([1, 2]),
    "out_of_bowl": st.booleans(),
    "first_dealer": st.sampled_from(["roll", "seat"]),
    "rounds": st.integers(1, 3),
    "starting_points": st.sampled_from([100, 250, 1000, 100000]),
    "bet_options": st.lists(st.integers(1, 300), min_size=1, max_size=6, unique=True).map(sorted),
    "max_dealer_hands": st.integers(1, 10),
})


def play(rules, seats, seed, resign_rate, change_rate):
    """Random legal play: awaited seats answer at random; now and then a seat changes its bet or resigns.
    Checks the invariants after every action; returns (final state, all events)."""
    rng = random.Random(seed)
    pick = random.Random(seed + 1)
    state, events = C.initial_state(rules, seats, rng)
    total = seats * rules.starting_points
    snapshots = []  # (an earlier state, its JSON then): later transitions must not change it either
    for step in range(50000):
        if state["phase"] == "finished":
            for old, text in snapshots:
                assert json.dumps(old, sort_keys=True) == text
            return state, events
        if step % 25 == 0:
            snapshots.append((state, json.dumps(state, sort_keys=True)))
        playing = [i for i in range(seats) if not state["resigned"][i]]
        seat = pick.choice(C.awaiting(state))
        actions = C.legal_actions(state, seat)
        roll = pick.random()
        if roll < resign_rate:
            seat = pick.choice(playing)
            actions = [{"type": "resign"}]
        elif roll < resign_rate + change_rate:
            other = pick.choice(playing)
            changes = [a for a in C.other_actions(state, other) if a["type"] == "bet"]
            if changes:
                seat, actions = other, changes
        action = pick.choice(actions)
        window = state["window"]
        before = json.dumps(state, sort_keys=True)
        previous = state
        state, new_events = C.apply(state, seat, action, rng)
        assert json.dumps(previous, sort_keys=True) == before, "apply mutated its input"
        events += new_events
        assert sum(state["points"]) == total
        assert min(state["points"]) >= 0
        assert state["window"] >= window
        assert C.from_dict(json.loads(json.dumps(C.to_dict(state)))) == state
    raise AssertionError("the game did not end")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    SETTINGS,
    st.integers(2, 8),
    st.integers(0, 2**32),
    st.sampled_from([0.0, 0.0, 0.003, 0.03]),
    st.sampled_from([0.0, 0.05]),
)
def test_random_legal_play_ends_and_keeps_the_invariants(settings_, seats, seed, resign_rate, change_rate):
    rules = C.validate_rules(settings_, seats)
    state, events = play(rules, seats, seed, resign_rate, change_rate)
    result = C.outcome(state)
    n = seats
    limit = n * rules.rounds
    kinds = [e["type"] for e in events]
    moves = [e for e in events if e["type"] == "dealer" and e["reason"] != "first_dealer"]
    hands = kinds.count("hand_settled")
    resigned = any(state["resigned"])
    # every opened hand was closed; moves counted; never more than N x rounds
    assert hands == state["hand_number"] == kinds.count("hand_started")
    assert len(moves) == state["moves"] <= limit
    if result["reason"] == "rounds_complete":
        assert state["moves"] == limit
    elif result["reason"] == "zero_points":
        assert 0 in state["points"]
    else:
        assert result["reason"] == "resignations" and sum(not r for r in state["resigned"]) < 2
    if not resigned:
        if rules.style == "streamer":
            # the role moves after every hand; a 0-point end stops before that hand's move
            assert hands == state["moves"] + (result["reason"] == "zero_points")
        # in common, a dealer never deals more than max_dealer_hands hands in a row
        run = 0
        for e in events:
            if e["type"] == "dealer":
                run = 0
            elif e["type"] == "hand_started":
                run += 1
                assert run <= rules.max_dealer_hands
                assert e["dealer_streak"] == run - 1
        if rules.style == "common":
            assert kinds.count("step_down_offered") == kinds.count("step_down")
    # the final standing: playing seats by points, equal points share a place, resigned seats below
    standing = result["standing"]
    assert sorted(r["seat"] for r in standing) == list(range(n))
    playing = [r for r in standing if not state["resigned"][r["seat"]]]
    assert standing[: len(playing)] == playing
    assert [r["points"] for r in playing] == sorted((r["points"] for r in playing), reverse=True)
    for a, b in itertools.pairwise(playing):
        assert (a["place"] == b["place"]) == (a["points"] == b["points"])
    assert [r["place"] for r in standing] == sorted(r["place"] for r in standing)


# --------------------------------------------------------------------------------------- frequencies
def exact_turn_probabilities(out_of_bowl):
    """The outcome of a whole turn, from the 216 ordered throws and the hand table written by hand."""
    table = {dice: (hand, value) for dice, hand, value in ALL_THROWS}
    per_throw = {}
    for dice in itertools.product(range(1, 7), repeat=3):
        key = table[tuple(sorted(dice))]
        per_throw[key] = per_throw.get(key, 0) + 1
    none = per_throw.pop((None, None)) / 216
    q = 1 / 36 if out_of_bowl else 0
    again = (1 - q) * none  # a throw with neither a hand nor out of the bowl
    reach = 1 + again + again**2  # expected number of throws made that could end the turn
    probs = {key: (1 - q) * count / 216 * reach for key, count in per_throw.items()}
    probs[("no_point", None)] = again**3
    if out_of_bowl:
        probs[("out_of_bowl", None)] = q * reach
    return probs


def test_exact_probabilities_by_hand():
    p = exact_turn_probabilities(False)
    assert len(p) == 15  # pinzoro, 5 arashi, shigoro, 6 points, hifumi, no_point
    assert math.isclose(p[("no_point", None)], 1 / 8)  # half of all throws make no hand
    assert math.isclose(p[("pinzoro", None)], 7 / 864)
    assert math.isclose(p[("point", 3)], 15 / 216 * 7 / 4)
    assert math.isclose(sum(p.values()), 1)
    assert math.isclose(sum(exact_turn_probabilities(True).values()), 1)


def test_turn_frequencies_through_the_engine_match_the_exact_probabilities():
    turns = 6000
    for out_of_bowl in (False, True):
        rules = C.validate_rules({"first_dealer": "seat", "out_of_bowl": out_of_bowl})
        rng = random.Random(20260927 + out_of_bowl)
        state, _ = C.initial_state(rules, 2, rng)
        state, _ = C.apply(state, 1, {"type": "bet", "amount": 10}, rng)  # seat 1 is the roller
        counts = {}
        for _ in range(turns):
            s = state
            while "1" not in s["hands"]:
                s, _ = C.apply(s, 1, {"type": "roll"}, rng)
            h = s["hands"]["1"]
            assert len(s["rolls"]["1"]) <= 3
            counts[(h["hand"], h["value"])] = counts.get((h["hand"], h["value"]), 0) + 1
        exact = exact_turn_probabilities(out_of_bowl)
        assert set(counts) <= set(exact)
        for key, p in exact.items():
            se = math.sqrt(p * (1 - p) / turns)
            assert abs(counts.get(key, 0) / turns - p) <= 5 * se + 1e-9, (key, counts.get(key, 0), p * turns)


def test_turn_distribution_helper_agrees():
    for oob in (False, True):
        exact = exact_turn_probabilities(oob)
        got = C.turn_distribution(C.validate_rules({"out_of_bowl": oob}))
        assert set(got) == set(exact)
        for key in exact:
            assert math.isclose(got[key], exact[key], rel_tol=1e-9)


# -------------------------------------------------------------------------------------------- purity
def test_engine_and_bots_import_no_django_celery_or_channels():
    code = (
        "import games.engine.chinchirorin, games.bots.chinchirorin, games.conformance.chinchirorin, sys; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'celery', 'channels'}); "
        "assert not bad, bad"
    )
    root = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_engine_uses_no_module_level_random():
    root = Path(__file__).resolve().parents[3]
    for path in ("games/engine/chinchirorin.py", "games/engine/chinchirorin_rules.py", "games/bots/chinchirorin.py"):
        text = (root / path).read_text()
        assert "import random" not in text and "from random" not in text, path
