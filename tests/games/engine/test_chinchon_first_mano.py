"""The first mano (rules/chinchon.md "A hand" 1): ``first_mano: high_card`` (the ``traditional`` preset,
seed 002 "each player draws one card from the pack, the hand being whoever draws the highest card") draws
cards with the game's rng; ``random`` (``standard``, ``wild_ace``) picks a seat with it as it always did.
Expected values are computed here with ``random.Random``, independently of the engine."""

import random

import pytest

from games.engine import chinchon as C
from games.engine.errors import InvalidRules
from games.engine.types import events_for

SUITS = "OCEB"


def pack(deck=48, decks=1):
    """The pack a draw uses, in the engine's fixed order before the shuffle: suits O, C, E, B, ranks up;
    no jokers."""
    ranks = list(range(1, 13)) if deck == 48 else [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    return [f"{r}{s}" for _ in range(decks) for s in SUITS for r in ranks]


def rank(card):
    return int(card[:-1])


def expected_draw(seed, seats, deck=48, decks=1):
    """(mano, rounds) for ``random.Random(seed)``: a fresh shuffle per round, a card to each drawing seat
    in seat order from the end of the list, the seats tied for the top rank drawing again."""
    rng = random.Random(seed)
    drawing, rounds = list(range(seats)), []
    while True:
        cards = pack(deck, decks)
        rng.shuffle(cards)
        rnd = {p: cards.pop() for p in drawing}
        rounds.append({str(p): c for p, c in rnd.items()})
        top = max(rank(c) for c in rnd.values())
        drawing = [p for p, c in rnd.items() if rank(c) == top]
        if len(drawing) == 1:
            return drawing[0], rounds


# ------------------------------------------------------------------------------------------ the setting


def test_setting_and_presets():
    assert C.validate_rules({"preset": "traditional"}).first_mano == "high_card"
    assert C.validate_rules({"preset": "standard"}).first_mano == "random"
    assert C.validate_rules({"preset": "wild_ace"}).first_mano == "random"
    assert C.validate_rules({"preset": "standard", "first_mano": "high_card"}).first_mano == "high_card"
    assert C.validate_rules({"preset": "traditional", "first_mano": "random"}).first_mano == "random"
    with pytest.raises(InvalidRules) as exc:
        C.validate_rules({"first_mano": "lowest"})
    assert exc.value.field == "first_mano"


def test_states_stored_before_the_setting_read_as_random():
    old = C.rules_to_dict(C.validate_rules({"preset": "traditional"}))
    del old["first_mano"]
    assert C.rules_from_dict(old).first_mano == "random"


# ------------------------------------------------------------------------------------- the pure decision


def test_first_mano_decision():
    assert C.first_mano([{"0": "3O", "1": "12B", "2": "11O"}]) == (1, [])
    assert C.first_mano([{0: "12O", 1: "3C", 2: "12E"}]) == (None, [0, 2])
    assert C.first_mano([{0: "12O", 1: "3C", 2: "12E"}, {0: "5B", 2: "7O"}]) == (2, [])
    assert C.first_mano([{0: "10O", 1: "9C"}]) == (0, [])  # Sota over nine, by rank number
    assert C.first_mano([{0: "1O", 1: "2C"}]) == (1, [])  # the ace is the lowest card
    assert C.first_mano([{0: "7O", 1: "7O", 2: "7E"}]) == (None, [0, 1, 2])  # two decks: the same card ties


@pytest.mark.parametrize("rounds", [
    [],
    [{0: "7O"}],                                   # one seat
    [{0: "7O", 1: "JK"}],                          # a joker has no rank
    [{0: "7O", 1: "7C", 2: "1O"}, {0: "2O", 2: "3O"}],  # not the tied seats
    [{0: "7O", 1: "6C"}, {0: "2O", 1: "3O"}],      # a round after the mano is known
])
def test_first_mano_refuses_rounds_that_do_not_follow(rounds):
    with pytest.raises(ValueError):
        C.first_mano(rounds)


# ---------------------------------------------------------------------------------------------- the game


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_traditional_first_mano_is_the_high_card(seats):
    for seed in range(40):
        s, events = C.initial_state({"preset": "traditional"}, seats, random.Random(seed))
        mano, rounds = expected_draw(seed, seats)
        assert events[0] == {"type": "mano_draw", "audience": "all", "rounds": rounds, "mano": mano}
        assert s["mano"] == mano == s["turn"]
        assert [e["type"] for e in events[1:3]] == ["mano", "deal"] and events[1]["seat"] == mano
        last = rounds[-1]
        assert all(rank(c) < rank(last[str(mano)]) for p, c in last.items() if p != str(mano))


def test_the_deal_follows_the_draw_on_the_same_rng():
    """The deal shuffles with the rng after the draw: the whole start is a function of the seed."""
    seed, seats = 7, 3
    rng = random.Random(seed)
    drawing = list(range(seats))
    while True:  # replay the draw to leave rng where the engine's deal starts
        cards = pack()
        rng.shuffle(cards)
        rnd = {p: cards.pop() for p in drawing}
        top = max(rank(c) for c in rnd.values())
        drawing = [p for p, c in rnd.items() if rank(c) == top]
        if len(drawing) == 1:
            break
    mano = drawing[0]
    deck = pack()
    rng.shuffle(deck)
    hands = {p: [] for p in range(seats)}
    for _ in range(7):
        for p in [(mano + d) % seats for d in range(seats)]:
            hands[p].append(deck.pop())
    s, _ = C.initial_state({"preset": "traditional"}, seats, random.Random(seed))
    assert s["mano"] == mano
    assert [sorted(h) for h in s["hands"]] == [sorted(hands[p]) for p in range(seats)]
    assert s["discard"] == [deck.pop()] and s["stock"] == deck


def test_ties_are_drawn_again_by_the_tied_seats_only():
    found = 0
    for seed in range(400):
        mano, rounds = expected_draw(seed, 4)
        if len(rounds) < 2:
            continue
        found += 1
        s, events = C.initial_state({"preset": "traditional"}, 4, random.Random(seed))
        got = events[0]["rounds"]
        assert got == rounds and s["mano"] == mano
        for before, after in zip(got, got[1:], strict=False):
            top = max(rank(c) for c in before.values())
            assert sorted(after) == sorted(p for p, c in before.items() if rank(c) == top)
            assert len(after) >= 2
    assert found >= 10  # ties are common with four seats (rank ties, suits never count)


def test_two_decks_eight_seats_and_a_rigged_tie():
    """Two decks: the same card twice ties. A rigged rng whose first shuffle hands seats 0 and 1 a Rey
    each: only they draw again, and the second round's higher card is mano."""

    class Rigged(random.Random):
        def __init__(self):
            super().__init__(0)
            self.shuffles = 0

        def shuffle(self, x):
            self.shuffles += 1
            if self.shuffles == 1:  # the draw's first round: seats 0..7 pop 12O, 12O, then 1s
                tops = ["12O", "12O", "1O", "1O", "1C", "1C", "1E", "1E"]
            elif self.shuffles == 2:  # the tied seats 0 and 1: 3B, then 4B
                tops = ["3B", "4B"]
            else:
                return super().shuffle(x)
            for c in tops:
                x.remove(c)
            x.extend(reversed(tops))

    s, events = C.initial_state({"preset": "traditional"}, 8, Rigged())
    assert s["rules"]["decks"] == 2
    assert events[0]["rounds"] == [
        {"0": "12O", "1": "12O", "2": "1O", "3": "1O", "4": "1C", "5": "1C", "6": "1E", "7": "1E"},
        {"0": "3B", "1": "4B"},
    ]
    assert events[0]["mano"] == s["mano"] == 1


def test_no_joker_is_drawn_and_40_cards_have_no_8_or_9():
    for seed in range(60):
        _, events = C.initial_state({"preset": "standard", "first_mano": "high_card"}, 4, random.Random(seed))
        drawn = [c for rnd in events[0]["rounds"] for c in rnd.values()]
        assert "JK" not in drawn
        _, events = C.initial_state({"preset": "traditional", "deck": 40}, 4, random.Random(seed))
        mano, rounds = expected_draw(seed, 4, deck=40)
        assert events[0]["rounds"] == rounds and events[0]["mano"] == mano
        assert not any(rank(c) in (8, 9) for rnd in rounds for c in rnd.values())


@pytest.mark.parametrize("preset", ["standard", "wild_ace"])
def test_random_presets_unchanged(preset):
    """``random``: one ``randrange(seats)`` then the deal, exactly as before the setting; no draw event."""
    for seed in range(30):
        for seats in (2, 3, 4):
            s, events = C.initial_state({"preset": preset}, seats, random.Random(seed))
            assert s["mano"] == random.Random(seed).randrange(seats)
            assert [e["type"] for e in events[:2]] == ["mano", "deal"]
            assert "mano_draw" not in [e["type"] for e in events]


def test_standard_deal_unchanged_for_a_fixed_seed():
    rng = random.Random(2024)
    mano = rng.randrange(4)
    deck = pack() + ["JK", "JK"]
    rng.shuffle(deck)
    s, _ = C.initial_state({"preset": "standard"}, 4, random.Random(2024))
    assert s["mano"] == mano
    hands = {p: [] for p in range(4)}
    for _ in range(7):
        for p in [(mano + d) % 4 for d in range(4)]:
            hands[p].append(deck.pop())
    assert [sorted(h) for h in s["hands"]] == [sorted(hands[p]) for p in range(4)]


def test_the_draw_is_public():
    s, events = C.initial_state({"preset": "traditional"}, 3, random.Random(3))
    for seat in (0, 1, 2, None):
        assert events_for(events, seat)[0]["type"] == "mano_draw"
