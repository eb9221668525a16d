"""Chinchirorin rule functions against values worked out by hand from rules/chinchirorin.md."""

import pytest

from games.engine import chinchirorin as C
from games.engine.errors import InvalidRules

# Every sorted throw a <= b <= c (56 of them) and its hand, written out by hand from the rules file's
# "Dice hands" table: pinzoro 1-1-1, arashi x-x-x, shigoro 4-5-6, hifumi 1-2-3, point = the odd die of a
# pair, None = no hand.
ALL_THROWS = [
    ((1, 1, 1), "pinzoro", None), ((1, 1, 2), "point", 2), ((1, 1, 3), "point", 3),
    ((1, 1, 4), "point", 4), ((1, 1, 5), "point", 5), ((1, 1, 6), "point", 6),
    ((1, 2, 2), "point", 1), ((1, 2, 3), "hifumi", None), ((1, 2, 4), None, None),
    ((1, 2, 5), None, None), ((1, 2, 6), None, None), ((1, 3, 3), "point", 1),
    ((1, 3, 4), None, None), ((1, 3, 5), None, None), ((1, 3, 6), None, None),
    ((1, 4, 4), "point", 1), ((1, 4, 5), None, None), ((1, 4, 6), None, None),
    ((1, 5, 5), "point", 1), ((1, 5, 6), None, None), ((1, 6, 6), "point", 1),
    ((2, 2, 2), "arashi", 2), ((2, 2, 3), "point", 3), ((2, 2, 4), "point", 4),
    ((2, 2, 5), "point", 5), ((2, 2, 6), "point", 6), ((2, 3, 3), "point", 2),
    ((2, 3, 4), None, None), ((2, 3, 5), None, None), ((2, 3, 6), None, None),
    ((2, 4, 4), "point", 2), ((2, 4, 5), None, None), ((2, 4, 6), None, None),
    ((2, 5, 5), "point", 2), ((2, 5, 6), None, None), ((2, 6, 6), "point", 2),
    ((3, 3, 3), "arashi", 3), ((3, 3, 4), "point", 4), ((3, 3, 5), "point", 5),
    ((3, 3, 6), "point", 6), ((3, 4, 4), "point", 3), ((3, 4, 5), None, None),
    ((3, 4, 6), None, None), ((3, 5, 5), "point", 3), ((3, 5, 6), None, None),
    ((3, 6, 6), "point", 3), ((4, 4, 4), "arashi", 4), ((4, 4, 5), "point", 5),
    ((4, 4, 6), "point", 6), ((4, 5, 5), "point", 4), ((4, 5, 6), "shigoro", None),
    ((4, 6, 6), "point", 4), ((5, 5, 5), "arashi", 5), ((5, 5, 6), "point", 6),
    ((5, 6, 6), "point", 5), ((6, 6, 6), "arashi", 6),
]


def H(name, value=None):
    return {"hand": name, "value": value}


def test_the_table_lists_56_distinct_sorted_throws():
    dice = [d for d, _, _ in ALL_THROWS]
    assert len(dice) == 56 == len(set(dice))
    assert all(list(d) == sorted(d) for d in dice)


@pytest.mark.parametrize(("dice", "hand", "value"), ALL_THROWS)
def test_hand_of_every_sorted_throw(dice, hand, value):
    got = C.hand_of(list(dice))
    assert got == (None if hand is None else {"hand": hand, "value": value})
    # the order of the dice never matters
    assert C.hand_of([dice[2], dice[0], dice[1]]) == got


@pytest.mark.parametrize("dice", [[1, 2], [1, 2, 3, 4], [0, 1, 2], [1, 2, 7], [1, True, 2], "123", None, [1.0, 2, 3]])
def test_hand_of_rejects_bad_dice(dice):
    with pytest.raises(ValueError, match="dice must be three ints 1..6"):
        C.hand_of(dice)


def test_examples_of_the_hands_table():
    assert C.hand_of([2, 2, 4]) == H("point", 4)
    assert C.hand_of([5, 5, 1]) == H("point", 1)


def test_strength_order_strongest_first():
    order = [H("pinzoro")] + [H("arashi", v) for v in (6, 5, 4, 3, 2)] + [H("shigoro")]
    order += [H("point", v) for v in (6, 5, 4, 3, 2, 1)] + [H("no_point"), H("out_of_bowl"), H("hifumi")]
    values = [C.strength(h) for h in order]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)


def test_multipliers_defaults_and_settings():
    r = C.validate_rules({})
    assert [C.multiplier(r, H("pinzoro"), True), C.multiplier(r, H("arashi", 2), True)] == [5, 3]
    assert [C.multiplier(r, H("shigoro"), False), C.multiplier(r, H("point", 6), True)] == [2, 1]
    assert [C.multiplier(r, H("no_point"), False), C.multiplier(r, H("out_of_bowl"), False)] == [1, 1]
    assert C.multiplier(r, H("hifumi"), False) == 2
    assert C.multiplier(r, H("hifumi"), True) == 1  # a hifumi that wins counts 1
    r2 = C.validate_rules({"pinzoro_multiplier": 10, "hifumi_multiplier": 1})
    assert C.multiplier(r2, H("pinzoro"), False) == 10
    assert C.multiplier(r2, H("hifumi"), False) == 1


STREAMER = C.validate_rules({})
COMMON = C.validate_rules({"style": "common"})


@pytest.mark.parametrize(
    ("rules", "bet", "dealer", "player", "expected"),
    [
        # the seven worked examples of the rules file
        (STREAMER, 50, H("point", 3), H("shigoro"), ("player", 100)),
        (STREAMER, 20, H("pinzoro"), H("arashi", 4), ("dealer", 300)),
        (STREAMER, 10, H("point", 4), H("point", 4), ("dealer", 10)),
        (STREAMER, 100, H("shigoro"), H("hifumi"), ("dealer", 400)),
        (COMMON, 50, H("point", 3), H("point", 3), ("push", 0)),
        (COMMON, 50, H("point", 3), H("pinzoro"), ("player", 250)),
        # streamer: out of the bowl
        (STREAMER, 20, H("point", 1), H("out_of_bowl"), ("dealer", 20)),
        (STREAMER, 20, H("out_of_bowl"), H("out_of_bowl"), ("dealer", 20)),
        (STREAMER, 20, H("out_of_bowl"), H("point", 1), ("player", 20)),
        (STREAMER, 20, H("out_of_bowl"), H("hifumi"), ("player", 20)),  # a winning hifumi counts 1
        (STREAMER, 10, H("hifumi"), H("hifumi"), ("dealer", 20)),  # equal goes to the dealer; loser pays 2
        (STREAMER, 10, H("arashi", 2), H("arashi", 6), ("player", 90)),
        (STREAMER, 10, H("no_point"), H("out_of_bowl"), ("dealer", 10)),
        (STREAMER, 10, H("hifumi"), H("pinzoro"), ("player", 100)),  # 10 x 5 x 2
        # common: larger multiplier, push, player out of the bowl
        (COMMON, 10, H("point", 2), H("hifumi"), ("dealer", 20)),
        (COMMON, 10, H("point", 5), H("arashi", 3), ("player", 30)),
        (COMMON, 10, H("point", 5), H("point", 4), ("dealer", 10)),
        (COMMON, 10, H("point", 2), H("out_of_bowl"), ("dealer", 10)),
        (COMMON, 10, H("point", 2), H("no_point"), ("dealer", 10)),
    ],
)
def test_compare(rules, bet, dealer, player, expected):
    assert C.compare(rules, bet, dealer, player) == expected


def test_compare_with_house_multipliers():
    r = C.validate_rules({"pinzoro_multiplier": 10, "hifumi_multiplier": 1})
    assert C.compare(r, 10, H("pinzoro"), H("hifumi")) == ("dealer", 100)  # 10 x 10 x 1
    assert C.compare(r, 10, H("shigoro"), H("hifumi")) == ("dealer", 20)
    rc = C.validate_rules({"style": "common", "hifumi_multiplier": 1})
    assert C.compare(rc, 10, H("point", 2), H("hifumi")) == ("dealer", 10)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (H("pinzoro"), "dealer_wins"), (H("arashi", 2), "dealer_wins"), (H("shigoro"), "dealer_wins"),
        (H("point", 6), "dealer_wins"), (H("point", 5), "players_roll"), (H("point", 2), "players_roll"),
        (H("point", 1), "dealer_loses"), (H("no_point"), "dealer_loses"), (H("out_of_bowl"), "dealer_loses"),
        (H("hifumi"), "dealer_loses"),
    ],
)
def test_common_opening(hand, expected):
    assert C.opening(COMMON, hand) == expected


def test_opening_is_common_only():
    with pytest.raises(ValueError):
        C.opening(STREAMER, H("point", 3))


def test_roll_order():
    assert C.roll_order(STREAMER, 4, 0, {1: 100, 2: 10, 3: 50}) == [2, 3, 1, 0]
    assert C.roll_order(STREAMER, 4, 2, {3: 20, 0: 20, 1: 20}) == [3, 0, 1, 2]
    assert C.roll_order(STREAMER, 5, 3, {4: 50, 0: 10, 1: 50, 2: 10}) == [0, 2, 4, 1, 3]
    assert C.roll_order(COMMON, 4, 1, {2: 100, 3: 10, 0: 50}) == [2, 3, 0]


def test_dealer_keeps():
    assert not C.dealer_keeps(STREAMER, H("pinzoro"), 0)
    assert C.dealer_keeps(COMMON, H("point", 3), 0)
    assert C.dealer_keeps(COMMON, H("arashi", 3), 1)
    assert not C.dealer_keeps(COMMON, H("point", 3), 2)  # 3rd hand in a row with max 3
    for hand in (H("point", 1), H("no_point"), H("out_of_bowl"), H("hifumi")):
        assert not C.dealer_keeps(COMMON, hand, 0)
    one = C.validate_rules({"style": "common", "max_dealer_hands": 1})
    assert not C.dealer_keeps(one, H("pinzoro"), 0)


def test_settle_streamer_dealer_collects_then_pays_in_rolling_order():
    # dealer 0 holds 50. Seat 1 (bet 10) and 3 (bet 20) win, seat 2 (bet 100) loses, seat 3 rolls after 1.
    # Losers first: seat 2 pays 100 x 1 x 1 -> dealer 150. Winners in rolling order [1, 3]:
    # seat 1 gets 10 x 3 x 1 = 30 -> dealer 120; seat 3 is owed 20 x 5 x 1 = 100 -> dealer 20.
    points = [50, 500, 500, 500]
    hands = {0: H("point", 4), 1: H("arashi", 2), 2: H("point", 3), 3: H("pinzoro")}
    after, payments, keeps = C.settle_hand(STREAMER, 4, 0, points, {1: 10, 2: 100, 3: 20}, hands)
    assert after == [20, 530, 400, 600]
    assert payments == [
        {"from": 2, "to": 0, "amount": 100},
        {"from": 0, "to": 1, "amount": 30},
        {"from": 0, "to": 3, "amount": 100},
    ]
    assert keeps is False
    assert points == [50, 500, 500, 500]  # not changed in place


def test_settle_streamer_short_dealer_pays_winners_in_order_until_empty():
    # dealer 0 has 40; seat 1 (bet 20, rolls first) and seat 2 (bet 50) both beat it with point 6 vs point 5.
    after, payments, _ = C.settle_hand(
        STREAMER, 3, 0, [40, 100, 100], {1: 20, 2: 50}, {0: H("point", 5), 1: H("point", 6), 2: H("point", 6)}
    )
    assert after == [0, 120, 120]
    assert payments == [{"from": 0, "to": 1, "amount": 20}, {"from": 0, "to": 2, "amount": 20}]


def test_settle_common_dealer_loses_at_once_pays_in_seat_order_from_after_dealer():
    # dealer 2 with 150 points rolls hifumi: owes 100 x 2 to seat 3, then 0, then 1 (seat order from 3).
    after, payments, keeps = C.settle_hand(
        COMMON, 4, 2, [100, 100, 150, 100], {0: 100, 1: 100, 3: 100}, {2: H("hifumi")}
    )
    assert after == [100 + 0, 100, 0, 100 + 150]
    assert payments == [{"from": 2, "to": 3, "amount": 150}]
    assert keeps is False


def test_settle_common_dealer_reaching_zero_ends_the_hand():
    # dealer 0 (200 points) point 2: seat 1 rolls shigoro, wins 100 x 2 = 200 -> dealer at 0;
    # seat 2 does not roll even though its hand would lose.
    hands = {0: H("point", 2), 1: H("shigoro"), 2: H("hifumi")}
    after, payments, keeps = C.settle_hand(COMMON, 3, 0, [200, 100, 100], {1: 100, 2: 100}, hands)
    assert after == [0, 300, 100]
    assert payments == [{"from": 0, "to": 1, "amount": 200}]
    assert keeps is True  # by the rule; the game then ends on 0 points


def test_settle_common_player_short_pays_what_it_holds():
    after, payments, _ = C.settle_hand(
        COMMON, 2, 0, [500, 30], {1: 50}, {0: H("point", 4), 1: H("hifumi")}
    )
    assert after == [530, 0]  # owes 50 x max(1, 2) = 100, holds 30
    assert payments == [{"from": 1, "to": 0, "amount": 30}]


# ------------------------------------------------------------------------------------------- settings
def test_defaults_resolved():
    assert C.rules_to_dict(C.validate_rules({})) == {
        "style": "streamer", "pinzoro_multiplier": 5, "hifumi_multiplier": 2, "out_of_bowl": False,
        "first_dealer": "roll", "rounds": 1, "starting_points": 1000, "bet_options": [10, 20, 50, 100],
        "max_dealer_hands": 3,
    }
    assert C.validate_rules(None) == C.validate_rules({})
    assert C.SEAT_RANGE({}) == (2, 8)


def test_every_setting_accepts_its_range():
    r = C.validate_rules({
        "style": "common", "pinzoro_multiplier": 10, "hifumi_multiplier": 1, "out_of_bowl": True,
        "first_dealer": "seat", "rounds": 3, "starting_points": 100000, "bet_options": [5],
        "max_dealer_hands": 10,
    }, seats=8)
    assert r.bet_options == (5,) and r.rounds == 3 and r.out_of_bowl is True
    assert C.validate_rules({"pinzoro_multiplier": 1, "starting_points": 100, "max_dealer_hands": 1,
                             "bet_options": [1, 2, 3, 4, 5, 6]}, seats=2).pinzoro_multiplier == 1
    assert C.validate_rules(C.validate_rules({"rounds": 2})).rounds == 2


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"colour": "red"}, "colour"),
        ({"preset": "standard"}, "preset"),
        ({"turn_seconds": 30}, "turn_seconds"),
        ({"style": "house"}, "style"),
        ({"pinzoro_multiplier": 0}, "pinzoro_multiplier"),
        ({"pinzoro_multiplier": 11}, "pinzoro_multiplier"),
        ({"pinzoro_multiplier": True}, "pinzoro_multiplier"),
        ({"pinzoro_multiplier": 5.0}, "pinzoro_multiplier"),
        ({"hifumi_multiplier": 3}, "hifumi_multiplier"),
        ({"hifumi_multiplier": True}, "hifumi_multiplier"),
        ({"out_of_bowl": 1}, "out_of_bowl"),
        ({"out_of_bowl": "yes"}, "out_of_bowl"),
        ({"first_dealer": "random"}, "first_dealer"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 4}, "rounds"),
        ({"rounds": False}, "rounds"),
        ({"starting_points": 99}, "starting_points"),
        ({"starting_points": 100001}, "starting_points"),
        ({"starting_points": "1000"}, "starting_points"),
        ({"bet_options": []}, "bet_options"),
        ({"bet_options": [1, 2, 3, 4, 5, 6, 7]}, "bet_options"),
        ({"bet_options": [20, 10]}, "bet_options"),
        ({"bet_options": [10, 10]}, "bet_options"),
        ({"bet_options": [0, 10]}, "bet_options"),
        ({"bet_options": [True, 10]}, "bet_options"),
        ({"bet_options": 10}, "bet_options"),
        ({"max_dealer_hands": 0}, "max_dealer_hands"),
        ({"max_dealer_hands": 11}, "max_dealer_hands"),
        ({"max_dealer_hands": True}, "max_dealer_hands"),
    ],
)
def test_invalid_settings_name_the_field(settings, field):
    with pytest.raises(InvalidRules) as exc:
        C.validate_rules(settings)
    assert exc.value.field == field


@pytest.mark.parametrize("seats", [0, 1, 9, True, "4", 2.0])
def test_seat_count_out_of_range(seats):
    with pytest.raises(InvalidRules) as exc:
        C.validate_rules({}, seats=seats)
    assert exc.value.field == "seats"


def test_normalize_hand():
    assert C.normalize_hand({"hand": "shigoro"}) == H("shigoro")
    assert C.normalize_hand({"hand": "point", "value": 1}) == H("point", 1)
    for bad in ({"hand": "arashi", "value": 1}, {"hand": "point", "value": 7}, {"hand": "pinzoro", "value": 1},
                {"hand": "nothing"}, {"value": 3}, None, {"hand": "point", "value": True}):
        with pytest.raises(ValueError):
            C.normalize_hand(bad)
    with pytest.raises(ValueError):
        C.normalize_hand({"hand": "out_of_bowl"}, STREAMER)
    assert C.normalize_hand({"hand": "out_of_bowl"}, C.validate_rules({"out_of_bowl": True})) == H("out_of_bowl")
