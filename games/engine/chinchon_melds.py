"""Chinchón melds: meld checks, the exact best-arrangement solver, closing, lay-offs and scoring of a hand.

Implements rules/chinchon.md "Melds", "Closing" and "Laying off and scoring". Pure, standard library only.

Words: a **meld** is a **set** (3+ cards of one rank; at most 4, or 8 with two decks) or a **run** (3+
consecutive cards of one suit, no wrap); a **wild** (a joker ``"JK"`` or, with ``wild_card: "1O"``, the
Ace of Oros) stands in for any card, at most ``max_jokers_per_meld`` a meld, and a meld holds at least
one natural card. An **arrangement** is a choice of disjoint melds; its **loose points** are the summed
values of the cards left out (a loose wild counts ``wild_value``).

Public API (stable; the CPU players build on it). ``rules`` is a :class:`games.engine.chinchon.Rules`
(a settings dict is accepted too and validated). Cards are codes (``"7O"``, ``"12E"``, ``"JK"``).

- :func:`value` (card, rules) -> points
- :func:`is_meld` (cards, rules) -> bool; :func:`meld_kind` -> ``"set"``/``"run"``/None
- :func:`best_arrangement` (cards, rules) -> ``(melds, loose, loose_points)``
- :func:`arrangement_points` (cards, rules) -> ``(loose_points, loose_count)`` (fast, no melds built)
- :func:`discard_points` (8 cards, rules) -> ``{code: (loose_points, loose_count)}`` of the 7 left after
  discarding each code (one solve for all; fast, no melds built)
- :func:`draw_points` (7 cards kept, draws, rules) -> ``{drawn code: (loose_points, loose_count)}`` of the
  best 7 of the 8 after drawing it (the kept hand solved once, extended per card; fast, no melds built)
- :func:`close_option` (7 cards kept, rules) -> the close those cards allow, or None
- :func:`close_options` (8 cards after the draw, rules, ...) -> every legal close, one per face-down code
- :func:`score_hand` (closer, hands, rules) -> deltas, winner and the reveal of a closed hand
- :func:`play_order` (seats, first) -> seats in play order
- ``value_unchecked`` / ``close_options_unchecked``: the same without the card check (hot paths)

All results are fresh lists; the solver caches by (sorted cards, rules), so pass a :class:`Rules` (frozen,
hashable) rather than a settings dict in loops. Typical CPU use: ``arrangement_points(hand_minus_card,
rules)`` to rank discards, ``close_options(hand8, rules, first_round_complete=view["table"][
"first_round_complete"], taken_from_discard=view["table"]["taken_from_discard"])`` to find closes.

Melds are lists of codes: a set's naturals in sort order then its wilds; a run low to high with each
wild at its fixed place. Runs hold their wilds where gaps need them; a spare wild goes at the high end,
or the low end when the run already reaches the Rey (a **[decision]** of this module: the rules file
fixes the place of a wild laid off, not of one laid down).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from games.engine.cards import JOKER, SUITS, build_deck, card_sort_key, card_value, check_cards, ranks_of
from games.engine.chinchon_rules import validate_rules

__all__ = [
    "value",
    "value_unchecked",
    "is_meld",
    "meld_kind",
    "best_arrangement",
    "arrangement_points",
    "discard_points",
    "draw_points",
    "close_option",
    "close_options",
    "close_options_unchecked",
    "play_order",
    "score_hand",
    "ALL_MELDED_KINDS",
]

ALL_MELDED_KINDS = ("minus_ten", "chinchon", "seven_run_wild")
"""Close kinds where the closer melded all 7 cards: nobody lays off onto that closer's melds."""


# --------------------------------------------------------------------------------------------- context


class _Ctx:
    """What the solver needs from the rules, precomputed once per rules object."""

    __slots__ = (
        "rules", "order", "n_order", "maxj", "cap", "decks", "deck", "jokers", "wild_value",
        "wild_card", "values", "info", "close_mode", "close_limit",
    )

    def __init__(self, rules: Any):
        self.rules = rules
        self.deck = rules.deck
        self.order = ranks_of(rules.deck)
        self.n_order = len(self.order)
        self.maxj = rules.max_jokers_per_meld
        self.decks = rules.decks
        self.cap = 4 * rules.decks
        self.jokers = rules.jokers
        self.wild_value = rules.wild_value
        self.wild_card = rules.wild_card
        self.close_mode = rules.close_mode
        self.close_limit = rules.close_limit
        ridx = {r: i for i, r in enumerate(self.order)}
        self.values: dict[str, int] = {}
        # info: code -> None for a wild, else (suit index, rank index in run order, rank)
        self.info: dict[str, tuple[int, int, int] | None] = {}
        for code in set(build_deck(rules.deck, 1, 1)):
            self.values[code] = card_value(
                code, rules.card_values, wild_value=rules.wild_value, wild_card=rules.wild_card
            )
            if code == JOKER or code == rules.wild_card:
                self.info[code] = None
            else:
                rank, suit = int(code[:-1]), code[-1]
                self.info[code] = (SUITS.index(suit), ridx[rank], rank)

    def check(self, cards: Iterable[str]) -> list[str]:
        return check_cards(cards, deck=self.deck, decks=self.decks, jokers=self.jokers)


_CTX_CACHE: dict[Any, _Ctx] = {}


def _ctx(rules: Any) -> _Ctx:
    if isinstance(rules, dict):
        rules = validate_rules(rules)
    ctx = _CTX_CACHE.get(rules)
    if ctx is None:
        ctx = _CTX_CACHE[rules] = _Ctx(rules)
    return ctx


def _key(cards: Iterable[str]) -> tuple:
    return tuple(sorted(card_sort_key(c) for c in cards))


def _melds_key(melds: Iterable[Sequence[str]]) -> tuple:
    """The fixed order of arrangements: melds as sorted code lists, compared as a sorted list."""
    return tuple(sorted(_key(m) for m in melds))


# ---------------------------------------------------------------------------------------------- public


def value(card: str, rules: Any) -> int:
    """Penalty points of ``card`` left loose (rules/chinchon.md "Card values"); a wild counts ``wild_value``.

    Raises :class:`~games.engine.errors.InvalidCard` for a card the deck cannot hold.
    """
    ctx = _ctx(rules)
    ctx.check([card])
    return ctx.values[card]


def value_unchecked(card: str, rules: Any) -> int:
    """:func:`value` without the card check (a code known to be valid for the rules' deck)."""
    return _ctx(rules).values[card]


def meld_kind(cards: Sequence[str], rules: Any) -> str | None:
    """``"set"``, ``"run"`` or None: what ``cards`` form as one meld (rules/chinchon.md "Melds").

    A group that is both (one natural and two wilds, with ``max_jokers_per_meld: 2``) is a ``"set"``.
    Raises :class:`~games.engine.errors.InvalidCard` for cards the deck cannot hold together.
    """
    ctx = _ctx(rules)
    ctx.check(cards)
    return _meld_kind(ctx, list(cards))


def is_meld(cards: Sequence[str], rules: Any) -> bool:
    """True when ``cards`` form one meld: a set or a run, wilds included (rules/chinchon.md "Melds").

    Raises :class:`~games.engine.errors.InvalidCard` for cards the deck cannot hold together.
    """
    return meld_kind(cards, rules) is not None


def _meld_kind(ctx: _Ctx, cards: list[str]) -> str | None:
    if len(cards) < 3:
        return None
    nat = [ctx.info[c] for c in cards if ctx.info[c] is not None]
    k = len(cards) - len(nat)
    if not nat or k > ctx.maxj:
        return None
    if len({i[2] for i in nat}) == 1 and len(cards) <= ctx.cap:
        return "set"
    if len({i[0] for i in nat}) != 1:
        return None
    idx = sorted(i[1] for i in nat)
    if len(set(idx)) != len(idx):
        return None
    gaps = idx[-1] - idx[0] + 1 - len(idx)
    if gaps <= k and len(cards) <= ctx.n_order:
        return "run"
    return None


# ------------------------------------------------------------------------------------------ the solver


def _candidate_melds(ctx: _Ctx, infos: Sequence[tuple[int, int, int]], maxj: int, must: int = -1) -> set[tuple[int, int]]:
    """Candidate melds ``(natural mask, wilds used)`` over naturals ``infos`` (``(suit index, run place,
    rank)`` at bit positions), each with at most ``maxj`` wilds; with ``must`` >= 0 only those holding that
    natural (the candidates a card added at position ``must`` brings)."""
    found: set[tuple[int, int]] = set()
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for p, (s, _ri, rank) in enumerate(infos):
        by_rank.setdefault(rank, []).append(p)
        by_suit.setdefault(s, []).append(p)
    ranks = by_rank.values() if must < 0 else [by_rank[infos[must][2]]]
    suits = by_suit.values() if must < 0 else [by_suit[infos[must][0]]]
    # sets: any nonempty group of one rank, topped up with wilds
    for ps in ranks:
        m = len(ps)
        for sub in range(1, 1 << m):
            n = sub.bit_count()
            if n > ctx.cap:
                continue
            kmin, kmax = max(0, 3 - n), min(maxj, ctx.cap - n)
            if kmin > kmax:
                continue
            nm = 0
            for j in range(m):
                if sub >> j & 1:
                    nm |= 1 << ps[j]
            if must >= 0 and not nm >> must & 1:
                continue
            for k in range(kmin, kmax + 1):
                found.add((nm, k))
    # runs: naturals of one suit at distinct places, gaps filled by wilds, spare wilds at the ends
    n_order = ctx.n_order
    for ps in suits:
        ps = sorted(ps, key=lambda p: infos[p][1])
        ridx = [infos[p][1] for p in ps]
        m = len(ps)

        stack = [(i, 1 << ps[i], ridx[i], ridx[i], 1, 0) for i in range(m)]
        while stack:
            i, nm, lo, last, n, gaps = stack.pop()
            span = last - lo + 1
            kmin = max(gaps, 3 - n)
            kmax = min(maxj, gaps + n_order - span)
            if must < 0 or nm >> must & 1:
                for k in range(kmin, kmax + 1):
                    found.add((nm, k))
            for j in range(i + 1, m):
                r = ridx[j]
                if r == last:
                    continue
                g = gaps + r - last - 1
                if g > maxj:
                    break
                stack.append((j, nm | 1 << ps[j], lo, r, n + 1, g))
    return found


_NONE = (1 << 30, 1 << 30)
"""No arrangement (:meth:`_Hand.best1` of no natural): worse than any."""


def _melds_holding(ctx: _Ctx, infos: Sequence[tuple[int, int, int]], maxj: int, n: int) -> set[tuple[int, int]]:
    """``_candidate_melds(ctx, infos, maxj, must=n)``, built directly: the sets and runs holding the
    natural at position ``n``."""
    suit, place, rank = infos[n]
    found: set[tuple[int, int]] = set()
    bit = 1 << n
    same = [1 << p for p, i in enumerate(infos) if i[2] == rank and p != n]
    cap = ctx.cap
    for sub in range(1 << len(same)):
        size = sub.bit_count() + 1
        kmin, kmax = max(0, 3 - size), min(maxj, cap - size)
        if size > cap or kmin > kmax:
            continue
        nm = bit
        for j, b in enumerate(same):
            if sub >> j & 1:
                nm |= b
        for k in range(kmin, kmax + 1):
            found.add((nm, k))
    ps = sorted((p for p, i in enumerate(infos) if i[0] == suit), key=lambda p: infos[p][1])
    ridx = [infos[p][1] for p in ps]
    m = len(ps)
    n_order = ctx.n_order
    stack = [(i, 1 << ps[i], ridx[i], ridx[i], 1, 0) for i in range(m) if ridx[i] <= place]
    while stack:
        i, nm, lo, last, k_n, gaps = stack.pop()
        if nm & bit:
            span = last - lo + 1
            for k in range(max(gaps, 3 - k_n), min(maxj, gaps + n_order - span) + 1):
                found.add((nm, k))
        for j in range(i + 1, m):
            r = ridx[j]
            if r == last:
                continue
            g = gaps + r - last - 1
            if g > maxj or (r > place and not nm & bit and ps[j] != n):
                break
            stack.append((j, nm | 1 << ps[j], lo, r, k_n + 1, g))
    return found


class _Hand:
    """One hand prepared for the solver: naturals as bit positions, wilds as a count.

    ``best(mask, w)``: the fewest (loose points, loose cards) of the naturals in ``mask`` with ``w`` wilds,
    by memoised search over candidate melds ``(natural mask, wilds used)`` indexed by their lowest natural.
    """

    __slots__ = ("ctx", "nat", "wilds", "vals", "infos", "by_low", "memo", "memo1", "full", "maxj")

    def __init__(self, ctx: _Ctx, cards: Iterable[str], maxj: int | None = None):
        """``maxj``: the most wilds a candidate meld may hold (default: the rules' limit, at most the wilds
        held; give ``ctx.maxj`` to solve the same naturals with more wilds later)."""
        self.ctx = ctx
        info = ctx.info
        nat = sorted((c for c in cards if info[c] is not None), key=card_sort_key)
        self.wilds = sorted((c for c in cards if info[c] is None), key=card_sort_key)
        self.nat = nat
        self.vals = [ctx.values[c] for c in nat]
        self.infos = [info[c] for c in nat]
        self.full = (1 << len(nat)) - 1
        self.maxj = min(ctx.maxj, len(self.wilds)) if maxj is None else maxj
        self.memo: dict[int, tuple[int, int]] = {}
        self.memo1: dict[int, tuple[int, int]] = {}
        self.by_low: list[list[tuple[int, int]]] = [[] for _ in nat]
        self._patterns()

    def _patterns(self) -> None:
        for nm, k in sorted(_candidate_melds(self.ctx, self.infos, self.maxj)):
            low = (nm & -nm).bit_length() - 1
            self.by_low[low].append((nm, k))

    def best(self, mask: int, w: int) -> tuple[int, int]:
        key = mask << 4 | w
        r = self.memo.get(key)
        if r is not None:
            return r
        if mask == 0:
            r = (w * self.ctx.wild_value, w)
        else:
            low = mask & -mask
            p = low.bit_length() - 1
            bp, bc = self.best(mask ^ low, w)
            r = (bp + self.vals[p], bc + 1)
            for nm, k in self.by_low[p]:
                if k <= w and nm & mask == nm:
                    c = self.best(mask ^ nm, w - k)
                    if c < r:
                        r = c
        self.memo[key] = r
        return r

    def best1(self, mask: int, w: int) -> tuple[int, int]:
        """Like :meth:`best` with exactly one natural of ``mask`` discarded (thrown away, not counted):
        the best over the naturals ``p`` of ``best(mask ^ 1 << p, w)``, in one search (``_NONE`` for an
        empty mask)."""
        key = mask << 4 | w
        r = self.memo1.get(key)
        if r is not None:
            return r
        if mask == 0:
            r = _NONE
        else:
            low = mask & -mask
            p = low.bit_length() - 1
            r = self.best(mask ^ low, w)  # discard the lowest natural
            bp, bc = self.best1(mask ^ low, w)
            if (bp + self.vals[p], bc + 1) < r:
                r = (bp + self.vals[p], bc + 1)
            for nm, k in self.by_low[p]:
                if k <= w and nm & mask == nm:
                    c = self.best1(mask ^ nm, w - k)
                    if c < r:
                        r = c
        self.memo1[key] = r
        return r

    def optimal(self, mask: int, w: int) -> list[list[tuple[int, int]]]:
        """Every arrangement (list of ``(natural mask, wilds)``) reaching ``best(mask, w)``."""
        if mask == 0:
            return [[]]
        target = self.best(mask, w)
        low = mask & -mask
        p = low.bit_length() - 1
        out: list[list[tuple[int, int]]] = []
        bp, bc = self.best(mask ^ low, w)
        if (bp + self.vals[p], bc + 1) == target:
            out.extend(self.optimal(mask ^ low, w))
        for nm, k in self.by_low[p]:
            if k <= w and nm & mask == nm and self.best(mask ^ nm, w - k) == target:
                out.extend([(nm, k), *sub] for sub in self.optimal(mask ^ nm, w - k))
        return out

    # -- building melds from patterns

    def build(self, arr: list[tuple[int, int]], mask: int, wilds: list[str]) -> tuple[list[list[str]], list[str]]:
        """Melds (codes, placed) and loose cards of an arrangement over naturals ``mask`` and ``wilds``."""
        groups = [([self.nat[p] for p in range(len(self.nat)) if nm >> p & 1], k) for nm, k in arr]
        groups.sort(key=lambda g: (_key(g[0]), g[1]))
        pool = list(wilds)
        melds = []
        used = 0
        for nm, _k in arr:
            used |= nm
        for naturals, k in groups:
            ws, pool = pool[:k], pool[k:]
            melds.append(self.place(naturals, ws))
        loose = [self.nat[p] for p in range(len(self.nat)) if mask >> p & 1 and not used >> p & 1] + pool
        return melds, loose

    def place(self, naturals: list[str], ws: list[str]) -> list[str]:
        """Lay out one meld: a set's naturals then wilds; a run low to high, wilds at fixed places."""
        ctx = self.ctx
        infos = [ctx.info[c] for c in naturals]
        if len({i[2] for i in infos}) == 1 and len(naturals) + len(ws) <= ctx.cap:
            return sorted(naturals, key=card_sort_key) + list(ws)
        by_idx = {i[1]: c for i, c in zip(infos, naturals, strict=True)}
        lo, hi = min(by_idx), max(by_idx)
        spare = len(ws) - (hi - lo + 1 - len(by_idx))
        up = min(spare, ctx.n_order - 1 - hi)
        lo -= spare - up
        hi += up
        pool = list(ws)
        return [by_idx[i] if i in by_idx else pool.pop(0) for i in range(lo, hi + 1)]

    def best_choice(self, mask: int, w: int, wilds: list[str]) -> tuple[list[list[str]], list[str]]:
        """The optimal arrangement of (mask, w) first in the fixed order (melds as sorted code lists)."""
        best = None
        for arr in self.optimal(mask, w):
            melds, loose = self.build(arr, mask, wilds[:w])
            key = _melds_key(melds)
            if best is None or key < best[0]:
                best = (key, melds, loose)
        assert best is not None
        return best[1], best[2]


@lru_cache(maxsize=65536)
def _solve(cards: tuple[str, ...], rules: Any) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], int]:
    hand = _Hand(_ctx(rules), cards)
    pts, _n = hand.best(hand.full, len(hand.wilds))
    melds, loose = hand.best_choice(hand.full, len(hand.wilds), hand.wilds)
    return tuple(tuple(m) for m in melds), tuple(loose), pts


@lru_cache(maxsize=65536)
def _points(cards: tuple[str, ...], rules: Any) -> tuple[int, int]:
    hand = _Hand(_ctx(rules), cards)
    return hand.best(hand.full, len(hand.wilds))


def best_arrangement(cards: Sequence[str], rules: Any) -> tuple[list[list[str]], list[str], int]:
    """The best arrangement of ``cards`` (any number; 7 or 8 in play) (rules/chinchon.md "Melds").

    Returns ``(melds, loose, loose_points)``: ``melds`` a list of melds (lists of codes, runs low to high
    with wilds placed), ``loose`` the cards left out (sorted, wilds last), ``loose_points`` their summed
    values in points. Exact: fewest loose points, then fewest loose cards, then the first arrangement in
    the fixed order (melds as sorted code lists). Raises :class:`~games.engine.errors.InvalidCard`.
    """
    ctx = _ctx(rules)
    ctx.check(cards)
    melds, loose, pts = _solve(tuple(sorted(cards, key=card_sort_key)), ctx.rules)
    return [list(m) for m in melds], list(loose), pts


def arrangement_points(cards: Sequence[str], rules: Any) -> tuple[int, int]:
    """``(loose_points, loose_count)`` of the best arrangement of ``cards``; cached, no card check (fast path
    for CPU players evaluating many candidate hands). Cards must be valid codes of the rules' deck."""
    ctx = _ctx(rules)
    return _points(tuple(sorted(cards, key=card_sort_key)), ctx.rules)


def _best_discard(hand: _Hand, w: int) -> dict[int, tuple[int, int]]:
    """``{position: (loose points, loose count)}`` of ``hand``'s naturals with ``w`` wilds less the natural
    at each position, and at ``-1`` less one wild (when ``w``)."""
    out = {p: hand.best(hand.full ^ 1 << p, w) for p in range(len(hand.nat))}
    if w:
        out[-1] = hand.best(hand.full, w - 1)
    return out


@lru_cache(maxsize=65536)
def _discards(cards: tuple[str, ...], rules: Any) -> tuple[tuple[str, tuple[int, int]], ...]:
    ctx = _ctx(rules)
    hand = _Hand(ctx, cards)
    by_pos = _best_discard(hand, len(hand.wilds))
    by_code = {code: by_pos[p] for p, code in enumerate(hand.nat)}
    by_code.update((code, by_pos[-1]) for code in hand.wilds)
    return tuple((code, by_code[code]) for code in dict.fromkeys(cards))


def discard_points(cards: Sequence[str], rules: Any) -> dict[str, tuple[int, int]]:
    """For each distinct code of ``cards`` (8 after a draw; any number), ``(loose_points, loose_count)`` of
    the best arrangement of the cards left after discarding one card of that code: exactly
    ``arrangement_points(cards less that card, rules)``, from one solve of ``cards``. Cached; no card check
    (cards must be valid codes of the rules' deck). Returns a fresh dict in card order."""
    ctx = _ctx(rules)
    return dict(_discards(tuple(sorted(cards, key=card_sort_key)), ctx.rules))


class _Draws:
    """A kept hand solved once, and what each drawn card makes of it (:func:`draw_points`).

    With the drawn natural ``c`` the 8 cards' best after one discard is the best of: ``c`` thrown back;
    ``c`` loose and a natural of the kept hand thrown; ``c`` in a meld ``P`` and a natural of the rest
    thrown; a wild thrown, ``c`` loose or in a meld. Every term is a search of the kept hand alone (with
    :meth:`_Hand.best` / :meth:`_Hand.best1`), whose memo serves every draw; only the candidate melds
    holding ``c`` are built per draw. A drawn wild: thrown back, or a natural thrown with one more wild.
    """

    __slots__ = ("hand", "results")

    def __init__(self, ctx: _Ctx, cards: tuple[str, ...]):
        n_wilds = sum(1 for c in cards if ctx.info[c] is None)
        self.hand = _Hand(ctx, cards, maxj=min(ctx.maxj, n_wilds + 1))  # room for a drawn wild
        self.results: dict[str, tuple[int, int]] = {}

    def after(self, card: str) -> tuple[int, int]:
        r = self.results.get(card)
        if r is not None:
            return r
        hand = self.hand
        ctx = hand.ctx
        w, full = len(hand.wilds), hand.full
        info = ctx.info[card]
        r = hand.best(full, w)  # throw the drawn card back
        if info is None:
            c = hand.best1(full, w + 1)
            r = c if c < r else r
        else:
            v = ctx.values[card]
            n = len(hand.nat)
            melds = [(nm ^ 1 << n, k) for nm, k in _melds_holding(ctx, [*hand.infos, info], min(ctx.maxj, w), n)]
            bp, bc = hand.best1(full, w)
            c = (bp + v, bc + 1)  # the drawn card loose
            r = c if c < r else r
            for nm, k in melds:
                c = hand.best1(full ^ nm, w - k)
                r = c if c < r else r
            if w:  # throw a wild
                bp, bc = hand.best(full, w - 1)
                c = (bp + v, bc + 1)
                r = c if c < r else r
                for nm, k in melds:
                    if k < w:
                        c = hand.best(full ^ nm, w - 1 - k)
                        r = c if c < r else r
        self.results[card] = r
        return r


@lru_cache(maxsize=8192)
def _draws(kept: tuple[str, ...], rules: Any) -> _Draws:
    return _Draws(_ctx(rules), kept)


def draw_points(kept: Sequence[str], draws: Iterable[str], rules: Any) -> dict[str, tuple[int, int]]:
    """For each code of ``draws``: ``(loose_points, loose_count)`` of the best hand ``kept`` (7 cards in
    play; any number) can keep after drawing that card and discarding one of the 8, the drawn card
    included: exactly ``min(arrangement_points(kept + [card] less x, rules) for x in kept + [card])``.
    The kept hand is solved once for every draw (see ``_Draws``); results are cached per
    (sorted kept hand, rules, card). No card check (valid codes; ``kept`` + one card must fit the deck).
    Returns a fresh dict, one entry per distinct code of ``draws`` in their order."""
    ctx = _ctx(rules)
    d = _draws(tuple(sorted(kept, key=card_sort_key)), ctx.rules)
    return {card: d.after(card) for card in dict.fromkeys(draws)}


# ------------------------------------------------------------------------------------------- closing


def _seven_run(ctx: _Ctx, cards: Sequence[str]) -> str | None:
    """``"natural"`` / ``"wild"`` when the 7 cards form one 7-card run (no wild / holding a wild)."""
    if len(cards) != 7 or _meld_kind(ctx, list(cards)) != "run":
        return None
    return "wild" if any(ctx.info[c] is None for c in cards) else "natural"


def _close_kind(ctx: _Ctx, kept: Sequence[str], loose_points: int, loose: Sequence[str]) -> tuple[str, int | None]:
    rules = ctx.rules
    if loose:
        return "normal", loose_points
    run = _seven_run(ctx, kept)
    if run == "natural":
        if rules.seven_run == "win_game":
            return "chinchon", None
        return "minus_ten", rules.minus_ten
    if run == "wild":
        return "seven_run_wild", rules.seven_run_wild
    return "minus_ten", rules.minus_ten


def _close_of(ctx: _Ctx, kept: Sequence[str]) -> dict[str, Any] | None:
    hand = _Hand(ctx, kept)
    w = len(hand.wilds)
    full = hand.full
    limit = ctx.close_limit
    if ctx.close_mode == "total":
        pts, _n = hand.best(full, w)
        if pts > limit:
            return None
        melds, loose = hand.best_choice(full, w, hand.wilds)
    else:
        cands = []  # (points, loose count, key, melds, loose)
        if hand.best(full, w) == (0, 0):
            melds, loose = hand.best_choice(full, w, hand.wilds)
            cands.append((0, 0, _melds_key(melds), melds, loose))
        else:
            for p in range(len(hand.nat)):
                if hand.vals[p] <= limit and hand.best(full ^ 1 << p, w) == (0, 0):
                    melds, _l = hand.best_choice(full ^ 1 << p, w, hand.wilds)
                    cands.append((hand.vals[p], 1, _melds_key(melds), melds, [hand.nat[p]]))
            if w and ctx.wild_value <= limit and hand.best(full, w - 1) == (0, 0):
                melds, _l = hand.best_choice(full, w - 1, hand.wilds)
                cands.append((ctx.wild_value, 1, _melds_key(melds), melds, [hand.wilds[-1]]))
        if not cands:
            return None
        cands.sort(key=lambda c: c[:3])
        pts, _n, _k, melds, loose = cands[0]
    kind, score = _close_kind(ctx, kept, pts, loose)
    if not loose and _seven_run(ctx, kept):  # a seven-run is laid as the one 7-card run
        melds = [hand.place(list(hand.nat), list(hand.wilds))]
    return {"kind": kind, "score": score, "melds": melds, "loose": list(loose), "loose_points": pts}


def close_option(kept: Sequence[str], rules: Any) -> dict[str, Any] | None:
    """The close the 7 ``kept`` cards allow (the 8th laid face down), or None (rules/chinchon.md "Closing").

    ``one_card``: all 7 melded, or all but one loose card worth at most ``close_limit``; the closer lays the
    qualifying arrangement with the fewest loose points. ``total``: loose points at most ``close_limit``.
    Timing (``close_after_first_round``, the card taken from the discard pile) is not checked here.
    Returns ``{"kind": "normal"|"minus_ten"|"chinchon"|"seven_run_wild", "score": points added to the
    closer (None for a chinchón that wins the game), "melds", "loose", "loose_points"}``.
    Raises :class:`~games.engine.errors.InvalidCard`.
    """
    ctx = _ctx(rules)
    ctx.check(kept)
    return _close_of(ctx, sorted(kept, key=card_sort_key))


def close_options(
    cards: Sequence[str],
    rules: Any,
    *,
    first_round_complete: bool = True,
    taken_from_discard: str | None = None,
) -> list[dict[str, Any]]:
    """Every legal close of an 8-card hand (after the draw): one entry per face-down code that qualifies.

    ``taken_from_discard``: the card taken from the discard pile this turn; it cannot go face down unless
    another copy is held. With ``close_after_first_round`` and ``first_round_complete`` false, none.
    Each entry is :func:`close_option`'s dict plus ``"card"`` (the face-down code), sorted by card.
    Raises :class:`~games.engine.errors.InvalidCard`.
    """
    _ctx(rules).check(cards)
    return close_options_unchecked(
        cards, rules, first_round_complete=first_round_complete, taken_from_discard=taken_from_discard
    )


def close_options_unchecked(
    cards: Sequence[str],
    rules: Any,
    *,
    first_round_complete: bool = True,
    taken_from_discard: str | None = None,
) -> list[dict[str, Any]]:
    """:func:`close_options` without the card check (cards known to be valid: the engine's own state)."""
    ctx = _ctx(rules)
    if ctx.rules.close_after_first_round and not first_round_complete:
        return []
    out = []
    hand = sorted(cards, key=card_sort_key)
    for code in dict.fromkeys(hand):
        if code == taken_from_discard and hand.count(code) == 1:
            continue
        kept = list(hand)
        kept.remove(code)
        opt = _close_cached(tuple(kept), ctx.rules)
        if opt is not None:
            out.append({"card": code, **_copy_opt(opt)})
    return out


@lru_cache(maxsize=16384)
def _close_cached(kept: tuple[str, ...], rules: Any) -> dict[str, Any] | None:
    return _close_of(_ctx(rules), kept)


def _copy_opt(opt: dict[str, Any]) -> dict[str, Any]:
    return {**opt, "melds": [list(m) for m in opt["melds"]], "loose": list(opt["loose"])}


# ---------------------------------------------------------------------------------- lay-offs and scores


def _meld_state(ctx: _Ctx, meld: Sequence[str]) -> tuple:
    """A meld on the table: ``("S", rank, size, wilds)`` or ``("R", suit, lo, hi, wilds)`` (run indices)."""
    nat = [ctx.info[c] for c in meld if ctx.info[c] is not None]
    k = len(meld) - len(nat)
    if len({i[2] for i in nat}) == 1:  # as laid by _Hand.place: one rank is a set
        return ("S", nat[0][2], len(meld), k)
    first = next(i for i, c in enumerate(meld) if ctx.info[c] is not None)
    lo = ctx.info[meld[first]][1] - first  # type: ignore[index]
    return ("R", nat[0][0], lo, lo + len(meld) - 1, k)


def _fits(ctx: _Ctx, st: tuple, info: tuple[int, int, int] | None) -> list[tuple[tuple, int]]:
    """Ways to lay off one card (``info`` None for a wild) onto meld state ``st``: ``[(new state, end)]``,
    end 0 = the high end (or a set), 1 = the low end. Two decks: runs grow upward only."""
    out = []
    if st[0] == "S":
        _s, rank, size, k = st
        if size < ctx.cap:
            if info is None:
                if k < ctx.maxj:
                    out.append((("S", rank, size + 1, k + 1), 0))
            elif info[2] == rank:
                out.append((("S", rank, size + 1, k), 0))
        return out
    _r, suit, lo, hi, k = st
    if info is None:
        if k < ctx.maxj:
            if hi + 1 < ctx.n_order:
                out.append((("R", suit, lo, hi + 1, k + 1), 0))
            if lo > 0 and ctx.decks == 1:
                out.append((("R", suit, lo - 1, hi, k + 1), 1))
    elif info[0] == suit:
        if info[1] == hi + 1:
            out.append((("R", suit, lo, hi + 1, k), 0))
        elif info[1] == lo - 1 and ctx.decks == 1:
            out.append((("R", suit, lo - 1, hi, k), 1))
    return out


def _seat_play(
    ctx: _Ctx, cards: Sequence[str], table: list[dict[str, Any]], allowed: list[int]
) -> tuple[list[list[str]], list[str], list[tuple[int, str, int]], int]:
    """Choose a non-closer's arrangement and lay-offs together: fewest loose points, then fewest loose
    cards, then the fixed order (melds as sorted code lists; lay-offs by seat, then card, then a wild
    at a run's high end before its low end, then the meld's index). ``table``: melds on the table (dicts with ``seat``, ``index``, ``state``); ``allowed``:
    indices of ``table`` this seat may lay off onto. Returns ``(melds, loose, layoffs, loose_points)``
    with ``layoffs`` as ``[(table index, card, end)]`` in the order laid; updates ``table`` states."""
    hand = _Hand(ctx, cards)
    w0 = len(hand.wilds)
    start = (hand.full, w0, tuple(table[i]["state"] for i in allowed))
    seen: dict[tuple, list[tuple[int, int, int]]] = {start: []}  # state -> path [(pos or -1, slot, end)]
    frontier = [start]
    if ctx.rules.layoff and allowed:
        while frontier:
            nxt = []
            for st in frontier:
                mask, w, states = st
                path = seen[st]
                moves = []
                m = mask
                while m:
                    low = m & -m
                    p = low.bit_length() - 1
                    m ^= low
                    for j, ms in enumerate(states):
                        for ns, end in _fits(ctx, ms, hand.infos[p]):
                            moves.append(((mask ^ low, w, states[:j] + (ns,) + states[j + 1:]), (p, j, end)))
                if w:
                    for j, ms in enumerate(states):
                        for ns, end in _fits(ctx, ms, None):
                            moves.append(((mask, w - 1, states[:j] + (ns,) + states[j + 1:]), (-1, j, end)))
                for ns_, mv in moves:
                    if ns_ not in seen:
                        seen[ns_] = path + [mv]
                        nxt.append(ns_)
            frontier = nxt
    best_val = min(hand.best(mask, w) for (mask, w, _s) in seen)
    best = None
    for st, path in seen.items():
        mask, w, states = st
        if hand.best(mask, w) != best_val:
            continue
        n_laid_wilds = w0 - w
        kept_wilds = hand.wilds[: w]  # wilds laid off are taken from the end of the sorted wilds
        laid_wilds = hand.wilds[w:]
        melds, loose = hand.best_choice(mask, w, kept_wilds)
        layoffs = []
        wi = 0
        for p, j, end in path:
            if p < 0:
                card = laid_wilds[wi]
                wi += 1
            else:
                card = hand.nat[p]
            layoffs.append((allowed[j], card, end))
        assert wi == n_laid_wilds
        lkey = tuple(sorted(
            (table[t]["seat"], card_sort_key(c), e, table[t]["index"]) for t, c, e in layoffs
        ))
        key = (_melds_key(melds), lkey)
        if best is None or key < best[0]:
            best = (key, melds, loose, layoffs, states)
    assert best is not None
    _key_, melds, loose, layoffs, states = best
    for j, t in enumerate(allowed):
        table[t]["state"] = states[j]
    return melds, loose, layoffs, best_val[0]


def play_order(seats: Iterable[int], closer: int) -> list[int]:
    """The seats in play order from ``closer`` (seat s+1 plays after seat s, wrapping), closer first."""
    ss = sorted(set(seats))
    i = ss.index(closer)
    return ss[i:] + ss[:i]


def score_hand(closer: int, hands: dict[int, Sequence[str]], rules: Any) -> dict[str, Any]:
    """Score a closed hand (rules/chinchon.md "Closing", "Laying off and scoring").

    ``hands``: seat -> its 7 cards (the closer's without the face-down card), every seat in the hand.
    The closer lays the qualifying arrangement with the fewest loose points; then each other seat in play
    order from the closer lays down its melds and (``layoff`` on) lays off onto the closer's melds
    (``layoff_onto: closer``) or every meld laid before it (``all``), never onto a closer who melded all 7.

    Returns ``{"kind", "winner": closer for a chinchón that wins the game else None, "deltas": {seat:
    points added}, "reveal": {seat: {"melds", "loose", "laid_off": [{"card", "onto": {"seat", "meld"}}],
    "points", "kind"? (closer)}}, "laid": [cards of every meld after lay-offs], "loose": {seat: [cards]}}``.
    A chinchón that wins scores 0 for everyone. Raises ``ValueError`` when the closer's cards do not
    qualify to close, :class:`~games.engine.errors.InvalidCard` for cards the deck cannot hold together.
    """
    ctx = _ctx(rules)
    ctx.check([c for h in hands.values() for c in h])
    hands = {int(s): sorted(h, key=card_sort_key) for s, h in hands.items()}
    if closer not in hands:
        raise ValueError("the closer has no hand")
    opt = _close_of(ctx, hands[closer])
    if opt is None:
        raise ValueError("the closer's cards do not qualify to close")
    kind = opt["kind"]
    won = kind == "chinchon"
    order = play_order(hands, closer)
    table: list[dict[str, Any]] = []
    reveal: dict[int, dict[str, Any]] = {}
    laid_cards: dict[tuple[int, int], list[str]] = {}
    for i, m in enumerate(opt["melds"]):
        table.append({"seat": closer, "index": i, "state": _meld_state(ctx, m), "open": kind not in ALL_MELDED_KINDS})
        laid_cards[(closer, i)] = list(m)
    reveal[closer] = {
        "melds": [list(m) for m in opt["melds"]], "loose": list(opt["loose"]), "laid_off": [],
        "points": 0 if won else opt["score"], "kind": kind,
    }
    deltas = {closer: 0 if won else opt["score"]}
    loose_of = {closer: list(opt["loose"])}
    for seat in order[1:]:
        allowed = [i for i, t in enumerate(table) if t["open"]]
        melds, loose, layoffs, pts = _seat_play(ctx, hands[seat], table, allowed)
        laid_off = []
        for t, card, _end in layoffs:
            owner, idx = table[t]["seat"], table[t]["index"]
            laid_off.append({"card": card, "onto": {"seat": owner, "meld": idx}})
            laid_cards[(owner, idx)].append(card)
        reveal[seat] = {"melds": melds, "loose": loose, "laid_off": laid_off, "points": 0 if won else pts}
        deltas[seat] = 0 if won else pts
        loose_of[seat] = loose
        if ctx.rules.layoff_onto == "all":
            for i, m in enumerate(melds):
                table.append({"seat": seat, "index": i, "state": _meld_state(ctx, m), "open": True})
                laid_cards[(seat, i)] = list(m)
        else:
            for i, m in enumerate(melds):
                laid_cards[(seat, i)] = list(m)
    return {
        "kind": kind,
        "winner": closer if won else None,
        "deltas": {s: deltas[s] for s in sorted(deltas)},
        "reveal": {s: reveal[s] for s in sorted(reveal)},
        "laid": [laid_cards[k] for k in sorted(laid_cards)],
        "loose": {s: loose_of[s] for s in sorted(loose_of)},
    }
