"""Property tests (hypothesis): the solver against a brute-force reference written here; random legal
play ends, keeps every card of the deck exactly once, never shows a seat a card hidden from it, and
round-trips through JSON."""

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import chinchon as C
from games.engine import chinchon_melds as M
from games.engine.cards import build_deck, card_sort_key
from games.engine.types import events_for

# ------------------------------------------------------------------ an independent brute-force reference

FIGURES = {10: 10, 11: 10, 12: 10}


def ref_value(card, wild_card):
    if card == "JK" or card == wild_card:
        return 25
    rank = int(card[:-1])
    return FIGURES.get(rank, rank)


def ref_is_meld(cards, order, maxj, wild_card):
    if len(cards) < 3:
        return False
    wild = [c for c in cards if c == "JK" or c == wild_card]
    nat = [c for c in cards if c not in wild]
    if not nat or len(wild) > maxj:
        return False
    ranks = [int(c[:-1]) for c in nat]
    suits = {c[-1] for c in nat}
    if len(set(ranks)) == 1 and len(cards) <= 4:
        return True
    if len(suits) != 1 or len(set(ranks)) != len(ranks):
        return False
    places = {order.index(r) for r in ranks}
    n = len(cards)
    return any(all(start <= p < start + n for p in places) for start in range(len(order) - n + 1))


def ref_best(cards, order, maxj, wild_card):
    """Fewest (loose points, loose cards) over every choice of disjoint melds, by exhaustive search."""
    cards = list(cards)
    if not cards:
        return (0, 0)
    first, rest = cards[0], cards[1:]
    p, n = ref_best(rest, order, maxj, wild_card)
    best = (p + ref_value(first, wild_card), n + 1)
    for mask in range(1, 1 << len(rest)):
        group = [first] + [rest[i] for i in range(len(rest)) if mask >> i & 1]
        if len(group) >= 3 and ref_is_meld(group, order, maxj, wild_card):
            left = [rest[i] for i in range(len(rest)) if not mask >> i & 1]
            best = min(best, ref_best(left, order, maxj, wild_card))
    return best


@st.composite
def hands(draw):
    deck = draw(st.sampled_from([40, 48]))
    maxj = draw(st.sampled_from([1, 2]))
    wild_card = draw(st.sampled_from([None, "1O"]))
    n = draw(st.sampled_from([7, 8]))
    rules = C.validate_rules({"deck": deck, "max_jokers_per_meld": maxj, "wild_card": wild_card, "jokers": 2})
    pack = build_deck(deck, 1, 2)
    # favour dense hands: a few suits and ranks, and the wilds often
    wilds = draw(st.integers(0, 2))
    naturals = [c for c in pack if c != "JK"]
    lo = draw(st.integers(0, len(naturals) - 1))
    pool = naturals[lo:lo + 14] + naturals[:max(0, lo + 14 - len(naturals))]
    pool = pool + [c for c in naturals if c[-1] in draw(st.sampled_from(["O", "C", "EB"])) and c not in pool]
    chosen = draw(st.lists(st.sampled_from(pool), min_size=n - wilds, max_size=n - wilds, unique=True))
    return rules, chosen + ["JK"] * wilds


@settings(max_examples=150, deadline=None)
@given(hands())
def test_solver_matches_brute_force(case):
    rules, cards = case
    order = [1, 2, 3, 4, 5, 6, 7] + ([8, 9] if rules.deck == 48 else []) + [10, 11, 12]
    want = ref_best(cards, order, rules.max_jokers_per_meld, rules.wild_card)
    melds, loose, points = M.best_arrangement(cards, rules)
    assert (points, len(loose)) == want
    assert M.arrangement_points(cards, rules) == want
    assert sorted([c for m in melds for c in m] + loose) == sorted(cards)
    assert all(ref_is_meld(m, order, rules.max_jokers_per_meld, rules.wild_card) for m in melds)


@settings(max_examples=150, deadline=None)
@given(hands())
def test_discard_and_draw_points_match_brute_force(case):
    """``discard_points`` of 8 cards is the reference best of the 7 left after each discard, and
    ``draw_points`` of 7 kept cards and a drawn card is the best of those; on 7 cards, one fewer."""
    rules, cards = case
    order = [1, 2, 3, 4, 5, 6, 7] + ([8, 9] if rules.deck == 48 else []) + [10, 11, 12]

    def ref(cs):
        return ref_best(cs, order, rules.max_jokers_per_meld, rules.wild_card)

    def without(cs, c):
        rest = list(cs)
        rest.remove(c)
        return rest

    after = M.discard_points(cards, rules)
    assert list(after) == list(dict.fromkeys(sorted(cards, key=card_sort_key)))
    for c, got in after.items():
        assert got == ref(without(cards, c)), c
    *kept, drawn = cards
    want = min(ref(without(cards, x)) for x in cards)
    assert M.draw_points(kept, [drawn], rules) == {drawn: want}
    assert M.draw_points(list(reversed(kept)), [drawn, drawn], rules) == {drawn: want}  # cached, any order


# ------------------------------------------------------------------------------------- random legal play

def _codes(obj, skip=("reveal",)):
    """Every string of ``obj`` that looks like a card code, outside the ``skip`` keys."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                out += _codes(v, skip)
    elif isinstance(obj, list):
        for v in obj:
            out += _codes(v, skip)
    elif isinstance(obj, str) and (obj == "JK" or (obj[:-1].isdigit() and obj[-1] in "OCEB")):
        out.append(obj)
    return out


def _check_views(s):
    seats = s["seats"]
    reveals = []
    for seat in list(range(seats)) + [None]:
        v = C.view_for(s, seat)
        own = s["hands"][seat] if seat is not None else []
        picked = [p["card"] for p in v["table"]["pickups"]]  # public: taken face up from the pile
        assert v["table"]["pickups"] == s["pickups"]
        visible = Counter(own) + Counter(s["discard"]) + Counter(picked)
        assert not Counter(_codes(v, ("reveal", "taken_from_discard"))) - visible, (seat, _codes(v))
        taken = v["table"]["taken_from_discard"]
        assert taken is None or (seat == s["turn"] and taken in own)
        if seat is not None:
            assert sorted(v["table"]["hand"]) == sorted(own)
        reveals.append(json.dumps(v["table"]["reveal"], sort_keys=True))
        assert "stock" not in v["table"] and "face_down" not in json.dumps(v)
    assert len(set(reveals)) == 1  # the reveal is public: the same for everyone


def _check_pickups(events, s_before, s_after, deck, restocked):
    """``pickups`` is exactly the hand's public draws from the pile (the ``draw`` events with a card),
    oldest first: a stock draw never adds to it; before any restock of the hand no card of the stock that
    is alone of its code in the deck is among them. Returns whether the current hand has restocked."""
    expected = list(s_before["pickups"])
    for e in events_for(events, None):
        if e["type"] == "deal":
            expected, restocked = [], False
        elif e["type"] == "restock":
            restocked = True
        elif e["type"] == "draw" and e["source"] == "discard":
            expected.append({"seat": e["seat"], "card": e["card"]})
    assert s_after["pickups"] == expected
    if not restocked:
        unique = {c for c, n in deck.items() if n == 1}
        assert not {p["card"] for p in s_after["pickups"]} & set(s_after["stock"]) & unique
    if any(e["type"] == "drawn" for e in events):  # a stock draw (private) leaves the pick-ups as they were
        assert s_after["pickups"] == s_before["pickups"]
    return restocked


def _check_events(events, s_before, s_after):
    for seat in list(range(s_after["seats"])) + [None]:
        for e in events_for(events, seat):
            if e["type"] in ("hand", "drawn"):
                assert seat is not None and e["seat"] == seat
            if e["type"] == "close":
                assert "card" not in e


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["standard", "traditional", "wild_ace"]),
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    reentry=st.sampled_from(["off", "once", "unlimited"]),
    greedy=st.floats(0.5, 0.95),
)
def test_random_play(preset, seats, seed, reentry, greedy):
    if preset != "traditional":
        seats = min(seats, 4)
    rules = {"preset": preset, "reentry": reentry, "elimination": 50}
    rng = random.Random(seed)
    s, events = C.initial_state(rules, seats, rng)
    deck = Counter(build_deck(s["rules"]["deck"], s["rules"]["decks"], s["rules"]["jokers"]))
    restocked = False
    for step in range(4000):
        inv = Counter(
            s["stock"] + s["discard"] + [c for h in s["hands"] for c in h] + [c for m in s["laid"] for c in m]
            + ([s["face_down"]] if s["face_down"] else []) + s["set_aside"]
        )
        assert inv == deck
        if step % 7 == 0:
            _check_views(s)
            assert C.from_dict(json.loads(json.dumps(C.to_dict(s)))) == s
        if s["phase"] == "finished":
            break
        aw = C.awaiting(s)
        if rng.random() < 0.003:
            choices = [p for p in range(seats) if C.other_actions(s, p)]
            seat, action = rng.choice(choices), {"type": "resign"}
        else:
            seat = rng.choice(aw)
            legal = C.legal_actions(s, seat)
            assert legal
            action = C.default_action(s, seat) if rng.random() < greedy else rng.choice(legal)
            if action["type"] == "reenter" and rng.random() < 0.5:
                action = {"type": "reenter", "accept": True}
            assert action in legal
        before = json.dumps(s, sort_keys=True)
        w = C.window(s)
        new, events = C.apply(s, seat, action, rng)
        assert json.dumps(s, sort_keys=True) == before
        assert C.window(new) >= w
        if action["type"] == "draw":
            assert C.window(new) == w  # a turn is one window
        _check_events(events, s, new)
        restocked = _check_pickups(events, s, new, deck, restocked)
        s = new
    assert s["phase"] == "finished"
    result = C.outcome(s)
    assert sorted(x["seat"] for x in result["standing"]) == list(range(seats))
    assert result["standing"][0]["place"] == 1
    assert result["reason"] in ("last_seat", "chinchon", "all_out", "resignations")
