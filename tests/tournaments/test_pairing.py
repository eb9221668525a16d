"""The pure pairing rules, against pairings and standings worked out by hand (no database)."""

from fractions import Fraction as F

from tournaments.pairing import (
    ROUND_ROBIN,
    SWISS,
    TableResult,
    met_pairs,
    round_robin_pairings,
    round_robin_rounds,
    standings,
    swiss_pairings,
    table_points,
)


def order(fmt, seeds, results, withdrawn=()):
    return [r.player for r in standings(fmt, seeds, results, withdrawn) if not r.withdrawn]


# ------------------------------------------------------------------------------------------- points
def test_points_first_one_last_zero_evenly_between():
    assert table_points([2, 1, 3]) == [F(1, 2), F(1), F(0)]
    assert table_points([1, 2, 3, 4]) == [F(1), F(2, 3), F(1, 3), F(0)]


def test_points_shared_places_share_the_mean_and_a_draw_is_half():
    assert table_points([1, 1]) == [F(1, 2), F(1, 2)]
    # places 1, 2, 2, 4: the two second places share (2/3 + 1/3) / 2
    assert table_points([1, 2, 2, 4]) == [F(1), F(1, 2), F(1, 2), F(0)]


# -------------------------------------------------------------------------------------------- swiss
SEEDS5 = {11: 1, 12: 2, 13: 3, 14: 4, 15: 5}


def test_swiss_round_one_pairs_by_seed_and_gives_the_bye_to_the_lowest():
    tables, bye = swiss_pairings([11, 12, 13, 14, 15], 2, set())
    assert tables == [[11, 12], [13, 14]]
    assert bye == 15


def test_swiss_round_two_by_score_then_buchholz_bye_to_lowest_without_one():
    r1 = [TableResult(1, (11, 12), (1, 2)), TableResult(1, (13, 14), (2, 1)), TableResult(1, (15,), None, bye=True)]
    # scores: 11, 14, 15 on 1 (Buchholz 0 each: beaten opponents on 0, the bye adds nothing) -> seed order;
    # 12 and 13 on 0 (Buchholz 1 each) -> seed order.
    ranked = order(SWISS, SEEDS5, r1)
    assert ranked == [11, 14, 15, 12, 13]
    tables, bye = swiss_pairings(ranked, 2, met_pairs(r1), had_bye=[15])
    assert bye == 13  # 13 is the lowest-placed without a bye
    assert tables == [[11, 14], [15, 12]]


def test_swiss_withdrawn_player_is_not_paired_again():
    r1 = [TableResult(1, (11, 12), (1, 2)), TableResult(1, (13, 14), (2, 1)), TableResult(1, (15,), None, bye=True)]
    ranked = order(SWISS, SEEDS5, r1, withdrawn=[14])
    assert ranked == [11, 15, 12, 13]
    tables, bye = swiss_pairings(ranked, 2, met_pairs(r1), had_bye=[15])
    assert (tables, bye) == ([[11, 15], [12, 13]], None)


def test_swiss_avoids_repeats_when_it_can():
    seeds = {1: 1, 2: 2, 3: 3, 4: 4}
    results = [TableResult(1, (1, 2), (1, 2)), TableResult(1, (3, 4), (1, 2)),
               TableResult(2, (1, 3), (1, 2)), TableResult(2, (2, 4), (1, 2))]
    # 1 on 2; 2 and 3 on 1 with Buchholz 2 each (2: 1 and 4 -> 2 + 0; 3: 4 and 1 -> 0 + 2) -> seed; 4 on 0
    ranked = order(SWISS, seeds, results)
    assert ranked == [1, 2, 3, 4]
    tables, bye = swiss_pairings(ranked, 2, met_pairs(results))
    assert (tables, bye) == ([[1, 4], [2, 3]], None)


def test_swiss_repeats_only_when_unavoidable():
    tables, _ = swiss_pairings([1, 2], 2, {frozenset((1, 2))})
    assert tables == [[1, 2]]


def test_swiss_every_player_has_had_a_bye_goes_to_the_lowest():
    _, bye = swiss_pairings([1, 2, 3], 2, set(), had_bye=[1, 2, 3])
    assert bye == 3


def test_swiss_multi_seat_tables_and_a_smaller_last_table():
    tables, bye = swiss_pairings([1, 2, 3, 4, 5, 6, 7], 3, set())
    assert (tables, bye) == ([[1, 2, 3], [4, 5, 6]], 7)
    tables, bye = swiss_pairings([1, 2, 3, 4, 5, 6, 7, 8], 3, set())
    assert (tables, bye) == ([[1, 2, 3], [4, 5, 6], [7, 8]], None)


def test_swiss_multi_seat_standings_use_places():
    seeds = {1: 1, 2: 2, 3: 3}
    res = [TableResult(1, (1, 2, 3), (3, 1, 2))]
    rows = standings(SWISS, seeds, res)
    assert [(r.player, r.score) for r in rows] == [(2, F(1)), (3, F(1, 2)), (1, F(0))]
    # Buchholz: the mean of the opponents' scores at that table
    assert {r.player: r.tiebreak for r in rows} == {1: F(3, 4), 2: F(1, 4), 3: F(1, 2)}


def test_an_aborted_table_gives_everyone_half():
    rows = standings(SWISS, {1: 1, 2: 2}, [TableResult(1, (1, 2), None)])
    assert [(r.player, r.score) for r in rows] == [(1, F(1, 2)), (2, F(1, 2))]


# -------------------------------------------------------------------------------------- round robin
def test_round_robin_four_players_circle_method():
    assert round_robin_rounds(4) == 3
    assert round_robin_pairings([1, 2, 3, 4], 1) == ([[1, 4], [2, 3]], [])
    assert round_robin_pairings([1, 2, 3, 4], 2) == ([[1, 3], [4, 2]], [])
    assert round_robin_pairings([1, 2, 3, 4], 3) == ([[1, 2], [3, 4]], [])


def test_round_robin_odd_count_has_a_bye_each_round_and_a_withdrawal_gives_one():
    assert round_robin_rounds(5) == 5
    assert round_robin_pairings([1, 2, 3, 4, 5], 1) == ([[2, 5], [3, 4]], [1])
    assert round_robin_pairings([1, 2, 3, 4, 5], 2) == ([[1, 5], [2, 3]], [4])
    # 3 withdrew: its opponent, 2, has a bye; 3 is not seated
    assert round_robin_pairings([1, 2, 3, 4, 5], 2, withdrawn=[3]) == ([[1, 5]], [4, 2])
    everyone = set()
    for r in range(1, 6):
        for a, b in round_robin_pairings([1, 2, 3, 4, 5], r)[0]:
            everyone.add(frozenset((a, b)))
    assert len(everyone) == 10  # every pair exactly once over five rounds


def test_round_robin_tie_broken_head_to_head_then_wins():
    seeds = {1: 1, 2: 2, 3: 3, 4: 4}
    res = [TableResult(1, (1, 4), (2, 1)), TableResult(1, (2, 3), (1, 1)),
           TableResult(2, (1, 3), (1, 2)), TableResult(2, (4, 2), (2, 1)),
           TableResult(3, (1, 2), (2, 1)), TableResult(3, (3, 4), (1, 2))]
    # scores: 1: 0+1+0 = 1; 2: 1/2+1+1 = 5/2; 3: 1/2+0+1 = 3/2; 4: 1+0+0 = 1
    # 1 and 4 tied on 1: head-to-head 1 lost to 4 -> 4 first
    rows = standings(ROUND_ROBIN, seeds, res)
    assert [(r.player, r.score) for r in rows] == [(2, F(5, 2)), (3, F(3, 2)), (4, F(1)), (1, F(1))]
    assert {r.player: r.tiebreak for r in rows}[4] == 1


def test_round_robin_equal_head_to_head_falls_to_wins_then_seed():
    seeds = {1: 2, 2: 1, 3: 3, 4: 4}  # 2 is seeded before 1
    res = [TableResult(1, (1, 4), (1, 2)), TableResult(1, (2, 3), (1, 1)),
           TableResult(2, (1, 3), (2, 1)), TableResult(2, (4, 2), (1, 1)),
           TableResult(3, (1, 2), (1, 1)), TableResult(3, (3, 4), (1, 2))]
    # 1: 1 + 0 + 1/2 = 3/2 (one win); 2: 1/2 * 3 = 3/2 (no win); they drew each other: head-to-head 1/2 each;
    # 3: 1/2 + 1 + 1 = 5/2; 4: 0 + 1/2 + 0 = 1/2
    rows = standings(ROUND_ROBIN, seeds, res)
    assert [(r.player, r.score) for r in rows] == [(3, F(5, 2)), (1, F(3, 2)), (2, F(3, 2)), (4, F(1, 2))]
    assert [(r.tiebreak, r.wins) for r in rows[1:3]] == [(F(1, 2), 1), (F(1, 2), 0)]
