"""The chinchón ops of the conformance protocol, through the dispatcher (games.conformance)."""

import io
import json
from pathlib import Path

import pytest

from games.conformance import all_ops, answer, run

PUBLIC = Path("/work/shared/conformance/public.jsonl")


def ask(op, args):
    return answer(json.dumps({"id": "x", "op": op, "args": args}), all_ops())


def test_ops_listed():
    assert {"chinchon.value", "chinchon.is_meld", "chinchon.arrange", "chinchon.close", "chinchon.score"} <= set(
        all_ops()
    )


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
