"""ranking.elo: tables worked by hand (DESIGN.md "Ratings").

Notation: E(a, b) = 1 / (1 + 10^((Rb - Ra)/400)); change = K/(N-1) × Σ(result - E), rounded half away
from zero. Useful powers: 10^-0.25 = 0.562341, 10^-0.5 = 0.316228.
"""

import subprocess
import sys

import pytest

from ranking.elo import (
    START,
    SeatInput,
    expected_score,
    k_factor,
    pair_result,
    rating_changes,
    round_half_away,
)


def seats(*rows):
    return [SeatInput(rating=r, games=g, place=p) for r, g, p in rows]


def test_start_and_k():
    assert START == 1500
    assert k_factor(1) == 40
    assert k_factor(30) == 40
    assert k_factor(31) == 20
    assert k_factor(500) == 20
    with pytest.raises(ValueError):
        k_factor(0)


def test_expected_score_values():
    # equal ratings: 1 / (1 + 10^0) = 1/2
    assert expected_score(1500, 1500) == 0.5
    # +100: 1 / (1 + 10^-0.25) = 1 / 1.562341 = 0.640065
    assert expected_score(1600, 1500) == pytest.approx(0.640065, abs=1e-6)
    # +200: 1 / (1 + 10^-0.5) = 1 / 1.316228 = 0.759747
    assert expected_score(1600, 1400) == pytest.approx(0.759747, abs=1e-6)
    assert expected_score(1400, 1600) == pytest.approx(1 - 0.759747, abs=1e-6)


def test_pair_results():
    assert pair_result(1, 2) == 1
    assert pair_result(2, 2) == 0.5
    assert pair_result(3, 2) == 0


def test_two_equal_players_win_draw_loss():
    # 1500 v 1500, first rated game each: K = 40, N - 1 = 1, E = 0.5
    # win:  40 × (1 - 0.5) = +20 ; 40 × (0 - 0.5) = -20
    assert rating_changes(seats((1500, 0, 1), (1500, 0, 2))) == [20, -20]
    # draw: 40 × (0.5 - 0.5) = 0 each
    assert rating_changes(seats((1500, 0, 1), (1500, 0, 1))) == [0, 0]
    # loss (seat 0 second): -20, +20
    assert rating_changes(seats((1500, 0, 2), (1500, 0, 1))) == [-20, 20]


def test_two_unequal_players_win_draw_loss():
    # 1600 v 1400: E(1600) = 0.759747, E(1400) = 0.240253; K = 40
    # favourite wins:  40 × (1 - 0.759747) = 9.610 -> 10 ; 40 × (0 - 0.240253) = -9.610 -> -10
    assert rating_changes(seats((1600, 0, 1), (1400, 0, 2))) == [10, -10]
    # draw: 40 × (0.5 - 0.759747) = -10.390 -> -10 ; 40 × (0.5 - 0.240253) = +10.390 -> +10
    assert rating_changes(seats((1600, 0, 1), (1400, 0, 1))) == [-10, 10]
    # upset: 40 × (0 - 0.759747) = -30.390 -> -30 ; 40 × (1 - 0.240253) = +30.390 -> +30
    assert rating_changes(seats((1600, 0, 2), (1400, 0, 1))) == [-30, 30]


def test_four_players_with_a_tie():
    # A 1600 place 1; B 1500 and C 1500 share place 2; D 1400 place 4. K = 40, N - 1 = 3.
    # A: (1 - E(1600,1500)) × 2 + (1 - E(1600,1400)) = 0.359935 × 2 + 0.240253 = 0.960123
    #    × 40/3 = 12.8016 -> 13
    # B: v A (0 - 0.359935) + v C (0.5 - 0.5) + v D (1 - 0.640065) = 0 -> 0 ; C the same
    # D: (0 - 0.240253) + (0 - 0.359935) × 2 = -0.960123 × 40/3 = -12.8016 -> -13
    out = rating_changes(seats((1600, 0, 1), (1500, 0, 2), (1500, 0, 2), (1400, 0, 4)))
    assert out == [13, 0, 0, -13]


def test_four_equal_players_with_a_tie():
    # all 1500, places 1, 2, 2, 4, K = 40: factor 40/3
    # seat 0: 3 × (1 - 0.5) = 1.5 × 40/3 = 20 ; seats 1, 2: -0.5 + 0 + 0.5 = 0 ; seat 3: -1.5 × 40/3 = -20
    assert rating_changes(seats((1500, 0, 1), (1500, 3, 2), (1500, 7, 2), (1500, 2, 4))) == [20, 0, 0, -20]


def test_k_changes_at_the_31st_game():
    # seat 0 has 29 rated games before: this is its 30th -> K = 40: 40 × 0.5 = +20
    assert rating_changes(seats((1500, 29, 1), (1500, 0, 2))) == [20, -20]
    # seat 0 has 30 before: this is its 31st -> K = 20: 20 × 0.5 = +10 ; seat 1 (1st game) K = 40: -20
    assert rating_changes(seats((1500, 30, 1), (1500, 0, 2))) == [10, -20]
    # both settled: ±10
    assert rating_changes(seats((1500, 100, 2), (1500, 31, 1))) == [-10, 10]


def test_round_half_away_from_zero():
    assert round_half_away(2.5) == 3
    assert round_half_away(-2.5) == -3
    assert round_half_away(0.5) == 1
    assert round_half_away(-0.5) == -1
    assert round_half_away(2.4999) == 2
    assert round_half_away(-2.4999) == -2
    assert round_half_away(12.8016) == 13
    assert round_half_away(0.0) == 0
    assert round_half_away(-1e-16) == 0
    # float noise just under a half still rounds as the half
    assert round_half_away(2.4999999999999) == 3


def test_rounding_halves_in_a_game():
    # five players at 1500, all past 30 games: K = 20, factor 20/4 = 5
    # places 1, 2, 2, 2, 2: seat 0: 4 × 0.5 = 2 × 5 = 10 ; others: (0 - 0.5) + 0 + 0 + 0 = -0.5 × 5 = -2.5 -> -3
    assert rating_changes(seats(*[(1500, 40, p) for p in (1, 2, 2, 2, 2)])) == [10, -3, -3, -3, -3]
    # places 1, 1, 1, 1, 5: seats 0-3: 0 + 0 + 0 + 0.5 = 0.5 × 5 = 2.5 -> 3 ; seat 4: 4 × -0.5 = -2 × 5 = -10
    assert rating_changes(seats(*[(1500, 40, p) for p in (1, 1, 1, 1, 5)])) == [3, 3, 3, 3, -10]


def test_bad_input():
    with pytest.raises(ValueError):
        rating_changes(seats((1500, 0, 1)))
    with pytest.raises(ValueError):
        rating_changes(seats((1500, 0, 0), (1500, 0, 1)))
    with pytest.raises(ValueError):
        rating_changes(seats((1500, -1, 1), (1500, 0, 2)))


def test_elo_imports_no_django():
    code = (
        "import sys, ranking.elo;"
        "bad=[m for m in sys.modules if m.split('.')[0] in {'django','celery','channels'}];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
