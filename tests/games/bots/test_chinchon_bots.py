"""Chinchón CPU players (games/bots/chinchon.py): legality, no hidden information, hand-worked scenarios
and a small seeded tournament (hard > easy, normal > easy). The larger tournament is bench/bench_chinchon.py.
"""

import random

import pytest

from games.bots import chinchon as bots
from games.engine import chinchon as engine
from games.engine import chinchon_melds as melds

STANDARD = engine.validate_rules({})


def play_game(levels, seed, settings=None, *, max_actions=None, check=None):
    """One game of CPU seats through the engine: each awaited seat's policy chooses from its own view;
    hard seats keep a memory. Returns the final state."""
    rules = engine.validate_rules(settings or {}, len(levels))
    rng = random.Random(seed)
    bot_rng = random.Random(seed ^ 0xB07)
    state, _ = engine.initial_state(rules, len(levels), rng)
    memories = [{} for _ in levels]
    n = 0
    while state["phase"] != "finished" and (max_actions is None or n < max_actions):
        seat = engine.awaiting(state)[0]
        view = engine.view_for(state, seat)
        legal = engine.legal_actions(state, seat)
        action = bots.choose(view, legal, levels[seat], bot_rng, seat=seat, rules=rules, memory=memories[seat])
        if check is not None:
            check(state, seat, view, legal, action)
        assert action in legal, (action, legal)
        state, _ = engine.apply(state, seat, action, rng)
        n += 1
    return state


def make_view(hand, pile, *, phase, taken=None, scores=(0, 0), you=0, hand_number=1, stock_size=30,
              pickups=None):
    """A hand-built view of seat ``you``; ``pickups`` (``[{"seat", "card"}]``) adds ``table.pickups``
    (an older view without it when None)."""
    n = len(scores)
    view = {
        "phase": phase,
        "awaiting": [you],
        "turn": you,
        "you": you,
        "players": [
            {"seat": i, "score": scores[i], "resigned": False, "out": False, "reentries": 0} for i in range(n)
        ],
        "table": {
            "hand": sorted(hand, key=lambda c: (("O", "C", "E", "B", "K").index(c[-1]), c)),
            "taken_from_discard": taken,
            "hand_sizes": {str(i): (len(hand) if i == you else 7) for i in range(n)},
            "stock_size": stock_size,
            "discard_pile": list(pile),
            "scores": {str(i): scores[i] for i in range(n)},
            "mano": 0,
            "hand_number": hand_number,
            "first_round_complete": True,
            "reveal": None,
        },
        "result": None,
    }
    if pickups is not None:
        view["table"]["pickups"] = [dict(p) for p in pickups]
    return view


def discard_legal(hand, taken=None, rules=STANDARD):
    legal = [{"type": "discard", "card": c} for c in dict.fromkeys(hand) if c != taken]
    legal += [
        {"type": "close", "card": o["card"]}
        for o in melds.close_options(hand, rules, taken_from_discard=taken)
    ]
    return legal


DRAWS = [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]


# ----------------------------------------------------------------------------------------- legality


@pytest.mark.parametrize(
    ("settings", "seats", "seed"),
    [({}, 2, 1), ({}, 4, 2), ({"preset": "traditional"}, 3, 3), ({"preset": "traditional"}, 5, 4),
     ({"preset": "wild_ace"}, 4, 5), ({"deck": 40, "max_jokers_per_meld": 2, "close_limit": 0}, 3, 6)],
)
def test_every_choice_is_legal_and_deterministic(settings, seats, seed):
    levels = [random.Random(seed).choice(bots.LEVELS) for _ in range(seats)]
    levels[0] = "hard"

    resolved = engine.validate_rules(settings, seats)

    def check(state, seat, view, legal, action):
        again = bots.choose(view, legal, levels[seat], random.Random(7), seat=seat, rules=settings)
        twice = bots.choose(view, legal, levels[seat], random.Random(7), seat=seat,
                            rules=engine.rules_to_dict(resolved))
        assert again == twice and again in legal

    play_game(levels, seed, settings, max_actions=120, check=check)


def test_reentry_is_declined_and_forced_actions_returned():
    legal = [{"type": "reenter", "accept": True}, {"type": "reenter", "accept": False}]
    view = make_view(["1O"] * 0, [], phase="reentry")
    for level in bots.LEVELS:
        assert bots.choose(view, legal, level, random.Random(1)) == {"type": "reenter", "accept": False}
        only = [{"type": "draw", "source": "stock"}]
        assert bots.choose(make_view(["1O", "2O", "3O", "4O", "5C", "6C", "7C"], [], phase="draw"), only,
                           level, random.Random(1)) == only[0]
    with pytest.raises(ValueError):
        bots.choose(view, legal, "expert", random.Random(1))
    with pytest.raises(ValueError):
        bots.choose(view, [], "easy", random.Random(1))


def test_bots_only_see_the_view():
    """Two states that differ only in hidden cards (a rival's hand, the stock's order) give the same view,
    hence the same choice at every level; the view holds no hidden card."""
    state, _ = engine.initial_state(STANDARD, 2, random.Random(11))
    seat = engine.awaiting(state)[0]
    other = 1 - seat
    twin = engine.from_dict(engine.to_dict(state))
    twin["hands"][other][0], twin["stock"][0] = twin["stock"][0], twin["hands"][other][0]
    twin["stock"].reverse()
    view, view2 = engine.view_for(state, seat), engine.view_for(twin, seat)
    assert view == view2
    assert set(view["table"]["hand"]) == set(state["hands"][seat])
    assert "stock" not in view["table"] and "hands" not in view["table"]
    for level in bots.LEVELS:
        legal = engine.legal_actions(state, seat)
        a = bots.choose(view, legal, level, random.Random(3), seat=seat, rules=STANDARD)
        b = bots.choose(view2, engine.legal_actions(twin, seat), level, random.Random(3), seat=seat, rules=STANDARD)
        assert a == b


# ----------------------------------------------------------------------------------------- scenarios


def test_normal_takes_a_discard_that_completes_a_run():
    # 4O 5O + 6O on the pile: a run; loose points 47 -> 28 after throwing a 10-point card.
    hand = ["4O", "5O", "11C", "12E", "9B", "2C", "7E"]
    view = make_view(hand, ["3B", "6O"], phase="draw")
    assert bots.choose(view, DRAWS, "normal", random.Random(1)) == {"type": "draw", "source": "discard"}
    assert bots.choose(view, DRAWS, "easy", random.Random(1)) == {"type": "draw", "source": "discard"}
    # a card that helps nothing is left: 10O only swaps for a 10-point card and makes no near-meld
    view = make_view(hand, ["3B", "10O"], phase="draw")
    assert bots.choose(view, DRAWS, "normal", random.Random(1)) == {"type": "draw", "source": "stock"}


def test_normal_throws_its_highest_loose_card():
    # melds 1O 2O 3O and 5C 5E 5B; loose 12B (10 points) and 4E (4): no close (4 > 3); throws 12B.
    hand = ["1O", "2O", "3O", "5C", "5E", "5B", "12B", "4E"]
    legal = discard_legal(hand)
    assert all(a["type"] == "discard" for a in legal)
    view = make_view(hand, ["7C"], phase="discard")
    assert bots.choose(view, legal, "normal", random.Random(1)) == {"type": "discard", "card": "12B"}
    # easy throws a loose card too, never a melded one
    for s in range(10):
        assert bots.choose(view, legal, "easy", random.Random(s))["card"] in ("12B", "4E")


def test_every_level_closes_when_it_can():
    # 1O 2O 3O, 12C 12E 12B, loose 2E; 11O face down (rules file worked example): closes, scores 2.
    hand = ["1O", "2O", "3O", "12C", "12E", "12B", "2E", "11O"]
    legal = discard_legal(hand)
    assert {"type": "close", "card": "11O"} in legal
    view = make_view(hand, ["7C"], phase="discard")
    for level in bots.LEVELS:
        assert bots.choose(view, legal, level, random.Random(1)) == {"type": "close", "card": "11O"}


def _picked_memory_view(hand):
    """Seat 0 (of 2) discarded 9C; seat 1 took it and threw 6E; seat 0 drew from the stock."""
    memory = {}
    bots.observe(make_view(hand[:7], ["3B"], phase="discard"), memory, seat=0)
    memory["pending"] = "9C"  # what choose() records for its own discard
    view = make_view(hand, ["3B", "6E"], phase="discard")
    return view, memory


def test_observe_infers_the_pick_up_of_our_discard():
    hand = ["1O", "2O", "3O", "4C", "4E", "4B", "9E", "8B"]
    view, memory = _picked_memory_view(hand)
    bots.observe(view, memory, seat=0)
    assert memory["picked"] == {"1": ["9C"]}
    # a new hand forgets
    bots.observe(make_view(hand[:7], ["5O"], phase="draw", hand_number=2), memory, seat=0)
    assert memory["picked"] == {}


def test_hard_avoids_feeding_a_rival_who_picked_up():
    # melds 1O 2O 3O and 4C 4E 4B; loose 9E (9 points) and 8B (8). With nothing known hard throws the 9E;
    # once the next seat is known to have taken the 9C, the 9E would feed its 9s: it throws the 8B.
    hand = ["1O", "2O", "3O", "4C", "4E", "4B", "9E", "8B"]
    legal = discard_legal(hand)
    view, memory = _picked_memory_view(hand)
    assert bots.choose(view, legal, "hard", random.Random(1), seat=0) == {"type": "discard", "card": "9E"}
    assert bots.choose(view, legal, "hard", random.Random(1), seat=0, memory=memory) == {
        "type": "discard", "card": "8B"}


# melds 1O 2O 3O and 4C 4E 4B in both; loose 9E (9 points) and 8B (8) / 8B (8) and 7E (7).
SET_HAND = ["1O", "2O", "3O", "4C", "4E", "4B", "9E", "8B"]
RUN_HAND = ["1O", "2O", "3O", "4C", "4E", "4B", "8B", "7E"]
THREE = (0, 0, 0)


@pytest.mark.parametrize(
    ("hand", "feeder", "safe", "pickups"),
    [
        # seat 1 (next to play) took 9C and 9O: the 9E would complete its set of 9s
        (SET_HAND, "9E", "8B", [{"seat": 1, "card": "9C"}, {"seat": 2, "card": "5C"}, {"seat": 1, "card": "9O"}]),
        # seat 1 took 9B then 10B: the 8B would complete its run 8B 9B 10B
        (RUN_HAND, "8B", "7E", [{"seat": 1, "card": "9B"}, {"seat": 1, "card": "10B"}]),
    ],
)
def test_hard_does_not_feed_a_meld_known_only_from_pickups(hand, feeder, safe, pickups):
    legal = discard_legal(hand)
    plain = make_view(hand, ["3B", "6E"], phase="discard", scores=THREE, pickups=[])
    assert bots.choose(plain, legal, "hard", random.Random(1), seat=0) == {"type": "discard", "card": feeder}
    # the same table with the rival's public pick-ups, no memory: hard keeps the card that completes its meld
    view = make_view(hand, ["3B", "6E"], phase="discard", scores=THREE, pickups=pickups)
    assert bots.choose(view, legal, "hard", random.Random(1), seat=0) == {"type": "discard", "card": safe}
    assert bots.choose(view, legal, "hard", random.Random(1), seat=0, memory={}) == {
        "type": "discard", "card": safe}
    # normal and easy ignore the pick-ups
    assert bots.choose(view, legal, "normal", random.Random(1), seat=0) == {"type": "discard", "card": feeder}


def test_pickups_no_longer_held_or_our_own_do_not_count():
    hand = SET_HAND
    legal = discard_legal(hand)
    # our own pick-ups are in our hand; a card back on the pile is not held by the rival any more
    mine = [{"seat": 0, "card": "9C"}, {"seat": 0, "card": "9O"}]
    back = [{"seat": 1, "card": "9C"}, {"seat": 1, "card": "9O"}]
    for pickups, pile in ((mine, ["3B", "6E"]), (back, ["3B", "9C", "9O"])):
        view = make_view(hand, pile, phase="discard", scores=THREE, pickups=pickups)
        assert bots.choose(view, legal, "hard", random.Random(1), seat=0) == {"type": "discard", "card": "9E"}
    # seat 1 threw the 9O it took, seat 2 took it and threw it too: only seat 1's 9C may still be held
    view = make_view(hand, ["3B", "9O"], phase="discard", scores=THREE,
                     pickups=back + [{"seat": 2, "card": "9O"}])
    pack = bots._deck(STANDARD).pack
    assert bots._picked_from_view(view, 0, pack) == {"1": ["9C"]}
    assert bots.observe(view, {}, seat=0)["picked"] == {"1": ["9C"]}
    # two jokers, one on the pile: one copy may be held, by the latest rival to take a joker
    view = make_view(hand, ["JK"], phase="discard", scores=THREE,
                     pickups=[{"seat": 1, "card": "JK"}, {"seat": 2, "card": "JK"}])
    assert bots._picked_from_view(view, 0, pack) == {"2": ["JK"]}
    assert bots._picked_from_view(make_view(hand, [], phase="discard"), 0, pack) is None


def test_hard_closes_at_once_when_a_rival_is_near_elimination(monkeypatch):
    # runs 4O 5O 6O and 4C 5C 6C, loose 1B: closing (12E face down) scores 1. Waiting keeps the close and
    # has outs to menos diez (3O, 7O, 3C, 7C, jokers). With the wait threshold at 0 hard would wait ...
    monkeypatch.setattr(bots, "WAIT_MIN_CHANCE", 0.0)
    hand = ["4O", "5O", "6O", "4C", "5C", "6C", "1B", "12E"]
    legal = discard_legal(hand)
    assert {"type": "close", "card": "12E"} in legal
    calm = make_view(hand, ["7B"], phase="discard", scores=(10, 20))
    assert bots.choose(calm, legal, "hard", random.Random(1)) == {"type": "discard", "card": "12E"}
    # ... but a rival above 75 (near 100) or its own score there makes it close at once.
    rival_near = make_view(hand, ["7B"], phase="discard", scores=(10, 80))
    assert bots.choose(rival_near, legal, "hard", random.Random(1)) == {"type": "close", "card": "12E"}
    self_near = make_view(hand, ["7B"], phase="discard", scores=(80, 10))
    assert bots.choose(self_near, legal, "hard", random.Random(1)) == {"type": "close", "card": "12E"}


def test_hard_with_default_threshold_closes_a_close_with_few_outs():
    hand = ["4O", "5O", "6O", "4C", "5C", "6C", "1B", "12E"]
    view = make_view(hand, ["7B"], phase="discard", scores=(10, 20))
    assert bots.choose(view, discard_legal(hand), "hard", random.Random(1)) == {"type": "close", "card": "12E"}


def test_hard_takes_menos_diez_at_once():
    # 1O 2O 3O 4O and 7C 7E 7B: all seven melded after laying 12E down.
    hand = ["1O", "2O", "3O", "4O", "7C", "7E", "7B", "12E"]
    view = make_view(hand, ["5B"], phase="discard")
    assert bots.choose(view, discard_legal(hand), "hard", random.Random(1)) == {"type": "close", "card": "12E"}


# ----------------------------------------------------------------------------------------- tournament

# A fast seeded tournament (2 seats, elimination 50, seats alternating). Observed with these seeds:
# normal beats easy 67/100 and hard beats easy 14/16 (bench/README.md "Chinchón" has the larger run at
# elimination 100); the thresholds sit about two standard deviations below.


def _wins(level, rival, games, settings):
    wins = 0
    for g in range(games):
        levels = [level, rival] if g % 2 == 0 else [rival, level]
        state = play_game(levels, 9000 + g, settings, max_actions=20000)
        assert state["phase"] == "finished"
        winner = state["result"]["standing"][0]["seat"]
        wins += levels[winner] == level
    return wins


def test_tournament_normal_beats_easy():
    assert _wins("normal", "easy", 100, {"elimination": 50}) >= 57


def test_tournament_hard_beats_easy():
    assert _wins("hard", "easy", 16, {"elimination": 50}) >= 11


# ----------------------------------------------------------------------------------------- long hands
# A tester's 4-seat traditional game of normal CPUs never ended: each seat kept its low cards and threw
# back every 8-12, so the four hands held every 1-7 and the stock and pile only 8-12. Past
# LONG_HAND_ROUNDS turns a seat in a hand, every level lets random loose cards go (low ones too).

TRADITIONAL4 = engine.validate_rules({"preset": "traditional"}, 4)
# every 1-7 of the pack, no two of a rank and no two next to each other in a suit in a hand: 28 loose
# points each, and a drawn 8-12 can never meld
HOARD = [
    ["1O", "3O", "5O", "7O", "2C", "4C", "6C"],
    ["2O", "4O", "6O", "1C", "3C", "5C", "7C"],
    ["1E", "3E", "5E", "7E", "2B", "4B", "6B"],
    ["2E", "4E", "6E", "1B", "3B", "5B", "7B"],
]


def hoarded_state(seed):
    """A 4-seat traditional hand 1 whose hands hold every low card (:data:`HOARD`), the pile and stock
    the twenty 8-12 shuffled with ``seed``; seat 0 to draw."""
    s, _ = engine.initial_state(TRADITIONAL4, 4, random.Random(seed))
    high = [f"{r}{suit}" for r in range(8, 13) for suit in "OCEB"]
    random.Random(seed).shuffle(high)
    s.update(hands=[list(h) for h in HOARD], discard=high[:1], stock=high[1:], mano=0, turn=0, awaiting=[0],
             phase="draw", played=[], dealt=[0, 1, 2, 3], pickups=[], turns=0, drawn=None,
             taken_from_discard=None)
    return s


def play_hand(state, seats, seed, max_actions):
    """Play the current hand (``seats``: a level, or "default" for a played-for seat using the engine's
    ``default_action``) until the next deal or ``max_actions``; returns ``(state, actions)``."""
    rules = engine.rules_of(state)
    rng, bot_rng = random.Random(seed), random.Random(seed ^ 0xB07)
    memories = [{} for _ in seats]
    hand, n = state["hand_number"], 0
    while state["hand_number"] == hand and state["phase"] != "finished" and n < max_actions:
        seat = engine.awaiting(state)[0]
        if seats[seat] == "default":
            action = engine.default_action(state, seat)
        else:
            action = bots.choose(engine.view_for(state, seat), engine.legal_actions(state, seat), seats[seat],
                                 bot_rng, seat=seat, rules=rules, memory=memories[seat])
        state, _ = engine.apply(state, seat, action, rng)
        n += 1
    return state, n


def test_long_hand_chance_grows_with_the_public_turn_count():
    view = make_view(HOARD[0], ["8O"], phase="discard", scores=(0, 0, 0, 0))
    assert bots._long_hand_chance(view) == 0.0  # an older view without turns: a short hand
    for turns, chance in ((0, 0.0), (48, 0.0), (52, 0.1), (60, 0.3), (88, 1.0), (4000, 1.0)):
        view["table"]["turns"] = turns
        assert bots._long_hand_chance(view) == pytest.approx(chance)
    view["players"][3]["out"] = True  # per seat still in: 3 seats, 13 rounds
    view["table"]["turns"] = 39
    assert bots._long_hand_chance(view) == pytest.approx(0.1)


@pytest.mark.parametrize("level", bots.LEVELS)
def test_a_long_hand_lets_low_loose_cards_go(level):
    hand = [*HOARD[0], "8O"]  # no meld: normal and hard would throw the 8 for ever
    legal = discard_legal(hand, rules=TRADITIONAL4)
    view = make_view(hand, ["9C"], phase="discard", scores=(0, 0, 0, 0))
    view["table"]["turns"] = 20
    thrown = {bots.choose(view, legal, level, random.Random(i), rules=TRADITIONAL4)["card"] for i in range(40)}
    if level != "easy":
        assert thrown == {"8O"}  # a short hand: the usual choice
    view["table"]["turns"] = 4 * 40  # long enough: always a random loose card
    thrown = {bots.choose(view, legal, level, random.Random(i), rules=TRADITIONAL4)["card"] for i in range(40)}
    assert len(thrown) >= 5 and thrown <= set(hand)


def test_the_hoarded_deadlock_stalls_without_the_long_hand_rule(monkeypatch):
    monkeypatch.setattr(bots, "LONG_HAND_STEP", 0.0)
    state, n = play_hand(hoarded_state(1), ["normal"] * 4, 1, 400)
    assert state["hand_number"] == 1 and n == 400 and state["turns"] == 200
    assert sorted(c for h in state["hands"] for c in h) == sorted(c for h in HOARD for c in h)


@pytest.mark.parametrize(
    "seats",
    [["normal"] * 4, ["hard"] * 4, ["easy"] * 4, ["normal", "default", "default", "default"],
     ["hard", "normal", "easy", "default"], ["default"] * 4],
)
def test_the_hoarded_deadlock_now_ends(seats):
    # a long hand starts past 48 turns (96 actions); observed: 150-250 actions for the CPU tables, up to
    # ~1800 for four played-for seats (the default never throws the card just drawn: the hands churn)
    for seed in range(3):
        state, n = play_hand(hoarded_state(seed), seats, seed, 4000)
        assert state["hand_number"] == 2 or state["phase"] == "finished", (seats, seed, n)


@pytest.mark.parametrize(("deck", "seed"), [(48, 5), (48, 6), (40, 0), (40, 2), (40, 10)])
def test_the_tester_s_four_normal_traditional_games_end(deck, seed):
    # these seeds never ended before (3000+ actions in one hand); now 300-800 actions a game
    state = play_game(["normal"] * 4, seed, {"preset": "traditional", "deck": deck}, max_actions=3000)
    assert state["phase"] == "finished"


@pytest.mark.parametrize(
    ("settings", "levels"),
    [
        ({"preset": "traditional"}, ["normal"] * 4),
        ({"preset": "traditional"}, ["hard"] * 4),
        ({"preset": "traditional"}, ["easy", "normal", "hard", "normal"]),
        ({"preset": "traditional", "deck": 40}, ["hard", "normal", "normal", "hard"]),
        ({"preset": "traditional", "deck": 40}, ["normal"] * 3),
        ({"preset": "traditional"}, ["normal", "easy"]),
        ({"preset": "traditional"}, ["normal", "hard", "easy", "normal", "hard", "normal"]),
        ({}, ["normal"] * 4),
        ({}, ["hard", "easy", "normal"]),
        ({"preset": "wild_ace"}, ["normal"] * 4),
        ({"preset": "wild_ace"}, ["hard", "normal"]),
        ({"deck": 40, "jokers": 0, "card_values": "pip", "close_mode": "total", "close_limit": 5}, ["normal"] * 4),
    ],
)
def test_every_cpu_game_ends(settings, levels):
    for seed in range(2):
        state = play_game(levels, 300 + seed, settings, max_actions=4000)
        assert state["phase"] == "finished", (settings, levels, seed)
