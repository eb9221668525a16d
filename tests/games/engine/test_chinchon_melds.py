"""Melds, the arrangement solver, closing, lay-offs and scoring (rules/chinchon.md "Melds", "Closing",
"Laying off and scoring"). Expected values are worked by hand in the comments."""

import pytest

from games.engine import chinchon_melds as M
from games.engine.chinchon import validate_rules
from games.engine.errors import InvalidCard

STD = validate_rules({})
STD40 = validate_rules({"deck": 40})
STD_J2 = validate_rules({"max_jokers_per_meld": 2})
TRAD48 = validate_rules({"preset": "traditional", "deck": 48})
TRAD40 = validate_rules({"preset": "traditional", "deck": 40})
TRAD2 = validate_rules({"preset": "traditional", "deck": 48}, seats=5)
WILD = validate_rules({"preset": "wild_ace"})
WILD_J2 = validate_rules({"preset": "wild_ace", "jokers": 1, "max_jokers_per_meld": 2})


def test_values():
    assert M.value("12O", STD) == 10
    assert M.value("12C", TRAD48) == 12
    assert M.value("12E", TRAD40) == 10
    assert M.value("11E", TRAD40) == 9
    assert M.value("JK", STD) == 25
    assert M.value("1O", WILD) == 25
    assert M.value("1C", WILD) == 1
    with pytest.raises(InvalidCard, match="card '8C' not in a 40-card deck"):
        M.value("8C", WILD)
    with pytest.raises(InvalidCard):
        M.value("JK", TRAD48)


MELDS = [
    # worked examples
    (STD, ["4O", "5O", "JK"], "run"),
    (STD, ["11C", "11E", "JK"], "set"),
    (STD40, ["6B", "7B", "10B"], "run"),
    # runs, a wild in every place
    (STD, ["1O", "2O", "3O"], "run"),
    (STD, ["JK", "2O", "3O"], "run"),
    (STD, ["2O", "JK", "4O"], "run"),
    (STD, ["2O", "3O", "JK"], "run"),
    (STD, ["11O", "12O", "JK"], "run"),  # the joker is the Sota
    (STD, ["JK", "1O", "2O"], "run"),  # the joker is the 3
    (STD, ["8E", "9E", "10E", "11E"], "run"),
    (STD, [f"{r}C" for r in range(1, 13)], "run"),
    (STD40, ["7B", "JK", "11B"], "run"),  # 7, (10), 11
    (STD40, ["5B", "6B", "7B", "10B", "11B", "12B"], "run"),
    # sets
    (STD, ["5C", "5E", "5B"], "set"),
    (STD, ["5C", "5E", "5B", "5O"], "set"),
    (STD, ["5C", "5E", "5B", "JK"], "set"),
    # two wilds where allowed
    (STD_J2, ["5O", "JK", "JK"], "set"),
    (STD_J2, ["3O", "JK", "JK", "6O"], "run"),
    (STD_J2, ["JK", "JK", "3O", "4O"], "run"),
    # the wild Ace of Oros
    (WILD, ["1O", "3C", "4C"], "run"),
    (WILD, ["1O", "2O", "3O"], "run"),  # wild in its own place
    (WILD, ["1O", "1C", "1E"], "set"),
    (WILD, ["1O", "11C", "12C"], "run"),
    (WILD_J2, ["1O", "JK", "5C"], "set"),
    # two decks
    (TRAD2, ["9C", "9C", "9E"], "set"),
    (TRAD2, ["9C", "9C", "9E", "9E", "9O", "9O", "9B", "9B"], "set"),
]

NOT_MELDS = [
    (STD, ["4O", "5O"]),
    (STD, ["4O"]),
    (STD, []),
    (STD40, ["12B", "1B", "2B"]),  # no wrap
    (STD, ["11O", "12O", "1O"]),
    (STD, ["JK", "12O", "1O"]),
    (STD, ["12O", "JK", "2O"]),
    (STD, ["5O", "JK", "JK"]),  # two wilds, default one a meld
    (STD, ["3O", "4O", "5C"]),
    (STD, ["6B", "7B", "10B"]),  # 48 cards: 8 and 9 between
    (STD, ["5C", "5E", "5B", "5O", "JK"]),  # a set holds at most 4 with one deck
    (STD, ["2O", "4O", "6O", "JK"]),  # two gaps, one wild
    (STD, ["2O", "5O", "JK"]),
    (STD_J2, ["JK", "JK", "JK"]),  # no natural (3 jokers cannot exist in one deck anyway)
    (STD_J2, ["5O", "6C", "JK"]),
    (WILD, ["1O", "5C", "11C"]),  # 5, (6, 7, 10), 11: three gaps, one wild
    (WILD, ["1O", "1C", "5C"]),
    (TRAD2, ["4O", "4O", "5O"]),  # a run cannot hold a card twice
    (TRAD2, ["4O", "5O", "6O", "6O"]),
]


@pytest.mark.parametrize("rules,cards,kind", MELDS)
def test_melds(rules, cards, kind):
    assert M.is_meld(cards, rules)
    assert M.meld_kind(cards, rules) == kind


@pytest.mark.parametrize("rules,cards", NOT_MELDS)
def test_not_melds(rules, cards):
    try:
        assert not M.is_meld(cards, rules)
    except InvalidCard:
        assert cards == ["JK", "JK", "JK"]


@pytest.mark.parametrize(
    "rules,cards",
    [
        (STD, ["3O", "3O", "4O"]),  # one deck holds one 3O
        (STD, ["5E", "5E", "5C"]),
        (STD40, ["7O", "8O", "9O"]),
        (TRAD48, ["4O", "5O", "JK"]),  # no jokers in traditional
        (STD, ["5O", "JK", "JK", "JK"]),
        (STD, ["13O", "1O", "2O"]),
    ],
)
def test_cards_the_deck_cannot_hold(rules, cards):
    with pytest.raises(InvalidCard):
        M.is_meld(cards, rules)
    with pytest.raises(InvalidCard):
        M.best_arrangement(cards, rules)


ARRANGEMENTS = [
    # (rules, cards, loose points, loose count)
    (STD, ["1O", "2O", "3O", "12C", "12E", "12B", "2E"], 2, 1),
    # 6O could go in the run or the set: set 6O 6C 6E leaves 4O 5O 2B 3B = 14 (run leaves 6+6+2+3 = 17)
    (STD, ["4O", "5O", "6O", "6C", "6E", "2B", "3B"], 14, 4),
    # 5O serves the run 3O 4O 5O while 5C 5E 5B make a set: 7C loose
    (STD, ["3O", "4O", "5O", "5C", "5E", "5B", "7C"], 7, 1),
    # run 1C-3C + set 4C 4E 4B leaves 12O (10); run 1C-4C leaves 4E 4B 12O (18)
    (STD, ["1C", "2C", "3C", "4C", "4E", "4B", "12O"], 10, 1),
    (STD, ["7O", "8O", "9O", "10O", "9C", "9E", "9B"], 0, 0),
    (STD, ["JK", "2O", "4C", "6E", "8B", "10O", "12C"], 65, 7),
    # the joker helps 9C 9E (leaves 2+3+5+10 = 20) rather than 2O 3O (leaves 9+9+5+10 = 33)
    (STD, ["2O", "3O", "JK", "9C", "9E", "5B", "11B"], 20, 4),
    # 8 cards, 2 wilds, one a meld: 2O 3O JK and 7C 7E JK, loose 11B 4E = 14
    (STD, ["2O", "3O", "JK", "JK", "7C", "7E", "11B", "4E"], 14, 2),
    # two wilds a meld allowed: 9C 9E JK JK leaves 5O 12B 1C = 16
    (STD_J2, ["5O", "JK", "JK", "9C", "9E", "12B", "1C"], 16, 3),
    (STD40, ["6B", "7B", "10B", "11B", "1C", "1E", "1O"], 0, 0),
    # the wild Ace: with 7E 7B (leaves 3+4+10+10 = 27) beats with 3C 4C (leaves 7+7+10+10 = 34)
    (WILD, ["1O", "3C", "4C", "7E", "7B", "12O", "11C"], 27, 4),
    # pip values: loose 12E 12B 9C = 33
    (TRAD48, ["1O", "2O", "3O", "4O", "12E", "12B", "9C"], 33, 3),
    (TRAD40, ["1O", "2O", "3O", "4O", "12E", "11B", "10C"], 27, 3),
    (STD, [], 0, 0),
    (STD, ["JK"], 25, 1),
]


@pytest.mark.parametrize("rules,cards,points,count", ARRANGEMENTS)
def test_best_arrangement(rules, cards, points, count):
    melds, loose, pts = M.best_arrangement(cards, rules)
    assert pts == points
    assert len(loose) == count
    assert M.arrangement_points(cards, rules) == (points, count)
    assert sorted([c for m in melds for c in m] + loose) == sorted(cards)
    assert all(M.is_meld(m, rules) for m in melds)
    assert sum(M.value(c, rules) for c in loose) == pts


def test_arrangement_tie_break_is_the_fixed_order():
    # run 1O 2O 3O leaves 2C 2E 4B = 8; set 2O 2C 2E leaves 1O 3O 4B = 8: the run comes first as a sorted
    # code list ((O,1),(O,2),(O,3)) < ((O,2),(C,2),(E,2))
    melds, loose, pts = M.best_arrangement(["2E", "4B", "2C", "3O", "1O", "2O"], STD)
    assert (melds, loose, pts) == ([["1O", "2O", "3O"]], ["2C", "2E", "4B"], 8)


def test_runs_are_laid_low_to_high_with_wilds_placed():
    assert M.best_arrangement(["5O", "JK", "3O"], STD)[0] == [["3O", "JK", "5O"]]
    assert M.best_arrangement(["4O", "5O", "JK"], STD)[0] == [["4O", "5O", "JK"]]  # a spare wild goes high
    assert M.best_arrangement(["11O", "12O", "JK"], STD)[0] == [["JK", "11O", "12O"]]
    assert M.best_arrangement(["11C", "JK", "11E"], STD)[0] == [["11C", "11E", "JK"]]
    assert M.best_arrangement(["7B", "11B", "JK"], STD40)[0] == [["7B", "JK", "11B"]]


# ----------------------------------------------------------------------------------------------- closing

EXAMPLE = ["1O", "2O", "3O", "12C", "12E", "12B", "2E", "11O"]


def _close(cards, rules, face_down, **kw):
    for opt in M.close_options(cards, rules, **kw):
        if opt["card"] == face_down:
            return opt
    return None


def test_worked_close_example():
    opt = _close(EXAMPLE, STD, "11O")
    assert (opt["kind"], opt["score"], opt["loose"]) == ("normal", 2, ["2E"])
    assert _close(EXAMPLE, validate_rules({"close_limit": 0}), "11O") is None
    assert [o["card"] for o in M.close_options(EXAMPLE, STD)] == ["11O"]


def test_close_limit_5_and_loose_value():
    cards = ["1O", "2O", "3O", "12C", "12E", "12B", "5E", "11O"]
    assert _close(cards, STD, "11O") is None  # 5 > 3
    assert _close(cards, validate_rules({"close_limit": 5}), "11O")["score"] == 5


def test_one_card_needs_at_most_one_loose_card():
    # 3O-7O run, loose 1C 1E (2 points, 2 cards): no close with one_card, a close with total
    cards = ["3O", "4O", "5O", "6O", "7O", "1C", "1E", "12B"]
    assert _close(cards, STD, "12B") is None
    opt = _close(cards, validate_rules({"close_mode": "total"}), "12B")
    assert (opt["kind"], opt["score"]) == ("normal", 2)


def test_any_qualifying_arrangement_closes():
    # best arrangement: run 1O 2O 3O JK 5O, loose 1C 2C = 3 points in 2 cards (does not qualify);
    # 1O 2O 3O + 1C 2C JK leaves 5O alone (5 <= 5): the closer may close and scores 5
    rules = validate_rules({"close_limit": 5})
    kept = ["1O", "2O", "3O", "5O", "JK", "1C", "2C"]
    assert M.best_arrangement(kept, rules)[2] == 3
    opt = M.close_option(kept, rules)
    assert (opt["kind"], opt["score"], opt["loose"]) == ("normal", 5, ["5O"])


def test_minus_ten():
    opt = _close(["1E", "2E", "3E", "9O", "9C", "9B", "9E", "4C"], STD, "4C")
    assert (opt["kind"], opt["score"]) == ("minus_ten", -10)
    opt = _close(["1E", "2E", "3E", "9O", "9C", "9B", "9E", "4C"], validate_rules({"minus_ten": -20}), "4C")
    assert opt["score"] == -20


def test_chinchon_and_seven_runs():
    chin = ["1C", "2C", "3C", "4C", "5C", "6C", "7C", "12O"]
    opt = _close(chin, STD, "12O")
    assert (opt["kind"], opt["score"], opt["melds"]) == ("chinchon", None, [chin[:7]])
    # traditional: seven_run minus_ten scores it as menos diez
    opt = _close(chin, TRAD48, "12O")
    assert (opt["kind"], opt["score"]) == ("minus_ten", -10)
    # a seven-run holding a joker: standard -10, and the wild Ace in its own place under wild_ace: -25
    opt = _close(["2E", "3E", "JK", "5E", "6E", "7E", "8E", "12O"], STD, "12O")
    assert (opt["kind"], opt["score"], opt["melds"]) == (
        "seven_run_wild", -10, [["2E", "3E", "JK", "5E", "6E", "7E", "8E"]]
    )
    opt = _close(["1O", "2O", "3O", "4O", "5O", "6O", "7O", "12C"], WILD, "12C")
    assert (opt["kind"], opt["score"]) == ("seven_run_wild", -25)
    # 40 cards: 4C 5C 6C 7C 10C 11C 12C is a chinchón (7 is followed by the Sota)
    opt = _close(["4C", "5C", "6C", "7C", "10C", "11C", "12C", "1O"], STD40, "1O")
    assert opt["kind"] == "chinchon"


def test_close_after_first_round_and_taken_card():
    cards = ["3C", "3E", "3B", "5O", "6O", "7O", "2E", "12O"]
    assert M.close_options(cards, WILD, first_round_complete=False) == []
    assert [o["card"] for o in M.close_options(cards, WILD)] == ["12O"]
    assert M.close_options(cards, WILD, taken_from_discard="12O") == []
    # a joker taken from the pile while another is held: the other copy may go face down
    cards = ["1O", "2O", "3O", "12C", "12E", "12B", "JK", "JK"]
    assert "JK" in [o["card"] for o in M.close_options(cards, STD, taken_from_discard="JK")]


def test_total_mode_traditional():
    opt = _close(["6B", "7B", "8B", "9B", "10B", "1O", "2C", "12E"], TRAD48, "12E")
    assert (opt["kind"], opt["score"]) == ("normal", 3)
    # 1O 2C 3E loose = 6 > 5
    assert _close(["6B", "7B", "8B", "9B", "1O", "2C", "3E", "12E"], TRAD48, "12E") is None


def test_total_mode_loose_sum_may_equal_the_limit_but_not_pass_it():
    # rules file "Closing", total: the loose cards' values add up to *at most* close_limit (here 10, the
    # widest total limit). Traditional pip values; 12C goes face down; 1O-5O is one run.
    rules = validate_rules({"preset": "traditional", "deck": 48, "close_limit": 10})
    opt = _close(["1O", "2O", "3O", "4O", "5O", "4E", "6B", "12C"], rules, "12C")
    assert (opt["kind"], opt["score"], opt["loose_points"]) == ("normal", 10, 10)  # 4E + 6B = 10
    assert sorted(opt["loose"]) == ["4E", "6B"]
    assert _close(["1O", "2O", "3O", "4O", "5O", "4E", "7B", "12C"], rules, "12C") is None  # 4 + 7 = 11
    # total with close_limit 0: only all 7 melded closes (menos diez)
    zero = validate_rules({"preset": "traditional", "deck": 48, "close_limit": 0})
    assert _close(["1O", "2O", "3O", "4O", "5O", "4E", "6B", "12C"], zero, "12C") is None
    opt = _close(["1O", "2O", "3O", "4O", "5O", "6O", "7O", "12C"], zero, "12C")
    assert (opt["kind"], opt["score"]) == ("minus_ten", -10)  # seven_run minus_ten under traditional


# ------------------------------------------------------------------------------------- lay-offs, scoring


def test_score_layoff_onto_the_closer():
    # seat 1 lays 4O on 1O 2O 3O and 12O on the Reyes, melds 5C 6C 7C; 9E 9B loose = 18
    out = M.score_hand(0, {0: EXAMPLE[:7], 1: ["4O", "12O", "5C", "6C", "7C", "9E", "9B"]}, STD)
    assert out["deltas"] == {0: 2, 1: 18}
    assert out["winner"] is None
    r1 = out["reveal"][1]
    assert r1["melds"] == [["5C", "6C", "7C"]] and r1["loose"] == ["9E", "9B"] and r1["points"] == 18
    assert sorted((x["card"], x["onto"]["seat"]) for x in r1["laid_off"]) == [("12O", 0), ("4O", 0)]
    assert out["reveal"][0]["kind"] == "normal"
    no = M.score_hand(0, {0: EXAMPLE[:7], 1: ["4O", "12O", "5C", "6C", "7C", "9E", "9B"]},
                      validate_rules({"layoff": False}))
    assert no["deltas"] == {0: 2, 1: 32}


def test_layoff_chain_extends_the_meld_for_the_next_seat():
    # closer 0: 1O 2O 3O, 12C 12E 12B, loose 2E (2). Seat 1 lays off 4O then 5O (9C 9E 11B 7B 1C = 36);
    # seat 2 lays 6O and 7O on the run seat 1 extended (2C 2B 8E 8B 1B = 21).
    hands = {
        0: EXAMPLE[:7],
        1: ["4O", "5O", "9C", "9E", "11B", "7B", "1C"],
        2: ["6O", "7O", "2C", "2B", "8E", "8B", "1B"],
    }
    out = M.score_hand(0, hands, STD)
    assert out["deltas"] == {0: 2, 1: 36, 2: 21}
    assert [x["card"] for x in out["reveal"][2]["laid_off"]] == ["6O", "7O"]


def test_wild_laid_off_at_the_high_end_holds_its_place():
    # closer 0: 4C 5C 6C, 7O 8O 9O, loose 1B (1). Seat 1 (no meld) lays its joker off; equally good
    # anywhere, it goes on the first meld (7O 8O 9O sorts first) at the high end: it is the 10O.
    # 2B 5E 8E 10B 12E 3O = 38. Seat 2 then lays 11O above it but 10O has no place:
    # 10O 2C 4B 6B 12B 1E = 33 (had the joker gone low, 10O and 11O would both go).
    hands = {
        0: ["4C", "5C", "6C", "7O", "8O", "9O", "1B"],
        1: ["JK", "2B", "5E", "8E", "10B", "12E", "3O"],
        2: ["10O", "11O", "2C", "4B", "6B", "12B", "1E"],
    }
    out = M.score_hand(0, hands, STD)
    assert out["reveal"][0]["melds"] == [["7O", "8O", "9O"], ["4C", "5C", "6C"]]
    assert out["reveal"][1]["laid_off"] == [{"card": "JK", "onto": {"seat": 0, "meld": 0}}]
    assert out["reveal"][2]["laid_off"] == [{"card": "11O", "onto": {"seat": 0, "meld": 0}}]
    assert out["deltas"] == {0: 1, 1: 38, 2: 33}
    assert ["7O", "8O", "9O", "JK", "11O"] in out["laid"]


def test_no_layoff_onto_a_menos_diez_closer():
    hands = {
        0: ["4E", "5C", "8O", "8C", "8B", "11C", "2B"],
        1: ["1E", "2E", "3E", "9O", "9C", "9B", "9E"],
        2: ["7O", "7C", "7B", "12O", "12B", "6O", "3O"],
    }
    out = M.score_hand(1, hands, STD)
    assert out["deltas"] == {0: 21, 1: -10, 2: 29}
    assert out["kind"] == "minus_ten"


def test_layoff_onto_all_skips_a_menos_diez_closer_but_not_the_others():
    # traditional (pip): closer 0 melds all 7 (-10). Seat 1 may not lay 4O on 1O 2O 3O: melds 5C 6C 7C,
    # loose 4O 12E 12B 1C = 29. Seat 2 lays 8C and 4C on seat 1's run: 12O 2E 3E 5B 10B = 32.
    hands = {
        0: ["1O", "2O", "3O", "9C", "9E", "9B", "9O"],
        1: ["4O", "5C", "6C", "7C", "12E", "12B", "1C"],
        2: ["8C", "4C", "12O", "2E", "3E", "5B", "10B"],
    }
    out = M.score_hand(0, hands, TRAD48)
    assert out["deltas"] == {0: -10, 1: 29, 2: 32}
    assert sorted(x["card"] for x in out["reveal"][2]["laid_off"]) == ["4C", "8C"]
    # with layoff_onto closer, seat 2 cannot use seat 1's melds: 8C 4C 12O 2E 3E 5B 10B = 44
    closer_only = validate_rules({"preset": "traditional", "layoff_onto": "closer"})
    assert M.score_hand(0, hands, closer_only)["deltas"] == {0: -10, 1: 29, 2: 44}


def test_traditional_all_and_two_decks_upward():
    hands = {
        2: ["5C", "6C", "7C", "11O", "11E", "11B", "1E"],
        0: ["2O", "3O", "4O", "9E", "9B", "12C", "8C"],
        1: ["5O", "1O", "10C", "12O", "12E", "3B", "4B"],
    }
    assert M.score_hand(2, hands, TRAD48)["deltas"] == {0: 30, 1: 41, 2: 1}
    hands = {
        0: ["4O", "5O", "6O", "9C", "9E", "9B", "2B"],
        1: ["3O", "7O", "12C", "12E", "12B", "5C", "1E"],  # 3O cannot go below 4O with two decks
        2: ["8O", "9C", "11C", "11E", "11B", "4E", "3E"],
        3: ["7O", "2E", "2C", "2O", "10B", "10C", "6E"],
        4: ["9O", "1C", "1B", "1O", "12O", "5B", "3C"],
    }
    assert M.score_hand(0, hands, TRAD2)["deltas"] == {0: 2, 1: 9, 2: 7, 3: 33, 4: 8}


def test_chinchon_scores_nothing_and_wins():
    hands = {0: ["8O", "8C", "8B", "11C", "2B", "4E", "6E"], 1: ["1C", "2C", "3C", "4C", "5C", "6C", "7C"]}
    out = M.score_hand(1, hands, STD)
    assert out["winner"] == 1 and out["kind"] == "chinchon"
    assert out["deltas"] == {0: 0, 1: 0}
    out = M.score_hand(1, hands, TRAD48)
    assert out["winner"] is None and out["kind"] == "minus_ten"
    assert out["deltas"] == {0: 2 + 4 + 6 + 11, 1: -10}


def test_score_rejects_a_closer_that_cannot_close():
    with pytest.raises(ValueError):
        M.score_hand(0, {0: ["1O", "5C", "9E", "12B", "3O", "7E", "11C"], 1: ["2C"]}, STD)


def test_discard_and_draw_points_worked_examples():
    # 1O 2O 3O, 12C 12E 12B, 2E 11O: throwing 11O leaves 2E loose (2 points), 2E leaves 11O (10);
    # a card of a meld breaks it: 1O leaves 2O 3O 2E 11O (2 + 3 + 2 + 10 = 17, 4 cards)
    hand = ["1O", "2O", "3O", "12C", "12E", "12B", "2E", "11O"]
    after = M.discard_points(hand, STD)
    assert after["11O"] == (2, 1) and after["2E"] == (10, 1) and after["1O"] == (17, 4)
    assert after == {c: M.arrangement_points([x for x in hand if x != c], STD) for c in hand}
    # kept 1O 2O 3O 12C 12E 12B 2E: drawing 4O lengthens the run, throwing the 2E: all melded (0);
    # 7B helps nothing: thrown back (2 points); a joker: thrown back, or the 2E thrown (0);
    # 2C: the set 2O 2E 2C, throwing the 3O, leaves the 1O (1)
    kept = hand[:7]
    assert M.draw_points(kept, ["4O", "7B", "JK", "2C"], STD) == {
        "4O": (0, 0), "7B": (2, 1), "JK": (0, 0), "2C": (1, 1)}
    # two decks: a second 2E makes the set 2O 2E 2E, throwing the 3O (1O loose, 1 point)
    assert M.draw_points(kept, ["2E"], TRAD2) == {"2E": (1, 1)}
