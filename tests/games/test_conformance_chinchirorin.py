"""The chinchirorin ops of the conformance protocol: the public cases, and invalid args as errors."""

import json
from pathlib import Path

import pytest

from games.conformance import all_ops, answer
from games.conformance.chinchirorin import OPS

PUBLIC = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "public.jsonl"  # ../shared beside the repo


def test_the_five_ops_are_registered():
    assert sorted(OPS) == [
        "chinchirorin.compare", "chinchirorin.hand", "chinchirorin.opening", "chinchirorin.roll_order",
        "chinchirorin.settle",
    ]
    assert set(OPS) <= set(all_ops())


def public_cases():
    if not PUBLIC.exists():
        return []
    cases = [json.loads(line) for line in PUBLIC.read_text().splitlines() if line.strip()]
    return [c for c in cases if c["op"].startswith("chinchirorin.")]


@pytest.mark.skipif(not PUBLIC.exists(), reason="shared conformance cases not present")
@pytest.mark.parametrize("case", public_cases(), ids=lambda c: c["id"])
def test_public_case(case):
    row = answer(json.dumps({k: case[k] for k in ("id", "op", "args")}), OPS)
    want = case["expect"]
    if "error" in want:
        assert row == {"id": case["id"], "error": want["error"]}
    else:
        got = row["result"]
        assert {k: got[k] for k in want} == want


def run(op, **args):
    return answer(json.dumps({"id": "x", "op": f"chinchirorin.{op}", "args": args}), OPS)


def test_results_by_hand():
    assert run("hand", dice=[6, 6, 6])["result"] == {"hand": "arashi", "value": 6}
    assert run("compare", rules={"hifumi_multiplier": 1}, bet=100, dealer={"hand": "shigoro", "value": None},
               player={"hand": "hifumi", "value": None})["result"] == {"winner": "dealer", "amount": 200}
    assert run("opening", rules={"style": "common"}, dealer={"hand": "hifumi"})["result"] == {
        "outcome": "dealer_loses"}
    assert run("roll_order", rules={"style": "common"}, seats=3, dealer=2, bets={"1": 10, "0": 20})["result"] == {
        "order": [0, 1]}
    # common, dealer 0 with 60 points rolls point 4; seat 1 (arashi 2, bet 50) takes 150 -> only 60;
    # seat 2 never rolls: the dealer is at 0
    res = run("settle", rules={"style": "common"}, dealer=0, points={"0": 60, "1": 100, "2": 100},
              bets={"1": 50, "2": 50},
              hands={"0": {"hand": "point", "value": 4}, "1": {"hand": "arashi", "value": 2},
                     "2": {"hand": "hifumi", "value": None}})["result"]
    assert res["points"] == {"0": 0, "1": 160, "2": 100} and res["dealer_keeps"] is True
    assert res["payments"] == [{"from": 0, "to": 1, "amount": 60}]


@pytest.mark.parametrize(
    ("op", "args", "message"),
    [
        ("hand", {"dice": [1, 2, 7]}, "dice must be three ints 1..6"),
        ("hand", {"dice": [1, 2]}, "dice must be three ints 1..6"),
        ("hand", {}, "dice must be three ints 1..6"),
        ("hand", {"dice": [True, 2, 3]}, "dice must be three ints 1..6"),
        ("compare", {"rules": {}, "bet": True, "dealer": {"hand": "pinzoro"}, "player": {"hand": "pinzoro"}}, "bet"),
        ("compare", {"rules": {}, "bet": 0, "dealer": {"hand": "pinzoro"}, "player": {"hand": "pinzoro"}}, "bet"),
        ("compare", {"rules": {"colour": 1}, "bet": 10, "dealer": {"hand": "pinzoro"},
                     "player": {"hand": "pinzoro"}}, "colour"),
        ("compare", {"rules": {}, "bet": 10, "dealer": {"hand": "arashi", "value": 1},
                     "player": {"hand": "pinzoro"}}, "arashi"),
        ("compare", {"rules": {}, "bet": 10, "dealer": {"hand": "point", "value": 3},
                     "player": {"hand": "out_of_bowl"}}, "out_of_bowl"),
        ("compare", {"rules": {}, "bet": 10, "dealer": None, "player": {"hand": "pinzoro"}}, "dealer"),
        ("opening", {"rules": {}, "dealer": {"hand": "point", "value": 3}}, "common"),
        ("roll_order", {"rules": {}, "seats": 9, "dealer": 0, "bets": {"1": 10}}, "seats"),
        ("roll_order", {"rules": {}, "seats": 3, "dealer": 3, "bets": {"1": 10}}, "dealer"),
        ("roll_order", {"rules": {}, "seats": 3, "dealer": 0, "bets": {"0": 10}}, "dealer"),
        ("roll_order", {"rules": {}, "seats": 3, "dealer": 0, "bets": {"5": 10}}, "seat"),
        ("roll_order", {"rules": {}, "seats": 3, "dealer": 0, "bets": {"1": -10}}, "bet"),
        ("settle", {"rules": {}, "dealer": 0, "points": {"0": 100, "1": 100}, "bets": {"1": 10},
                    "hands": {"0": {"hand": "point", "value": 3}}}, "hand missing"),
        ("settle", {"rules": {}, "dealer": 0, "points": {"0": -1, "1": 100}, "bets": {"1": 10},
                    "hands": {}}, "points"),
        ("settle", {"rules": {}, "dealer": 0, "points": {"0": 100, "2": 100}, "bets": {"1": 10},
                    "hands": {}}, "seat"),
        ("settle", {"rules": {"style": "common"}, "dealer": 0, "dealer_streak": -1,
                    "points": {"0": 100, "1": 100}, "bets": {"1": 10},
                    "hands": {"0": {"hand": "point", "value": 3}}}, "dealer_streak"),
    ],
)
def test_invalid_args_are_errors(op, args, message):
    row = run(op, **args)
    assert "result" not in row and message in row["error"]


def test_bets_must_be_one_of_the_bet_options():
    """Rules file "Points in (bets)": a seat chooses one of ``bet_options``; any other bet is invalid args."""
    from games.conformance.chinchirorin import OPS

    hands = {"0": {"hand": "point", "value": 1}, "1": {"hand": "point", "value": 2}}
    with pytest.raises(ValueError, match="bet_options"):
        OPS["chinchirorin.settle"]({"rules": {}, "dealer": 0, "points": {"0": 1000, "1": 1000},
                                    "bets": {"1": 30}, "hands": hands})
    with pytest.raises(ValueError, match="bet_options"):
        OPS["chinchirorin.compare"]({"rules": {}, "bet": 30, "dealer": hands["0"], "player": hands["1"]})
    with pytest.raises(ValueError, match="bet_options"):
        OPS["chinchirorin.roll_order"]({"rules": {}, "seats": 3, "dealer": 0, "bets": {"1": 10, "2": 25}})
    # With the room's own options, 30 is a bet: 30 x 1 x 1 to the player holding point 2 against point 1.
    out = OPS["chinchirorin.compare"]({"rules": {"bet_options": [30, 60]}, "bet": 30,
                                       "dealer": hands["0"], "player": hands["1"]})
    assert out == {"winner": "player", "amount": 30}
