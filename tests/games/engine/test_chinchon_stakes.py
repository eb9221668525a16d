"""Chinchón with a stake: the pot at the start, paid re-entry, the pot to the best-placed stakers (engine
"Coins"). Hands rigged as in test_chinchon_game; the coin figures are worked by hand in the comments."""

import random

import pytest

from games.engine import chinchon as C
from games.engine.errors import InvalidRules
from games.engine.types import events_for
from tests.games.engine.test_chinchon_game import EXAMPLE7, LOSER, OTHER, play, rig


def test_stake_is_a_setting_from_the_list():
    assert C.validate_rules({}).stake == 0
    assert C.validate_rules({"preset": "wild_ace", "stake": 25}).stake == 25
    for bad in (7, -10, True, "10", None, 1000):
        with pytest.raises(InvalidRules) as exc:
            C.validate_rules({"stake": bad})
        assert exc.value.field == "stake"


def test_the_stake_goes_into_the_pot_at_the_start():
    s, _ = C.initial_state({"preset": "traditional", "stake": 10}, 3, random.Random(0))
    s2, ev = C.stake(s, [2, 0])
    assert ev == [{"type": "stake", "audience": "all", "seats": [0, 2], "amount": 10, "pot": 20}]
    assert s2["pot"] == 20 and s2["stakers"] == [0, 2] and "pot" not in s  # 2 seats x 10
    assert C.view_for(s2, 1)["table"]["pot"] == {"stake": 10, "reentry_fee": 10, "total": 20, "stakers": [0, 2]}
    plain, _ = C.initial_state({"preset": "traditional"}, 3, random.Random(0))
    assert C.stake(plain, [0, 1, 2]) == (plain, [])
    assert "pot" not in C.view_for(plain, 0)["table"]


def _staked(settings, scores, stakers=(0, 1, 2), solvent=None):
    s = rig(settings, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"], scores=scores)
    s, _ = C.stake(s, list(stakers))
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    if solvent is not None:
        s = C.set_solvent(s, solvent)
    return play(s, 0, {"type": "close", "card": "11O"})


def test_solvency_is_needed_only_before_a_staked_close_that_may_offer_reentry():
    s = rig({"preset": "traditional", "stake": 25}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"])
    s, _ = C.stake(s, [0, 1, 2])
    assert C.solvency_needed(s) == 0  # draw phase: no close can come
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    assert C.solvency_needed(s) == 25
    plain = rig({"preset": "traditional"}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"])
    plain, _ = play(plain, 0, {"type": "draw", "source": "stock"})
    assert C.solvency_needed(plain) == 0 and C.set_solvent(plain, [0]) is plain
    off = rig({"stake": 25}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"])  # standard: reentry off
    off, _ = C.stake(off, [0, 1, 2])
    off, _ = play(off, 0, {"type": "draw", "source": "stock"})
    assert C.solvency_needed(off) == 0


def test_traditional_reengaging_puts_the_stake_back_into_the_pot():
    s, ev = _staked({"preset": "traditional", "stake": 10}, [10, 70, 20])
    assert s["out"][1] and C.awaiting(s) == [1]  # 70 + 40 = 110 > 100
    s, ev = play(s, 1, {"type": "reenter", "accept": True})
    public = events_for(ev, None)
    assert public[:2] == [{"type": "reenter", "seat": 1, "accept": True},
                          {"type": "reentry_paid", "seat": 1, "amount": 10, "pot": 40}]  # 30 + 10
    assert s["pot"] == 40 and s["reentries"][1] == 1 and not s["out"][1]


def test_a_declined_offer_pays_nothing():
    s, _ = _staked({"preset": "wild_ace", "deck": 48, "wild_card": None, "elimination": 100,
                    "close_after_first_round": False, "stake": 50},
                   [10, 70, 20])
    s, ev = play(s, 1, {"type": "reenter", "accept": False})
    assert s["pot"] == 150 and not any(e["type"] == "reentry_paid" for e in ev)


def test_no_offer_to_a_seat_that_cannot_pay_or_did_not_stake():
    s, ev = _staked({"preset": "traditional", "stake": 10}, [10, 70, 20], solvent=[0, 2])
    assert s["out"][1] and s["phase"] == "draw" and not any(e["type"] == "reentry_offer" for e in ev)
    s, ev = _staked({"preset": "traditional", "stake": 10}, [10, 70, 20], stakers=(0, 2))  # seat 1: a CPU
    assert s["out"][1] and s["phase"] == "draw"
    s, _ = _staked({"preset": "traditional"}, [10, 70, 20], solvent=[])  # no stake: solvency is ignored
    assert s["phase"] == "reentry"


def test_the_winner_takes_the_pot():
    s = rig({"stake": 25}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[40, 95])
    s, _ = C.stake(s, [0, 1])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, ev = play(s, 0, {"type": "close", "card": "11O"})
    assert [e["type"] for e in ev[-2:]] == ["pot_won", "game_end"]
    assert events_for(ev, None)[-2] == {"type": "pot_won", "pot": 50, "payouts": [{"seat": 0, "coins": 50}]}
    assert C.outcome(s)["pot"] == {"total": 50, "payouts": [{"seat": 0, "coins": 50}]}
    assert C.outcome(s)["standing"][0] == {"seat": 0, "place": 1, "score": 42}


@pytest.mark.parametrize(("pot", "places", "stakers", "expected"), [
    (100, {0: 1, 1: 2, 2: 3}, [0, 1, 2], [(0, 100)]),
    (100, {0: 1, 1: 1, 2: 1}, [0, 1, 2], [(0, 34), (1, 33), (2, 33)]),  # 100 = 3 x 33 + 1: seat 0 first
    (50, {0: 2, 1: 1, 2: 1, 3: 1}, [0, 2, 3], [(2, 25), (3, 25)]),  # seat 1 (a CPU) shares no coin
    (30, {0: 1, 1: 2, 2: 3}, [1, 2], [(1, 30)]),  # a CPU won: the best-placed staker takes it
    (101, {0: 3, 1: 1, 2: 1, 3: 2}, [0, 1, 2, 3], [(1, 51), (2, 50)]),
    (0, {0: 1}, [0], []),
    (10, {0: 1}, [], []),
])
def test_pot_payouts(pot, places, stakers, expected):
    standing = [{"seat": s, "place": p, "score": 0} for s, p in places.items()]
    assert C.pot_payouts(pot, standing, stakers) == [{"seat": s, "coins": c} for s, c in expected]


def test_a_staked_table_of_cpus_only_has_an_empty_pot():
    s = rig({"stake": 25}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[40, 95])  # stake() never called
    assert C.view_for(s, None)["table"]["pot"] == {"stake": 25, "reentry_fee": 25, "total": 0, "stakers": []}
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, ev = play(s, 0, {"type": "close", "card": "11O"})
    assert C.outcome(s)["pot"] == {"total": 0, "payouts": []}


def test_solvency_is_an_input_of_one_transition_never_stored():
    s = rig({"preset": "traditional", "stake": 10}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"])
    s, _ = C.stake(s, [0, 1, 2])
    s, _ = play(s, 0, {"type": "draw", "source": "stock"})
    s, _ = play(C.set_solvent(s, [0]), 0, {"type": "discard", "card": "11O"})
    assert "solvent" not in s and "solvent" not in C.to_dict(s)
