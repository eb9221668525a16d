"""Elo ratings for N-seat games, as pure functions (standard library only: no Django, Celery or Channels).

Rule source: ``shared/DESIGN.md`` "Ratings" (which amends the ranking issue). The formula is the classic
Elo expected score (Arpad Elo, *The Rating of Chessplayers, Past and Present*, 1978; the logistic form
used by FIDE and lichess) generalised to N seats by splitting the final standing into pairwise games:

- Ratings are integers (unit: rating points) starting at :data:`START` (1500).
- A finished game's standing gives every ordered pair of seats (a, b) a result ``S(a, b)``:
  1 when a is ahead of b (smaller place), 0.5 when they share a place, 0 when a is behind.
- Expected score of a against b: ``E(a, b) = 1 / (1 + 10 ** ((R_b - R_a) / 400))``.
- K depends on how many rated games of *that game* the player has played: when this game is the
  player's k-th rated game (k = games played before + 1) and ``k <= 30``, K = 40; otherwise K = 20.
- Each seat's change: ``Δ_a = K_a / (N - 1) × Σ_{b ≠ a} (S(a, b) - E(a, b))``, rounded to the nearest
  integer with halves away from zero (2.5 → 3, -2.5 → -3). Because of that rounding and of the
  per-player K, the changes of one game need not sum to zero.
- All ratings are read before any update from this game (the caller reads them under a lock).
- Pair weights (README "Ratings: rated play needs play"): a pair of seats whose players already had their
  daily share of rated games together counts with weight 0: ``Δ_a = K_a / (N - 1) × Σ_{b ≠ a} w(a, b) ×
  (S(a, b) - E(a, b))``, ``w`` symmetric, 1 unless the caller says otherwise.

Worked example (two players at 1500, both in their first rated game, seat 0 wins):
E = 1 / (1 + 10^0) = 0.5; Δ_0 = 40 / 1 × (1 - 0.5) = +20; Δ_1 = 40 × (0 - 0.5) = -20.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

START = 1500
"""The rating of a player with no rated game of a game (rating points)."""

K_NEW = 40
"""K for a player's 1st..:data:`K_NEW_GAMES`-th rated game of a game."""

K_SETTLED = 20
"""K from the (:data:`K_NEW_GAMES` + 1)-th rated game on."""

K_NEW_GAMES = 30
"""The last rated game (k) that still uses :data:`K_NEW`."""


@dataclass(frozen=True)
class SeatInput:
    """One seat of a finished game, as the rating needs it.

    ``rating``: the player's rating before this game (rating points). ``games``: how many rated games of
    this game the player finished *before* this one (so this one is game ``games + 1``). ``place``: the
    seat's place in the final standing, 1 first; seats that drew share a place.
    """

    rating: int
    games: int
    place: int


def k_factor(k: int) -> int:
    """K for a player's ``k``-th rated game of a game (k >= 1): 40 while ``k <= 30``, else 20.

    Raises ``ValueError`` for ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return K_NEW if k <= K_NEW_GAMES else K_SETTLED


def expected_score(rating_a: float, rating_b: float) -> float:
    """The expected score of a against b, in [0, 1]: ``1 / (1 + 10 ** ((R_b - R_a) / 400))``."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))


def pair_result(place_a: int, place_b: int) -> float:
    """a's result against b from their places: 1 ahead (smaller place), 0.5 equal, 0 behind."""
    if place_a < place_b:
        return 1.0
    if place_a == place_b:
        return 0.5
    return 0.0


def round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero: 2.5 → 3, -2.5 → -3, 2.4 → 2.

    The value is first rounded to 9 decimals so that float noise (2.4999999999) does not hide a half.
    """
    x = round(x, 9)
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def raw_changes(seats: Sequence[SeatInput], weights: Sequence[Sequence[float]] | None = None) -> list[float]:
    """The unrounded change of every seat, in the order given (rating points, float).

    ``weights``: an N × N matrix, ``weights[i][j]`` the weight of the pair (i, j) (default 1 each).
    Raises ``ValueError`` with fewer than 2 seats, a place below 1 or a negative ``games``.
    """
    n = len(seats)
    if n < 2:
        raise ValueError("a rated game needs at least 2 seats")
    for s in seats:
        if s.place < 1:
            raise ValueError(f"place must be >= 1, got {s.place}")
        if s.games < 0:
            raise ValueError(f"games must be >= 0, got {s.games}")
    out: list[float] = []
    for i, a in enumerate(seats):
        total = 0.0
        for j, b in enumerate(seats):
            if i != j:
                weight = 1.0 if weights is None else weights[i][j]
                total += weight * (pair_result(a.place, b.place) - expected_score(a.rating, b.rating))
        out.append(k_factor(a.games + 1) / (n - 1) * total)
    return out


def rating_changes(seats: Sequence[SeatInput], weights: Sequence[Sequence[float]] | None = None) -> list[int]:
    """Each seat's rating change (integer rating points), in the order given; see the module docstring.

    ``weights``: as :func:`raw_changes`. Raises ``ValueError`` as :func:`raw_changes`.
    """
    return [round_half_away(x) for x in raw_changes(seats, weights)]
