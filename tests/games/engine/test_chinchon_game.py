"""The Chinchón state machine (rules/chinchon.md "A hand", "Closing", "Elimination, re-entry, end",
"Resigning, timeouts, absence"; API.md "Games"). States are rigged with known hands where needed."""

import copy
import json
import random
from collections import Counter

import pytest

from games.engine import chinchon as C
from games.engine.cards import build_deck
from games.engine.errors import IllegalAction, InvalidAction, InvalidRules, NotYourTurn
from games.engine.types import events_for


def deck_of(state):
    r = C.rules_from_dict(state["rules"])
    return build_deck(r.deck, r.decks, r.jokers)


def cards_in_play(s):
    return (
        s["stock"] + s["discard"] + [c for h in s["hands"] for c in h] + [c for m in s["laid"] for c in m]
        + ([s["face_down"]] if s["face_down"] else []) + s["set_aside"]
    )


def assert_invariant(s):
    assert Counter(cards_in_play(s)) == Counter(deck_of(s))


def rig(settings, seats, hands, discard, stock_top=(), mano=0, scores=None, seed=0):
    """A state at the start of ``mano``'s turn with the given hands, pile and top of the stock
    (``stock_top[0]`` drawn first); the rest of the pack lies below in the stock."""
    s, _ = C.initial_state(settings, seats, random.Random(seed))
    rest = Counter(deck_of(s))
    rest.subtract(Counter([c for h in hands for c in h] + list(discard) + list(stock_top)))
    assert all(v >= 0 for v in rest.values()), "rigged cards the deck cannot hold"
    below = [c for c in deck_of(s) if rest[c] > 0 and not rest.subtract([c])]
    s["hands"] = [list(h) for h in hands]
    s["discard"] = list(discard)
    s["stock"] = below + list(reversed(stock_top))
    s["mano"] = s["turn"] = mano
    s["awaiting"] = [mano]
    s["phase"] = "draw"
    s["dealt"] = [p for p in range(seats) if hands[p]]
    s["played"] = []
    if scores is not None:
        s["scores"] = list(scores)
    assert_invariant(s)
    return s


def play(s, seat, action, seed=1):
    before = copy.deepcopy(s)
    new, events = C.apply(s, seat, action, random.Random(seed))
    assert s == before, "apply mutated its input"
    assert_invariant(new)
    return new, events


FILL = [
    ["5B", "9B", "2C", "4E", "6E", "8C", "10B"],
    ["3B", "7B", "11E", "12O", "9C", "1B", "6C"],
    ["4B", "8B", "10E", "3C", "5E", "7C", "9E"],
]
EXAMPLE7 = ["1O", "2O", "3O", "12C", "12E", "12B", "2E"]  # after drawing 11O: close with 11O, 2 points


def test_initial_state():
    s, events = C.initial_state({}, 4, random.Random(3))
    assert s["schema"] == 1 and s["phase"] == "draw" and s["window"] == 1 and s["hand_number"] == 1
    assert all(len(h) == 7 for h in s["hands"])
    assert len(s["discard"]) == 1 and len(s["stock"]) == 50 - 29
    assert s["turn"] == s["mano"] and C.awaiting(s) == [s["mano"]]
    assert_invariant(s)
    types = [e["type"] for e in events]
    assert types[:2] == ["mano", "deal"] and types.count("hand") == 4 and types[-1] == "turn"
    for seat in range(4):
        mine = [e for e in events_for(events, seat) if e["type"] == "hand"]
        assert len(mine) == 1 and mine[0]["seat"] == seat and sorted(mine[0]["cards"]) == sorted(s["hands"][seat])
    assert not [e for e in events_for(events, None) if e["type"] == "hand"]
    assert json.loads(json.dumps(C.to_dict(s))) == s
    assert C.from_dict(json.loads(json.dumps(C.to_dict(s)))) == s


def test_initial_state_seats_and_decks():
    s, _ = C.initial_state({"preset": "traditional"}, 6, random.Random(1))
    assert len(deck_of(s)) == 96 and s["rules"]["decks"] == 2
    s, _ = C.initial_state(C.validate_rules({"preset": "traditional"}), 5, random.Random(1))
    assert s["rules"]["decks"] == 2
    with pytest.raises(InvalidRules) as e:
        C.initial_state({}, 5, random.Random(1))
    assert e.value.field == "seats"
    with pytest.raises(InvalidRules) as e:
        C.initial_state({"preset": "traditional", "decks": 1}, 5, random.Random(1))
    assert e.value.field == "decks"


def test_a_turn_is_one_window_and_stock_draw_is_private():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E"], ["9O"])
    w = C.window(s)
    assert C.legal_actions(s, 0) == [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    assert C.legal_actions(s, 1) == [] and C.other_actions(s, 1) == [{"type": "resign"}]
    s, ev = play(s, 0, {"type": "draw", "source": "stock"})
    assert C.window(s) == w and s["phase"] == "discard" and C.awaiting(s) == [0]
    assert {"type": "draw", "seat": 0, "source": "stock"} in events_for(ev, 1)
    assert not any("card" in e for e in events_for(ev, 1))
    assert not any("card" in e for e in events_for(ev, None))
    assert {"type": "drawn", "seat": 0, "card": "9O"} in events_for(ev, 0)
    assert C.view_for(s, 0)["table"]["taken_from_discard"] is None
    s, ev = play(s, 0, {"type": "discard", "card": "9O"})
    assert C.window(s) == w + 1 and s["turn"] == 1 and s["phase"] == "draw"
    assert s["discard"] == ["3E", "9O"]
    assert {"type": "discard", "seat": 0, "card": "9O"} in events_for(ev, None)


def test_discard_pile_draw_is_public_and_cannot_go_back():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E", "11O"], ["9O"])
    s, ev = play(s, 0, {"type": "draw", "source": "discard"})
    assert {"type": "draw", "seat": 0, "source": "discard", "card": "11O"} in events_for(ev, None)
    assert s["discard"] == ["3E"]
    v = C.view_for(s, 0)
    assert v["table"]["taken_from_discard"] == "11O"
    assert C.view_for(s, 1)["table"]["taken_from_discard"] is None
    legal = C.legal_actions(s, 0)
    assert {"type": "discard", "card": "11O"} not in legal
    assert {"type": "close", "card": "11O"} not in legal  # the only close lays 11O face down
    assert {"type": "discard", "card": "2E"} in legal
    assert len([a for a in legal if a["type"] == "discard"]) == 7
    with pytest.raises(IllegalAction):
        C.apply(s, 0, {"type": "discard", "card": "11O"}, random.Random(0))
    with pytest.raises(IllegalAction):
        C.apply(s, 0, {"type": "close", "card": "11O"}, random.Random(0))
    with pytest.raises(IllegalAction):
        C.apply(s, 0, {"type": "discard", "card": "7C"}, random.Random(0))  # not held


def test_copy_rule_two_jokers():
    hand = ["JK", "1O", "2O", "5C", "7E", "8B", "11C"]
    s = rig({}, 2, [hand, FILL[0]], ["3E", "JK"])
    s, _ = play(s, 0, {"type": "draw", "source": "discard"})
    assert {"type": "discard", "card": "JK"} in C.legal_actions(s, 0)
    s, _ = play(s, 0, {"type": "discard", "card": "JK"})
    assert s["hands"][0].count("JK") == 1


def test_copy_rule_two_decks():
    hands = [["5O", "1C", "3C", "7E", "9B", "11C", "12B"]] + [FILL[0], FILL[1], FILL[2], ["2B", "4C", "6B", "8O", "10C", "11O", "12E"]]
    s = rig({"preset": "traditional"}, 5, hands, ["3E", "5O"])
    s, _ = play(s, 0, {"type": "draw", "source": "discard"})
    s, _ = play(s, 0, {"type": "discard", "card": "5O"})
    assert s["hands"][0].count("5O") == 1


def test_action_errors():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E"], ["9O"])
    rng = random.Random(0)
    for bad in ({"type": "fly"}, {"type": "draw"}, {"type": "draw", "source": "hand"},
                {"type": "draw", "source": "stock", "x": 1}, {"type": "discard", "card": 7},
                {"type": "discard", "card": "ZZ"}, {"type": "reenter", "accept": "yes"}, "draw"):
        with pytest.raises(InvalidAction):
            C.apply(s, 0, bad, rng)
    with pytest.raises(InvalidAction):
        C.apply(s, 5, {"type": "resign"}, rng)
    with pytest.raises(NotYourTurn):
        C.apply(s, 1, {"type": "draw", "source": "stock"}, rng)
    with pytest.raises(NotYourTurn):
        C.apply(s, 0, {"type": "discard", "card": "2E"}, rng)  # must draw first
    with pytest.raises(NotYourTurn):
        C.apply(s, 0, {"type": "reenter", "accept": True}, rng)
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    with pytest.raises(NotYourTurn):
        C.apply(s, 0, {"type": "draw", "source": "stock"}, rng)  # one draw a turn
    with pytest.raises(IllegalAction):
        C.apply(s, 0, {"type": "close", "card": "2E"}, rng)  # 11O and 9O would both stay loose


def test_restock():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E", "4O", "6O", "8O"])
    top = [c for c in s["stock"]]
    s["discard"] += top[:-1]  # move the stock to the pile but one card, keeping the deck whole
    s["stock"] = top[-1:]
    pile = list(s["discard"])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "discard", "card": "2E"})
    assert s["stock"] == []
    s, ev = play(s, 1, {"type": "draw", "source": "stock"})
    assert [e["type"] for e in ev][:2] == ["restock", "draw"]
    assert s["discard"] == ["2E"]
    assert sorted(s["stock"] + [s["hands"][1][-1]]) == sorted(pile)
    assert ev[0]["stock_size"] == len(pile)


def _pickups_everywhere(s):
    """The ``pickups`` of the table, asserted the same for every seat and a spectator."""
    views = [C.view_for(s, seat)["table"]["pickups"] for seat in [*range(s["seats"]), None]]
    assert all(v == views[0] for v in views)
    assert views[0] == s["pickups"] and views[0] is not s["pickups"]
    return views[0]


def test_pickups_are_public_kept_across_a_restock_and_reset_at_the_deal():
    s = rig({}, 3, [EXAMPLE7, FILL[0], FILL[1]], ["3E"], ["11O"])
    assert _pickups_everywhere(s) == []
    s, ev = play(s, 0, {"type": "draw", "source": "discard"})
    assert {"type": "draw", "seat": 0, "source": "discard", "card": "3E"} in events_for(ev, 2)
    assert _pickups_everywhere(s) == [{"seat": 0, "card": "3E"}]
    s, _ = play(s, 0, {"type": "discard", "card": "2E"})
    s, _ = play(s, 1, {"type": "draw", "source": "stock"})  # 11O: a stock card is never a pick-up
    assert _pickups_everywhere(s) == [{"seat": 0, "card": "3E"}]
    assert "11O" not in json.dumps(C.view_for(s, 2)) and "11O" not in json.dumps(C.view_for(s, None))
    s, _ = play(s, 1, {"type": "discard", "card": "10B"})
    s, _ = play(s, 2, {"type": "draw", "source": "discard"})
    s, _ = play(s, 2, {"type": "discard", "card": "3B"})
    assert _pickups_everywhere(s) == [{"seat": 0, "card": "3E"}, {"seat": 2, "card": "10B"}]
    # the stock runs out: a restock keeps the hand's pick-ups
    s["discard"] = s["stock"] + s["discard"]
    s["stock"] = []
    s, ev = play(s, 0, {"type": "draw", "source": "stock"})
    assert ev[0]["type"] == "restock"
    assert _pickups_everywhere(s) == [{"seat": 0, "card": "3E"}, {"seat": 2, "card": "10B"}]
    # 1O 2O 3O, 12C 12E 12B and 3E loose (3 points): seat 0 closes; the next deal starts afresh
    drawn = s["drawn"]
    assert {"type": "close", "card": drawn} in C.legal_actions(s, 0)
    s, _ = play(s, 0, {"type": "close", "card": drawn})
    assert s["hand_number"] == 2 and s["phase"] == "draw"
    assert _pickups_everywhere(s) == []


def _turns_everywhere(s):
    """The table's ``turns``, asserted the same for every seat and a spectator."""
    views = [C.view_for(s, seat)["table"]["turns"] for seat in [*range(s["seats"]), None]]
    assert all(v == s["turns"] for v in views)
    return s["turns"]


def test_turns_count_the_hand_s_turns_public_kept_across_a_restock_and_reset_at_the_deal():
    s, _ = C.initial_state({}, 3, random.Random(5))
    assert _turns_everywhere(s) == 0
    s = rig({}, 3, [EXAMPLE7, FILL[0], FILL[1]], ["3E"], ["11O"])
    assert _turns_everywhere(s) == 0
    s, _ = play(s, 0, {"type": "draw", "source": "discard"})
    assert _turns_everywhere(s) == 0  # a turn counts once completed (its discard)
    s, _ = play(s, 0, {"type": "discard", "card": "2E"})
    assert _turns_everywhere(s) == 1
    s, _ = play(s, 1, {"type": "draw", "source": "stock"})
    s, _ = play(s, 1, {"type": "discard", "card": "10B"})
    s, _ = play(s, 2, {"type": "draw", "source": "discard"})
    s, _ = play(s, 2, {"type": "discard", "card": "3B"})
    assert _turns_everywhere(s) == 3
    # the stock runs out: a restock keeps the count
    s["discard"] = s["stock"] + s["discard"]
    s["stock"] = []
    s, ev = play(s, 0, {"type": "draw", "source": "stock"})
    assert ev[0]["type"] == "restock" and _turns_everywhere(s) == 3
    drawn = s["drawn"]
    s, _ = play(s, 0, {"type": "close", "card": drawn})  # the close scores the hand; the next deal starts at 0
    assert s["hand_number"] == 2 and _turns_everywhere(s) == 0
    seat = s["turn"]
    s, _ = play(s, seat, {"type": "draw", "source": "stock"})
    s, _ = play(s, seat, C.default_action(s, seat))
    assert _turns_everywhere(s) == 1


def test_a_state_saved_without_turns_reads_as_zero():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E"], ["11O"])
    old = C.to_dict(s)
    del old["turns"]
    loaded = C.from_dict(json.loads(json.dumps(old)))
    assert loaded["turns"] == 0 and loaded == s
    assert C.view_for(old, None)["table"]["turns"] == 0  # a raw dict without the key is read as 0
    new, _ = C.apply(old, 0, {"type": "draw", "source": "stock"}, random.Random(1))
    new, _ = C.apply(new, 0, {"type": "discard", "card": "2E"}, random.Random(1))
    assert new["turns"] == 1 and "turns" not in old


def test_a_state_saved_without_pickups_still_loads_and_plays():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E"], ["11O"])
    old = C.to_dict(s)
    del old["pickups"]
    loaded = C.from_dict(json.loads(json.dumps(old)))
    assert loaded["pickups"] == [] and loaded == s
    assert C.view_for(old, 1)["table"]["pickups"] == []  # a raw dict without the key is read as []
    new, _ = C.apply(old, 0, {"type": "draw", "source": "discard"}, random.Random(1))
    assert new["pickups"] == [{"seat": 0, "card": "3E"}] and "pickups" not in old


def test_empty_stock_and_one_card_pile_only_pile_draw():
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E"])
    s["set_aside"] = s["stock"]  # bookkeeping only: cards gone from the stock
    s["stock"] = []
    assert C.legal_actions(s, 0) == [{"type": "draw", "source": "discard"}]
    assert C.default_action(s, 0) == {"type": "draw", "source": "discard"}
    with pytest.raises(IllegalAction):
        C.apply(s, 0, {"type": "draw", "source": "stock"}, random.Random(0))


def test_close_scores_reveals_and_deals_the_next_hand():
    s = rig({}, 2, [EXAMPLE7, ["4O", "12O", "5C", "6C", "7C", "9E", "9B"]], ["3E"], ["11O"], mano=0)
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    assert {"type": "close", "card": "11O"} in C.legal_actions(s, 0)
    w = C.window(s)
    s, ev = play(s, 0, {"type": "close", "card": "11O"})
    assert s["scores"] == [2, 18]
    assert s["hand_number"] == 2 and s["mano"] == 1 and s["turn"] == 1 and C.window(s) == w + 1
    assert all(len(s["hands"][p]) == 7 for p in (0, 1)) and s["face_down"] is None
    types = [e["type"] for e in ev]
    assert types[:3] == ["close", "reveal", "score"] and "deal" in types
    close = ev[0]
    assert close == {"type": "close", "audience": "all", "seat": 0}
    reveal = C.view_for(s, 1)["table"]["reveal"]
    assert reveal == C.view_for(s, 0)["table"]["reveal"] == C.view_for(s, None)["table"]["reveal"]
    assert reveal["hand_number"] == 1 and reveal["closer"] == 0
    assert reveal["seats"]["0"] == {"melds": [["1O", "2O", "3O"], ["12C", "12E", "12B"]], "loose": ["2E"],
                                    "laid_off": [], "points": 2, "kind": "normal"}
    assert reveal["seats"]["1"]["points"] == 18 and "kind" not in reveal["seats"]["1"]
    assert "11O" not in json.dumps(reveal)  # the face-down card is never shown
    score = next(e for e in ev if e["type"] == "score")
    assert score["deltas"] == {"0": 2, "1": 18} and score["scores"] == {"0": 2, "1": 18}


def test_close_after_first_round():
    hands = [["3C", "3E", "3B", "5O", "6O", "7O", "2E"], FILL[0]]
    s = rig({"preset": "wild_ace"}, 2, [hands[0], ["5B", "2C", "4E", "6E", "7C", "11B", "10C"]], ["3O"], ["12O", "12C", "12B"])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    assert s["rules"]["close_after_first_round"] is True
    assert [a for a in C.legal_actions(s, 0) if a["type"] == "close"] == []
    with pytest.raises(IllegalAction):
        C.apply(s, 0, {"type": "close", "card": "12O"}, random.Random(0))
    assert C.view_for(s, 0)["table"]["first_round_complete"] is False
    s, _ = play(s, 0, {"type": "discard", "card": "12O"})
    s, _ = play(s, 1, {"type": "draw", "source": "stock"})
    assert C.view_for(s, 1)["table"]["first_round_complete"] is False  # the current turn does not count
    s, _ = play(s, 1, {"type": "discard", "card": "12C"})
    assert C.view_for(s, 0)["table"]["first_round_complete"] is True
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    assert {"type": "close", "card": "12B"} in C.legal_actions(s, 0)


def test_elimination_last_seat_wins():
    s = rig({}, 2, [EXAMPLE7, ["4B", "12O", "5C", "6E", "7C", "9E", "9B"]], ["3E"], ["11O"], scores=[40, 95])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, ev = play(s, 0, {"type": "close", "card": "11O"})
    # seat 1: 12O on the Reyes; 4B 5C 6E 7C 9E 9B = 40 -> 135, out
    assert s["scores"] == [42, 135] and s["out"] == [False, True]
    assert s["phase"] == "finished" and C.awaiting(s) == []
    assert C.outcome(s) == {"standing": [{"seat": 0, "place": 1, "score": 42}, {"seat": 1, "place": 2, "score": 135}],
                            "reason": "last_seat"}
    assert ev[-1]["type"] == "game_end"
    assert {"type": "out", "seat": 1, "score": 135} in events_for(ev, None)
    assert C.legal_actions(s, 0) == [] and C.other_actions(s, 0) == []
    with pytest.raises(NotYourTurn):
        C.apply(s, 0, {"type": "resign"}, random.Random(0))


LOSER = ["4B", "12O", "5C", "6E", "7C", "9E", "9B"]  # 40 points after the 12O goes on the Reyes
OTHER = ["2B", "3C", "4E", "6B", "8C", "10E", "1C"]  # 1C 2B 3C 4E 6B 8C 10E: no meld, 34 points


def _three_seats(settings, scores):
    s = rig(settings, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"], scores=scores)
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    return play(s, 0, {"type": "close", "card": "11O"})


def test_reentry_once():
    s, ev = _three_seats({"reentry": "once"}, [10, 70, 20])
    assert s["scores"] == [12, 110, 54] and s["out"] == [False, True, False]
    assert s["phase"] == "reentry" and C.awaiting(s) == [1]
    assert C.view_for(s, 1)["turn"] == 1
    assert C.legal_actions(s, 1) == [{"type": "reenter", "accept": True}, {"type": "reenter", "accept": False}]
    assert C.default_action(s, 1) == {"type": "reenter", "accept": False}
    assert {"type": "reentry_offer", "seats": [1], "score": 54} in events_for(ev, None)
    w = C.window(s)
    s, ev = play(s, 1, {"type": "reenter", "accept": True})
    assert s["out"][1] is False and s["scores"][1] == 54 and s["reentries"][1] == 1
    assert s["hand_number"] == 2 and s["phase"] == "draw" and C.window(s) == w + 1
    assert s["mano"] == 1  # the first seat still in after mano 0
    assert all(len(s["hands"][p]) == 7 for p in range(3))
    # out again: no second offer with "once"
    s = rig({"reentry": "once"}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"], scores=[10, 70, 20])
    s["reentries"][1] = 1
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["phase"] == "draw" and s["out"][1] and s["hand_number"] == 2 and s["hands"][1] == []


def test_reentry_unlimited_and_decline():
    s = rig({"reentry": "unlimited"}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"], scores=[10, 70, 20])
    s["reentries"][1] = 3
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["phase"] == "reentry"
    s, _ = play(s, 1, {"type": "reenter", "accept": False})
    assert s["out"][1] and s["phase"] == "draw" and s["hands"][1] == []
    assert s["exit_hand"][1] == 1


def test_reentry_off_and_two_seat_games():
    s, _ = _three_seats({}, [10, 70, 20])  # standard: reentry off
    assert s["phase"] == "draw" and s["out"][1]
    s = rig({"preset": "traditional"}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[10, 70])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["phase"] == "finished"  # a game started with 2 seats never offers re-entry


def test_reentry_needs_two_seats_still_in():
    # seats 1 and 2 both go out: one seat left, it wins, no offers
    s, _ = _three_seats({"reentry": "unlimited"}, [10, 70, 70])
    assert s["phase"] == "finished" and C.outcome(s)["reason"] == "last_seat"
    st = C.outcome(s)["standing"]
    # seats 1 (110) and 2 (104) went out in the same hand: lower score first
    assert [(x["seat"], x["place"]) for x in st] == [(0, 1), (2, 2), (1, 3)]


def test_reentry_window_for_several_seats():
    s = rig({"reentry": "unlimited"}, 4, [EXAMPLE7, LOSER, OTHER, ["1E", "1B", "10B", "11E", "3B", "5E", "8B"]],
            ["3E"], ["11O"], scores=[10, 70, 80, 20])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    # seat 3: 1E 1B 3B 5E 8B 10B 11E, no meld = 38 -> 58; seats 1 (110) and 2 (114) out
    assert s["scores"] == [12, 110, 114, 58]
    assert C.awaiting(s) == [1, 2] and C.view_for(s, 1)["turn"] is None and s["reentry_score"] == 58
    w = C.window(s)
    s, _ = play(s, 2, {"type": "reenter", "accept": True})
    assert C.awaiting(s) == [1] and C.window(s) == w and s["phase"] == "reentry"
    with pytest.raises(NotYourTurn):
        C.apply(s, 2, {"type": "reenter", "accept": False}, random.Random(0))
    s, _ = play(s, 1, {"type": "resign"})  # a seat that is out may resign; it declines its offer
    assert s["phase"] == "draw" and s["scores"][2] == 58 and not s["out"][2]
    assert s["resigned"][1] and s["hands"][1] == []


def test_all_out_tie_breaks():
    # every seat goes out in the same hand: the lowest score wins
    s = rig({}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[99, 70])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["scores"] == [101, 110]
    assert C.outcome(s) == {"standing": [{"seat": 0, "place": 1, "score": 101}, {"seat": 1, "place": 2, "score": 110}],
                            "reason": "all_out"}
    # equal scores: the closer wins
    s = rig({}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[108, 70])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["scores"] == [110, 110]
    st = C.outcome(s)["standing"]
    assert [(x["seat"], x["place"]) for x in st] == [(0, 1), (1, 2)]
    # equal lowest scores without the closer: the first of them in play order from the mano (mano 2)
    hands = [["1O", "2O", "3O", "12C", "12E", "12B", "11O"], ["2C", "4C", "4E", "6B", "8C", "10E", "1B"],
             ["2B", "5C", "4B", "6E", "8B", "10B", "1E"]]
    s = rig({}, 3, hands, ["3E"], ["2E"], mano=2, scores=[120, 80, 80])
    s["turn"], s["awaiting"] = 0, [0]
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    # closer 2E loose: 122; seat 1: 1B 2C 4C 4E 6B 8C 10E = 35 -> 115; seat 2: 1E 2B 4B 5C 6E 8B 10B = 36 -> 116
    assert s["scores"] == [122, 115, 116]
    assert [(x["seat"], x["place"]) for x in C.outcome(s)["standing"]] == [(1, 1), (2, 2), (0, 3)]
    hands[2] = ["2B", "3B", "4B", "7E", "8B", "10B", "11E"]  # 2B 3B 4B run; 7E 8B 10B 11E = 35 -> 115
    s = rig({}, 3, hands, ["3E"], ["2E"], mano=2, scores=[120, 80, 80])
    s["turn"], s["awaiting"] = 0, [0]
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["scores"] == [122, 115, 115]
    assert C.outcome(s)["reason"] == "all_out"
    assert [(x["seat"], x["place"]) for x in C.outcome(s)["standing"]] == [(2, 1), (1, 2), (0, 3)]


def test_chinchon_wins_the_game():
    other = ["4B", "12O", "5E", "6E", "7B", "9E", "9B"]
    third = ["2B", "4E", "6B", "8E", "10E", "1B", "11B"]
    hands = [["1C", "2C", "3C", "4C", "5C", "6C", "7C"], other, third]
    s = rig({}, 3, hands, ["3E"], ["11O"], scores=[50, 20, 30])
    s["out"][2] = True
    s["exit_hand"][2] = 1
    s["hands"][2], s["set_aside"] = [], list(third)  # (bookkeeping: seat 2 holds nothing)
    s["dealt"] = [0, 1]
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, ev = play(s, 0, {"type": "close", "card": "11O"})
    assert s["phase"] == "finished" and s["scores"] == [50, 20, 30]
    assert C.outcome(s) == {"standing": [{"seat": 0, "place": 1, "score": 50}, {"seat": 1, "place": 2, "score": 20},
                                         {"seat": 2, "place": 3, "score": 30}], "reason": "chinchon"}
    assert s["reveal"]["seats"]["0"]["kind"] == "chinchon"


def test_resignation():
    s = rig({}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"])
    s, _ = play(s, 0, {"type": "draw", "source": "discard"})
    w = C.window(s)
    s, ev = play(s, 0, {"type": "resign"})
    assert s["resigned"][0] and s["hands"][0] == [] and sorted(s["set_aside"]) == sorted(EXAMPLE7 + ["3E"])
    assert s["turn"] == 1 and s["phase"] == "draw" and C.window(s) == w + 1
    assert C.legal_actions(s, 1) == [{"type": "draw", "source": "stock"}]  # the pile is empty
    assert C.other_actions(s, 0) == []
    v = C.view_for(s, 0)
    assert v["table"]["hand"] == [] and "set_aside" not in json.dumps(v)
    for card in EXAMPLE7:
        assert f'"{card}"' not in json.dumps(C.view_for(s, 1))
    # a seat that is not awaited may resign; one seat left in wins at once
    s, ev = play(s, 2, {"type": "resign"})
    assert s["phase"] == "finished"
    assert C.outcome(s) == {"standing": [{"seat": 1, "place": 1, "score": 0}, {"seat": 2, "place": 2, "score": 0},
                                         {"seat": 0, "place": 3, "score": 0}], "reason": "resignations"}


def test_resigned_seat_is_never_mano_nor_counted_for_the_first_round():
    hands = [["3C", "3E", "3B", "5O", "6O", "7O", "2E"], ["4B", "12O", "5C", "6E", "7C", "11E", "1B"],
             ["2B", "4C", "4E", "6B", "10C", "10E", "1C"]]
    s = rig({"preset": "wild_ace"}, 3, hands, ["3O"], ["12C"])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "discard", "card": "12C"})
    s, _ = play(s, 1, {"type": "resign"})
    assert s["turn"] == 2
    s, _ = play(s, 2, {"type": "draw", "source": "stock"})
    s, _ = play(s, 2, {"type": "discard", "card": s["hands"][2][-1]})
    assert C.view_for(s, 0)["table"]["first_round_complete"] is True
    assert C.awaiting(s) == [0]


def test_next_mano_skips_seats_not_in():
    s = rig({}, 4, [EXAMPLE7, LOSER, OTHER, ["1E", "1B", "10B", "11E", "3B", "5E", "8B"]], ["3E"], ["11O"], mano=3)
    s["turn"], s["awaiting"] = 0, [0]
    s["out"][0] = False
    s["resigned"][1] = True
    s["resign_order"] = [1]
    s["set_aside"], s["hands"][1] = list(LOSER), []
    s["dealt"] = [0, 2, 3]
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["mano"] == 0
    s = rig({}, 4, [EXAMPLE7, LOSER, OTHER, ["1E", "1B", "10B", "11E", "3B", "5E", "8B"]], ["3E"], ["11O"], mano=0)
    s["resigned"][1] = True
    s["resign_order"] = [1]
    s["set_aside"], s["hands"][1] = list(LOSER), []
    s["dealt"] = [0, 2, 3]
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    assert s["mano"] == 2 and s["hands"][1] == []


def test_default_action():
    hand = ["1O", "2O", "3O", "12C", "12E", "5B", "9E"]
    s = rig({}, 2, [hand, FILL[1]], ["3E"], ["7C"])
    assert C.default_action(s, 0) == {"type": "draw", "source": "stock"}
    with pytest.raises(NotYourTurn):
        C.default_action(s, 1)
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    # removing 12C or 12E leaves 31 (10 + 5 + 9 + 7); equal value and rank: suit C before E
    assert C.default_action(s, 0) == {"type": "discard", "card": "12C"}
    # the card just taken from the pile is never the default discard
    s = rig({}, 2, [["1O", "2O", "3O", "12C", "5E", "9E", "7C"], ["4B", "8B", "10E", "3C", "6E", "11C", "2B"]], ["3E", "12B"])
    s, _ = play(s, 0, {"type": "draw", "source": "discard"})
    assert C.default_action(s, 0) == {"type": "discard", "card": "12C"}
    # close when any close is legal: the fewest loose points (1E face down: menos diez)
    s = rig({}, 2, [["1O", "2O", "3O", "4O", "12C", "12E", "12B"], FILL[0]], ["3E"], ["1E"])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    closes = [a["card"] for a in C.legal_actions(s, 0) if a["type"] == "close"]
    assert closes == ["1O", "4O", "1E"]
    assert C.default_action(s, 0) == {"type": "close", "card": "1E"}
    s = rig({}, 2, [EXAMPLE7, FILL[0]], ["3E"], ["11O"])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    assert C.default_action(s, 0) == {"type": "close", "card": "11O"}


def test_view_hides_what_it_must():
    s = rig({}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    spectator = C.view_for(s, None)
    assert spectator["table"]["hand"] is None
    assert set(spectator) == {"phase", "awaiting", "turn", "players", "table", "result"}
    assert set(spectator["table"]) == {"hand", "taken_from_discard", "hand_sizes", "stock_size", "discard_pile",
                                       "pickups", "turns", "scores", "mano", "hand_number", "first_round_complete",
                                       "reveal"}
    assert spectator["players"][0] == {"seat": 0, "score": 0, "resigned": False, "out": False, "reentries": 0}
    v0 = C.view_for(s, 0)
    assert v0["table"]["hand"] == ["1O", "2O", "3O", "11O", "12C", "2E", "12E", "12B"]
    assert v0["table"]["hand_sizes"] == {"0": 8, "1": 7, "2": 7}
    assert v0["table"]["stock_size"] == len(s["stock"]) and v0["table"]["discard_pile"] == ["3E"]
    text = json.dumps(C.view_for(s, 1))
    for c in set(EXAMPLE7 + ["11O"] + OTHER) - set(LOSER) - {"3E"}:
        assert f'"{c}"' not in text
    s, _ = play(s, 0, {"type": "close", "card": "11O"})
    for seat in (0, 1, 2, None):
        v = C.view_for(s, seat)
        assert '"11O"' not in json.dumps(v["table"]["reveal"])


def test_round_trip_and_no_mutation():
    s, _ = C.initial_state({"preset": "traditional"}, 3, random.Random(9))
    for _ in range(30):
        seat = C.awaiting(s)[0]
        s, _ = play(s, seat, C.default_action(s, seat))
        assert C.from_dict(json.loads(json.dumps(C.to_dict(s)))) == s
    with pytest.raises(ValueError):
        C.from_dict({**s, "schema": 99})
