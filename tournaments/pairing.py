"""Pure tournament rules: table points, standings with tie-breaks, Swiss and round-robin pairings.

No database and no Django: players are plain ids (ints), results are :class:`TableResult` rows. Every
function is deterministic: the same input gives the same output (ties fall back to the seed, the join
order, lowest first).

Points (docs/tournaments.md "Scoring"): a table of ``m`` seats gives, by final place, ``1`` to the first,
``0`` to the last and evenly between (``(m-1-i)/(m-1)`` for the ``i``-th place, 0-based); players sharing a
place share the mean of the places they cover (a two-seat draw: ½ each). A bye is a win (1). A table that
ended without a standing (aborted) gives every seat ½.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

SWISS, ROUND_ROBIN = "swiss", "round_robin"
SEARCH_BUDGET = 20000  # steps of the no-repeat search before it settles for fewest repeats


@dataclass(frozen=True)
class TableResult:
    """One table of one round: ``players`` in seat order and their ``places`` (1 = first; equal places
    are ties), ``places`` ``None`` for a table without a standing (aborted). A bye is a table of one
    player with ``bye=True``."""

    round: int
    players: tuple[int, ...]
    places: tuple[int, ...] | None
    bye: bool = False


@dataclass
class Standing:
    """One row of the standings: ``score`` (points), ``tiebreak`` (Swiss: Buchholz; round robin:
    head-to-head points among the players tied on score), ``wins`` (tables won alone, byes included),
    ``games`` (tables played, byes excluded), ``byes``, ``rank`` (1-based, shared by no one: the seed
    settles the last ties)."""

    player: int
    seed: int
    score: Fraction = Fraction(0)
    tiebreak: Fraction = Fraction(0)
    wins: int = 0
    games: int = 0
    byes: int = 0
    withdrawn: bool = False
    rank: int = 0
    opponents: list[tuple[int, ...]] = field(default_factory=list)


def table_points(places: Sequence[int]) -> list[Fraction]:
    """Each seat's points for a table that ended with ``places`` (see the module docstring).

    >>> [str(p) for p in table_points([2, 1, 3])]
    ['1/2', '1', '0']
    >>> [str(p) for p in table_points([1, 1])]
    ['1/2', '1/2']
    """
    m = len(places)
    if m <= 1:
        return [Fraction(1)] * m
    order = sorted(range(m), key=lambda i: places[i])
    value = [Fraction(m - 1 - i, m - 1) for i in range(m)]
    out = [Fraction(0)] * m
    i = 0
    while i < m:
        j = i
        while j + 1 < m and places[order[j + 1]] == places[order[i]]:
            j += 1
        share = sum(value[i:j + 1], Fraction(0)) / (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = share
        i = j + 1
    return out


def standings(fmt: str, seeds: dict[int, int], results: Iterable[TableResult],
              withdrawn: Iterable[int] = ()) -> list[Standing]:
    """The standings, best first, of players ``seeds`` (``{player: seed}``) after ``results``.

    Order: score, then the tie-break, then (round robin) ``wins``, then the seed. Swiss tie-break:
    Buchholz, the sum over the player's tables of the mean final score of its opponents there (a bye adds
    nothing). Round robin: head-to-head, the points the player took at tables against the other players
    on the same score.
    """
    rows = {p: Standing(player=p, seed=s) for p, s in seeds.items()}
    for p in withdrawn:
        if p in rows:
            rows[p].withdrawn = True
    results = list(results)
    scored: list[tuple[TableResult, list[Fraction]]] = []
    for table in results:
        if table.bye:
            for p in table.players:
                if p in rows:
                    rows[p].score += 1
                    rows[p].byes += 1
                    rows[p].wins += 1
            continue
        points = table_points(table.places) if table.places is not None else [Fraction(1, 2)] * len(table.players)
        scored.append((table, points))
        for i, p in enumerate(table.players):
            if p not in rows:
                continue
            row = rows[p]
            row.score += points[i]
            row.games += 1
            row.opponents.append(tuple(q for q in table.players if q != p))
            if table.places is not None and table.places.count(min(table.places)) == 1 \
                    and table.places[i] == min(table.places):
                row.wins += 1
    if fmt == SWISS:
        for row in rows.values():
            total = Fraction(0)
            for opps in row.opponents:
                known = [rows[q].score for q in opps if q in rows]
                if known:
                    total += sum(known, Fraction(0)) / len(known)
            row.tiebreak = total
    else:
        for row in rows.values():
            tied = {q for q, other in rows.items() if q != row.player and other.score == row.score}
            if not tied:
                continue
            for table, points in scored:
                if row.player in table.players and tied.intersection(table.players):
                    row.tiebreak += points[table.players.index(row.player)]
    ordered = sorted(rows.values(), key=lambda r: (-r.score, -r.tiebreak, -r.wins if fmt == ROUND_ROBIN else 0,
                                                   r.seed))
    for i, row in enumerate(ordered, start=1):
        row.rank = i
    return ordered


def met_pairs(results: Iterable[TableResult]) -> set[frozenset[int]]:
    """Every pair of players that shared a table."""
    out: set[frozenset[int]] = set()
    for table in results:
        if table.bye:
            continue
        ps = table.players
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                out.add(frozenset((ps[i], ps[j])))
    return out


def table_sizes(n: int, seats: int) -> tuple[list[int], bool]:
    """How ``n`` players sit at tables of ``seats``: ``(sizes, bye)``. Tables of ``seats``; a remainder
    of one is a bye, a larger remainder one smaller table (at the bottom of the standings)."""
    full, rest = divmod(n, seats)
    sizes = [seats] * full
    if rest >= 2:
        sizes.append(rest)
    return sizes, rest == 1


def swiss_pairings(order: Sequence[int], seats: int, met: set[frozenset[int]],
                   had_bye: Iterable[int] = ()) -> tuple[list[list[int]], int | None]:
    """One Swiss round: ``(tables, bye)`` for the active players ``order`` (best-placed first).

    The bye (when the count leaves one over, :func:`table_sizes`) goes to the lowest-placed player who has
    not had one (all have: the lowest-placed). Then, top down, each table is the best-placed player left
    with the next best-placed who met none of its table-mates before; when no such seating exists (or the
    search passes :data:`SEARCH_BUDGET` steps) each table takes, in order, the players with the fewest
    repeats instead.
    """
    pool = list(order)
    sizes, needs_bye = table_sizes(len(pool), seats)
    bye = None
    if needs_bye:
        had = set(had_bye)
        bye = next((p for p in reversed(pool) if p not in had), pool[-1])
        pool.remove(bye)
    tables = _no_repeat_seating(pool, sizes, met)
    if tables is None:
        tables = _fewest_repeats_seating(pool, sizes, met)
    return tables, bye


def _no_repeat_seating(pool: list[int], sizes: list[int], met: set[frozenset[int]]) -> list[list[int]] | None:
    steps = [0]

    def fits(p: int, table: list[int]) -> bool:
        return all(frozenset((p, q)) not in met for q in table)

    def fill(left: list[int], t: int, table: list[int], tables: list[list[int]]) -> list[list[int]] | None:
        steps[0] += 1
        if steps[0] > SEARCH_BUDGET:
            return None
        if len(table) == sizes[t]:
            tables = [*tables, table]
            if t + 1 == len(sizes):
                return tables
            return fill(left, t + 1, [], tables)
        if not table:
            return fill(left[1:], t, [left[0]], tables)
        for i, p in enumerate(left):
            if fits(p, table):
                found = fill(left[:i] + left[i + 1:], t, [*table, p], tables)
                if found is not None:
                    return found
                if steps[0] > SEARCH_BUDGET:
                    return None
        return None

    if not sizes:
        return []
    return fill(pool, 0, [], [])


def _fewest_repeats_seating(pool: list[int], sizes: list[int], met: set[frozenset[int]]) -> list[list[int]]:
    left = list(pool)
    tables = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size:
            best = min(range(len(left)),
                       key=lambda i: (sum(frozenset((left[i], q)) in met for q in table), i))
            table.append(left.pop(best))
        tables.append(table)
    return tables


def round_robin_rounds(n: int) -> int:
    """Rounds of a round robin of ``n`` players: ``n - 1``, or ``n`` for an odd count (each sits out once)."""
    return n - 1 if n % 2 == 0 else n


def round_robin_pairings(players: Sequence[int], round_no: int,
                         withdrawn: Iterable[int] = ()) -> tuple[list[list[int]], list[int]]:
    """Round ``round_no`` (1-based) of the circle method over ``players`` (seed order, fixed at the start):
    ``(tables, byes)``. With an odd count a phantom joins; the first player stays put and the others turn
    one step each round; round ``r`` pairs position ``i`` with position ``n-1-i``. A player paired with the
    phantom, or with a withdrawn player, has a bye; withdrawn players are not seated.
    """
    out = set(withdrawn)
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    if n < 2:
        return [], [p for p in ring if p is not None and p not in out]
    rest = ring[1:]
    k = (round_no - 1) % (n - 1)
    rest = rest[-k:] + rest[:-k] if k else rest
    circle = [ring[0], *rest]
    tables, byes = [], []
    for i in range(n // 2):
        a, b = circle[i], circle[n - 1 - i]
        a = None if a in out else a
        b = None if b in out else b
        if a is not None and b is not None:
            tables.append([a, b])
        elif a is not None or b is not None:
            byes.append(a if a is not None else b)
    return tables, byes
