"""The chinchón ops of the conformance protocol, through the dispatcher (games.conformance)."""

import io
import json
import random
from pathlib import Path

import pytest

from games.conformance import all_ops, answer, run
from games.engine import chinchon as C

PUBLIC = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "public.jsonl"  # ../shared beside the repo


def ask(op, args):
    return answer(json.dumps({"id": "x", "op": op, "args": args}), all_ops())


def test_ops_listed():
    assert {"chinchon.value", "chinchon.is_meld", "chinchon.arrange", "chinchon.close", "chinchon.score",
            "chinchon.first_mano"} <= set(all_ops())


def test_value_and_errors():
    assert ask("chinchon.value", {"rules": {"preset": "standard"}, "card": "12O"})["result"] == {"value": 10}
    assert ask("chinchon.value", {"rules": {"preset": "wild_ace"}, "card": "8C"}) == {
        "id": "x", "error": "card '8C' not in a 40-card deck"}
    assert "error" in ask("chinchon.value", {"rules": {"preset": "standard", "deck": 52}, "card": "1O"})
    assert "error" in ask("chinchon.value", {"rules": {"bogus": 1}, "card": "1O"})
    assert "error" in ask("chinchon.value", {"card": 5})


def test_is_meld_and_arrange():
    assert ask("chinchon.is_meld", {"rules": {}, "cards": ["4O", "5O", "JK"]})["result"] == {"meld": True}
    assert "error" in ask("chinchon.is_meld", {"rules": {}, "cards": ["4O", "4O", "JK"]})
    res = ask("chinchon.arrange", {"rules": {}, "cards": ["1O", "2O", "3O", "12C", "12E", "12B", "2E"]})["result"]
    assert res == {"loose_points": 2, "loose_count": 1, "melds": [["1O", "2O", "3O"], ["12C", "12E", "12B"]]}


def test_close():
    args = {"rules": {}, "cards": ["1O", "2O", "3O", "12C", "12E", "12B", "2E", "11O"], "face_down": "11O"}
    assert ask("chinchon.close", args)["result"] == {"can_close": True, "kind": "normal", "score": 2}
    assert ask("chinchon.close", {**args, "face_down": "5B"})["error"] == "face_down is not one of the cards"
    assert ask("chinchon.close", {**args, "face_down": "2E"})["result"] == {
        "can_close": False, "kind": None, "score": None}
    assert "error" in ask("chinchon.close", {**args, "cards": args["cards"][:7]})
    args = {"rules": {"preset": "wild_ace"}, "cards": ["3C", "3E", "3B", "5O", "6O", "7O", "2E", "12O"],
            "face_down": "12O"}
    assert ask("chinchon.close", args)["result"]["can_close"] is True
    assert ask("chinchon.close", {**args, "first_round_complete": False})["result"]["can_close"] is False


def test_score():
    res = ask("chinchon.score", {"rules": {}, "closer": 0, "hands": {
        "0": ["1O", "2O", "3O", "12C", "12E", "12B", "2E"], "1": ["4O", "12O", "5C", "6C", "7C", "9E", "9B"]}})
    assert res["result"]["deltas"] == {"0": 2, "1": 18} and res["result"]["winner"] is None
    assert "error" in ask("chinchon.score", {"rules": {}, "closer": 2, "hands": {"0": ["1O"] * 7}})


TRAD = {"preset": "traditional"}
FIRST_MANO_CASES = [  # public-style cases (../shared/conformance/README.md) of chinchon.first_mano
    {"id": "mano-high-card", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "3O", "1": "12B", "2": "11O"}]},
     "expect": {"mano": 1, "redraw": []}},
    {"id": "mano-sota-over-nine", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "9O", "1": "10C"}]}, "expect": {"mano": 1, "redraw": []}},
    {"id": "mano-tie-redraw", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "12O", "1": "3C", "2": "12E"}]},
     "expect": {"mano": None, "redraw": [0, 2]}},
    {"id": "mano-tie-then-high", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "12O", "1": "3C", "2": "12E"}, {"0": "5B", "2": "7O"}]},
     "expect": {"mano": 2, "redraw": []}},
    {"id": "mano-two-decks-same-card", "op": "chinchon.first_mano",
     "args": {"rules": {**TRAD, "decks": 2}, "draws": [{"0": "7O", "5": "7O", "6": "2B"}]},
     "expect": {"mano": None, "redraw": [0, 5]}},
    {"id": "mano-40-card", "op": "chinchon.first_mano",
     "args": {"rules": {**TRAD, "deck": 40}, "draws": [{"0": "7O", "1": "1C"}]},
     "expect": {"mano": 0, "redraw": []}},
    {"id": "mano-other-preset-opted-in", "op": "chinchon.first_mano",
     "args": {"rules": {"first_mano": "high_card"}, "draws": [{"0": "1O", "1": "2O"}]},
     "expect": {"mano": 1, "redraw": []}},
    {"id": "mano-random-preset", "op": "chinchon.first_mano",
     "args": {"rules": {"preset": "standard"}, "draws": [{"0": "1O", "1": "2O"}]},
     "expect": {"error": "the first mano is drawn by cards only with first_mano high_card"}},
    {"id": "mano-wrong-redraw", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "12O", "1": "3C", "2": "12E"}, {"0": "5B", "1": "7O"}]},
     "expect": {"error": "round 2 must be drawn by the seats tied before: [0, 2]"}},
    {"id": "mano-after-decided", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "7O", "1": "6O"}, {"0": "1O", "1": "2O"}]},
     "expect": {"error": "round 2: the mano was already seat 0"}},
    {"id": "mano-joker", "op": "chinchon.first_mano",
     "args": {"rules": {**TRAD, "jokers": 1}, "draws": [{"0": "JK", "1": "6O"}]},
     "expect": {"error": "a joker is never drawn for the mano"}},
    {"id": "mano-card-twice-one-deck", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "12O", "1": "12O"}]},
     "expect": {"error": "card '12O' appears 2 times; the deck holds it once"}},
    {"id": "mano-eight-in-40", "op": "chinchon.first_mano",
     "args": {"rules": {**TRAD, "deck": 40}, "draws": [{"0": "8O", "1": "12O"}]},
     "expect": {"error": "card '8O' not in a 40-card deck"}},
    {"id": "mano-one-seat", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "7O"}]}, "expect": {"error": "a round of the draw needs 2 seats or more"}},
    {"id": "mano-seat-out-of-range", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": [{"0": "7O", "4": "1C"}]},
     "expect": {"error": "seat must be a seat number from 0 to 3"}},
    {"id": "mano-no-rounds", "op": "chinchon.first_mano",
     "args": {"rules": TRAD, "draws": []}, "expect": {"error": "draws must be a list of rounds, at least one"}},
]


@pytest.mark.parametrize("case", FIRST_MANO_CASES, ids=lambda c: c["id"])
def test_first_mano_cases(case):
    """Through the protocol's own runner, as ../shared/conformance/check.py runs a cases file."""
    out = io.StringIO()
    run([json.dumps({k: case[k] for k in ("id", "op", "args")})], out)
    row = json.loads(out.getvalue())
    assert row["id"] == case["id"]
    if "error" in case["expect"]:
        assert row == {"id": case["id"], "error": case["expect"]["error"]}
    else:
        assert row == {"id": case["id"], "result": case["expect"]}


def test_first_mano_agrees_with_the_engine_draw():
    """The op decides every draw the engine makes as the engine did (the draw is the op's input)."""
    for seed in range(60):
        for seats in (2, 4, 6):
            _, events = C.initial_state(TRAD, seats, random.Random(seed))
            draw = events[0]
            rules = {**TRAD, "decks": 2 if seats > 4 else 1}
            assert ask("chinchon.first_mano", {"rules": rules, "draws": draw["rounds"]})["result"] == {
                "mano": draw["mano"], "redraw": []}
            if len(draw["rounds"]) > 1:
                res = ask("chinchon.first_mano", {"rules": rules, "draws": draw["rounds"][:-1]})["result"]
                assert res["mano"] is None and res["redraw"] == sorted(map(int, draw["rounds"][-1]))


@pytest.mark.skipif(not PUBLIC.exists(), reason="shared conformance cases not present")
def test_public_chinchon_cases():
    cases = [json.loads(line) for line in PUBLIC.read_text().splitlines() if line.strip()]
    cases = [c for c in cases if c["op"].startswith("chinchon")]
    out = io.StringIO()
    run((json.dumps({k: c[k] for k in ("id", "op", "args")}) for c in cases), out)
    rows = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    for c in cases:
        row, want = rows[c["id"]], c["expect"]
        if "error" in want:
            assert "error" in row, c["id"]
            assert row["error"] == want["error"], c["id"]
            continue
        got = row["result"]
        for k, v in want.items():
            if k != "melds":
                assert (
                    {str(a): b for a, b in got[k].items()} == v if isinstance(v, dict) else got[k] == v
                ), c["id"]


SCORE_BASE = {"0": ["1O", "2O", "3O", "12C", "12E", "12B", "2E"], "1": ["4O", "12O", "5C", "6C", "7C", "9E", "9B"]}


@pytest.mark.parametrize(
    "args",
    [
        {"rules": {}, "closer": "0", "hands": SCORE_BASE},  # seat numbers as values are integers
        {"rules": {}, "closer": 0.5, "hands": SCORE_BASE},  # was read as int(0.5) == 0
        {"rules": {}, "closer": True, "hands": SCORE_BASE},
        {"rules": {}, "closer": 0, "hands": {"0": SCORE_BASE["0"], "-1": SCORE_BASE["1"]}},  # was seat -1
        {"rules": {}, "closer": 0, "hands": {"0": SCORE_BASE["0"], " 1": SCORE_BASE["1"]}},  # was seat 1
        {"rules": {}, "closer": 0, "hands": {"0": SCORE_BASE["0"], "01": SCORE_BASE["1"]}},
        {"rules": {}, "closer": 0, "hands": {"0": SCORE_BASE["0"], "4": SCORE_BASE["1"]}},  # standard: 2-4 seats
        {"rules": {}, "closer": 0, "hands": {"0": SCORE_BASE["0"]}},  # a hand is played by 2 seats or more
        {"rules": [], "closer": 0, "hands": SCORE_BASE},  # was read as the standard preset
        {"rules": "", "closer": 0, "hands": SCORE_BASE},
    ],
)
def test_score_malformed_args_are_errors(args):
    row = ask("chinchon.score", args)
    assert "error" in row and "result" not in row


def test_score_seat_keys_accepted():
    # seat 3 of 4 (seats 1, 2 not in this hand); two decks allow seats up to 7
    res = ask("chinchon.score", {"rules": {}, "closer": 0, "hands": {"0": SCORE_BASE["0"], "3": SCORE_BASE["1"]}})
    assert res["result"]["deltas"] == {"0": 2, "3": 18}
    res = ask("chinchon.score", {"rules": {"preset": "traditional", "decks": 2}, "closer": 7, "hands": {
        "7": SCORE_BASE["0"], "5": SCORE_BASE["1"]}})
    # traditional (pip, total mode): closer loose 2E = 2; seat 5 melds 5C-7C, lays 4O onto 1O-3O and 12O onto
    # the Reyes (two decks: a set holds up to 8), loose 9E 9B = 18
    assert res["result"]["deltas"] == {"5": 18, "7": 2}


def test_garbage_codes_and_oversized_arrange_are_errors():
    assert "error" in ask("chinchon.value", {"rules": {}, "card": "\u0663O"})  # was accepted as "3O"
    big = [f"{r}O" for r in range(1, 13)] + ["1C", "2C", "3C", "4C", "5C"]
    assert ask("chinchon.arrange", {"rules": {}, "cards": big})["error"] == "cards must hold at most 16 cards"
    res = ask("chinchon.arrange", {"rules": {}, "cards": big[:16]})["result"]
    assert (res["loose_points"], res["loose_count"]) == (0, 0)  # 1O-12O and 1C-4C


@pytest.mark.parametrize(
    "rules, hands, closer, deltas",
    [
        # standard, layoff onto the closer: 7O extends 4O-6O for seat 1, 8O then fits for seat 2, and seat 3
        # lays 3O at the low end and 9O at the high end.
        ({}, {"0": ["4O", "5O", "6O", "12C", "12E", "12B", "2E"], "1": ["7O", "9C", "11B", "3E", "5B", "8E", "10C"],
              "2": ["8O", "1C", "3C", "5E", "7B", "9B", "11E"], "3": ["3O", "9O", "2C", "4B", "6B", "10B", "1B"]},
         0, {"0": 2, "1": 45, "2": 35, "3": 23}),
        # a loose joker is laid off at the run's high end (the 7O place), so seat 2 lays 8O but not 7O
        ({}, {"0": ["4O", "5O", "6O", "12C", "12E", "12B", "2E"], "1": ["JK", "2B", "4C", "6E", "8B", "10E", "12O"],
              "2": ["7O", "8O", "1C", "3C", "5E", "9B", "11E"]},
         0, {"0": 2, "1": 30, "2": 35}),
        # traditional (pip, layoff onto all): seat 1 runs 3C-5C up to 7C, seat 2 lays 2C, 1C below it and 8B on
        # the 8s, seat 3 lays 11B on seat 2's Caballos.
        ({"preset": "traditional"},
         {"0": ["3C", "4C", "5C", "8O", "8C", "8E", "1B"], "1": ["6C", "7C", "10E", "10B", "10O", "2E", "4E"],
          "2": ["2C", "8B", "1C", "11O", "11C", "11E", "5E"], "3": ["11B", "4O", "5O", "6O", "9E", "9B", "3O"]},
         0, {"0": 1, "1": 6, "2": 5, "3": 18}),
        # the same with layoff onto the closer only: 11B stays loose for seat 3 (+11)
        ({"preset": "traditional", "layoff_onto": "closer"},
         {"0": ["3C", "4C", "5C", "8O", "8C", "8E", "1B"], "1": ["6C", "7C", "10E", "10B", "10O", "2E", "4E"],
          "2": ["2C", "8B", "1C", "11O", "11C", "11E", "5E"], "3": ["11B", "4O", "5O", "6O", "9E", "9B", "3O"]},
         0, {"0": 1, "1": 6, "2": 5, "3": 29}),
        # traditional menos diez: nothing onto the closer's melds, but seat 0 lays 8O and 4O onto seat 2's run
        ({"preset": "traditional"},
         {"0": ["8O", "4C", "10E", "10B", "2B", "2O", "4O"], "1": ["1E", "2E", "3E", "9O", "9C", "9B", "9E"],
          "2": ["5O", "6O", "7O", "4E", "11E", "12B", "1C"]},
         1, {"0": 28, "1": -10, "2": 28}),
        # wild_ace: 1O-7O is a seven-run with a wild (-25), nobody lays off onto it
        ({"preset": "wild_ace"},
         {"0": ["1O", "2O", "3O", "4O", "5O", "6O", "7O"], "1": ["10O", "1C", "2C", "3C", "5E", "6E", "12B"]},
         0, {"0": -25, "1": 31}),  # 1C-3C melded; 10O 5E 6E 12B loose: 10 + 5 + 6 + 10
    ],
)
def test_score_hand_computed_cases(rules, hands, closer, deltas):
    res = ask("chinchon.score", {"rules": rules, "closer": closer, "hands": hands})["result"]
    assert res["deltas"] == deltas and res["winner"] is None
