"""CPU players for Chinchón: pure policies from what a seat sees to an action (rules/chinchon.md; seed 001,
"Chinchón strategy and tips" and "Play ... against the computer").

:func:`choose` ``(view, legal_actions, level, rng, *, seat=None, rules=None, memory=None) -> action``.

A policy sees only the seat's view (the engine's ``view_for`` or the API view: ``table.hand``,
``table.taken_from_discard``, ``table.discard_pile`` bottom to top since the last restock,
``table.pickups`` ``[{"seat", "card"}]`` the cards taken from the pile in this hand, oldest first (public),
``table.turns`` the turns completed in this hand (public),
``table.hand_sizes``, ``table.stock_size``, ``table.scores``, ``players`` with ``out``/``resigned``), the
complete bodies it may send (``legal_actions``), the public room rules and, for ``hard``, an optional
``memory`` dict the caller may keep between calls (JSON-able; only what earlier views showed). It never
sees the engine state: other hands, the stock's order, face-down cards. Randomness only through ``rng``
(a ``random.Random``; the service derives it from the game seed and ``"bot:" + seq``), so a choice is
a pure function of ``(view, legal_actions, level, rng state, memory)``.

Points are penalty points (low is good). "Loose points" of a hand are those of its best arrangement
(rules/chinchon.md "Melds"), from the engine's exact solver :mod:`games.engine.chinchon_melds`.

Levels (seed 001: "Easy keeps the obvious melds ... Normal takes the discard when it helps and throws its
highest loose card. Hard tracks every discard and every card its opponents pick up, avoids feeding your
melds, and decides between closing now and waiting for minus 10."):

- **easy** — :func:`_easy`; **normal** — :func:`_normal`; **hard** — :func:`_hard` (see their docstrings).
- Every level, long hands: once a hand has gone on for more than :data:`LONG_HAND_ROUNDS` turns per seat
  still in (``table.turns``), a discard is, with a chance growing :data:`LONG_HAND_STEP` a round up to 1,
  a loose card chosen at random, low cards too (:func:`_unstick`; easy already throws random loose cards).
  No rule caps a hand's length; without this, tables where every seat keeps its low cards and throws
  back every high one never end (4 normal CPUs, ``traditional``: the hands hold every 1-7, the stock and
  pile only 8-12). A game of CPUs must end: CPU-only rooms, and rooms every human left, rely on it.
- Every level: re-entry offers are declined (rules/chinchon.md "Elimination, re-entry, end": "CPU seats
  never do"); ``resign`` is never chosen (it is not in ``legal_actions``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields
from functools import lru_cache
from typing import Any

from games.engine import chinchon_melds as melds
from games.engine.cards import JOKER, build_deck, card_sort_key, parse_card, ranks_of
from games.engine.chinchon import Rules, rules_from_dict, validate_rules
from games.engine.errors import InvalidRules

__all__ = ["LEVELS", "choose", "observe", "new_memory"]

LEVELS = ("easy", "normal", "hard")

# hard: tuning constants (points are penalty points)
HARD_PTS_WEIGHT = 0.3
"""Weight of a kept hand's current loose points against its expected loose points after one more stock
draw (the rest of the weight); both in points."""
HARD_CANDIDATES = 3
"""Discards the hard level looks ahead for (the best by current loose points plus feeding risk)."""
HARD_STOCK_DISCOUNT = 0.5
"""Second-draw improvement, as a share of the first draw's, credited to a stock draw (horizon match)."""
HARD_PICKUP_COST = 0.5
"""Points charged for taking the visible discard (it tells the table what the hand builds)."""
FEED_SAME = 6.0
"""Feeding risk (points) of discarding a card of the same rank as, or next in the suit to, a card the
next seat picked up from the pile; half that two places away in the suit."""
FEED_OTHER_WEIGHT = 0.3
"""Share of the feeding risk counted for rivals other than the next seat (only the next seat can take
the discard, but it comes back with a restock)."""
FEED_WILD = 12.0
"""Feeding risk (points) of throwing a wild (a joker or the wild Ace of Oros)."""
NEAR_ELIMINATION = 25
"""A seat is near elimination when its score is above ``elimination - NEAR_ELIMINATION`` points."""
WAIT_MIN_CHANCE = 0.3
"""Hard waits for menos diez only when the next stock draw completes it with at least this chance."""

# every level: long hands (no hoarding for ever)
LONG_HAND_ROUNDS = 12
"""A hand is long once it has gone on for more than this many turns per seat dealt in (the view's public
``table.turns`` over the seats still in). Tables where every seat keeps its low cards and throws back
every high one could otherwise never close (e.g. 4 seats, ``traditional``: the four hands hold all the
cards 1-7, the stock and the pile only 8-12)."""
LONG_HAND_STEP = 0.1
"""In a long hand, the chance that a discard is a loose card chosen at random (low cards too) instead of
the level's usual choice: this much per round past :data:`LONG_HAND_ROUNDS`, up to 1."""


# --------------------------------------------------------------------------------------- rules & cards
def _resolve_rules(view: dict, rules: Any) -> Rules:
    """The room's public rules: a :class:`Rules`, a resolved dict (``rules_to_dict``), API settings, the
    view's ``rules`` if any, else the ``standard`` preset; settings are resolved for the view's seat count."""
    if isinstance(rules, Rules):
        return rules
    if rules is None and isinstance(view.get("rules"), dict):
        rules = view["rules"]
    if isinstance(rules, dict):
        if set(rules) == {f.name for f in fields(Rules)}:
            return rules_from_dict(rules)
        rules = dict(rules)
    else:
        rules = {}
    seats = len(view.get("players") or [])
    try:  # the seat count settles ``decks`` (two decks for 5-8 seats, traditional)
        return validate_rules(rules, seats)
    except InvalidRules:
        return validate_rules(rules)


class _Deck:
    """Per-rules card facts: values (points), wilds, run places, the full pack as a multiset."""

    def __init__(self, rules: Rules):
        order = ranks_of(rules.deck)
        ridx = {r: i for i, r in enumerate(order)}
        self.pack = Counter(build_deck(rules.deck, rules.decks, rules.jokers))
        codes = set(build_deck(rules.deck, 1, 1))
        self.value = {c: melds.value_unchecked(c, rules) for c in codes}
        self.wild = {c for c in codes if c == JOKER or c == rules.wild_card}
        # natural code -> (rank, suit, run place)
        self.info: dict[str, tuple[int, str, int]] = {}
        for c in codes - self.wild:
            rank, suit = parse_card(c)  # type: ignore[misc]
            self.info[c] = (rank, suit, ridx[rank])
        self.maxj = rules.max_jokers_per_meld
        # natural codes by rank, and by suit in run order (None where the deck has no such card)
        self.by_rank: dict[int, list[str]] = {}
        self.by_place: dict[str, list[str | None]] = {s: [None] * len(order) for s in "OCEB"}
        for c, (rank, suit, place) in self.info.items():
            self.by_rank.setdefault(rank, []).append(c)
            self.by_place[suit][place] = c


@lru_cache(maxsize=32)
def _deck(rules: Rules) -> _Deck:
    return _Deck(rules)


def _key(cards) -> tuple[str, ...]:
    return tuple(sorted(cards, key=card_sort_key))


def _minus(cards, card: str) -> list[str]:
    out = list(cards)
    out.remove(card)
    return out


def _tie_key(d: _Deck, code: str) -> tuple:
    """The engine's default tie order: higher value, then higher rank, then suit O, C, E, B."""
    info = d.info.get(code)
    rank, suit = (0, "Z") if info is None else (info[0], info[1])
    return (-d.value[code], -rank, "OCEBZ".index(suit))


@lru_cache(maxsize=65536)
def _points(cards: tuple[str, ...], rules: Rules) -> int:
    """Loose points of the best arrangement of ``cards`` (sorted tuple)."""
    return melds.arrangement_points(cards, rules)[0]


@lru_cache(maxsize=65536)
def _loose(cards: tuple[str, ...], rules: Rules) -> tuple[int, tuple[str, ...]]:
    """``(loose points, loose cards)`` of the best arrangement of ``cards`` (sorted tuple)."""
    _m, loose, pts = melds.best_arrangement(cards, rules)
    return pts, tuple(loose)


def _melded_count(cards: tuple[str, ...], rules: Rules) -> int:
    return len(cards) - melds.arrangement_points(cards, rules)[1]


@lru_cache(maxsize=65536)
def _connecting(cards: tuple[str, ...], rules: Rules) -> frozenset[str]:
    """Every code that could join a meld with some of ``cards`` (a sorted tuple): a wild; a natural of
    the same rank as, or within 2 places in the suit of, a natural held; anything when two wilds a meld
    are allowed and two are held."""
    d = _deck(rules)
    if d.maxj >= 2 and sum(1 for c in cards if c in d.wild) >= 2:
        return frozenset(d.value)
    out = set(d.wild)
    for c in cards:
        i = d.info.get(c)
        if i is not None:
            out.update(d.by_rank[i[0]])
            out.update(d.by_place[i[1]][max(0, i[2] - 2): i[2] + 3])
    out.discard(None)
    return frozenset(out)


def _pairs(d: _Deck, cards) -> int:
    """Near-meld pairs among the naturals of ``cards``: two of the same rank, or next to each other in a
    suit (a meld of three counts its pairs too)."""
    infos = [d.info[c] for c in cards if c in d.info]
    n = 0
    for a in range(len(infos)):
        for b in range(a + 1, len(infos)):
            i, j = infos[a], infos[b]
            if i[0] == j[0] or (i[1] == j[1] and abs(i[2] - j[2]) == 1):
                n += 1
    return n


# --------------------------------------------------------------------------------------- view helpers
def _resolve_seat(view: dict, seat: int | None) -> int | None:
    if seat is not None:
        return seat
    if isinstance(view.get("you"), int):
        return view["you"]
    return view.get("turn")


def _seats_in(view: dict) -> list[int]:
    return [p["seat"] for p in view["players"] if not p.get("out") and not p.get("resigned")]


def _next_in(view: dict, seat: int) -> int | None:
    """The first seat still in after ``seat`` in play order (seat s+1 plays after seat s)."""
    n = len(view["players"])
    ins = set(_seats_in(view))
    for k in range(1, n + 1):
        s = (seat + k) % n
        if s in ins:
            return s if s != seat else None
    return None


def _score(view: dict, seat: int) -> int:
    scores = view["table"].get("scores") or {}
    if str(seat) in scores:
        return scores[str(seat)]
    for p in view["players"]:
        if p["seat"] == seat:
            return p.get("score", 0)
    return 0


# --------------------------------------------------------------------------------------- memory
def new_memory() -> dict:
    """An empty memory for :func:`choose` / :func:`observe` (a JSON-able dict)."""
    return {}


def observe(view: dict, memory: dict, *, seat: int | None = None, rules: Rules | dict | None = None) -> dict:
    """Fold one view of ``seat`` into ``memory`` (updated in place and returned).

    Feed it every view the seat receives (best), or only the views of its own decisions (what
    :func:`choose` does); ``rules`` as for :func:`choose` (the pack's copies of each code). Kept per hand (reset when ``hand_number`` changes), all JSON-able::

        {"seat", "hand_number", "pile": [card] (last seen discard_pile), "stock_size", "phase", "turn",
         "pending": card | None (our own discard not yet seen on the pile), "mine": [card] (our own
         discards this hand, kept by :func:`choose`),
         "picked": {seat: [card]} (cards that rival took from the pile this hand and may still hold)}

    ``picked``: from the view's ``table.pickups`` when it has them (the engine's public pick-up history:
    exact). An older view without ``pickups`` falls back on inference (rules/chinchon.md "A hand" 3-4):
    only the top of the pile can be taken; if the card that was on top at the last observation (or our
    own discard since) is gone, the first seat to draw after that moment took it: the seat that was to
    draw, or the seat after the one that was to discard. Cards discarded and picked up again between two
    observations, and pick-ups hidden by a restock, escape the inference.
    """
    t = view["table"]
    me = _resolve_seat(view, seat)
    pile = list(t.get("discard_pile") or [])
    hn = t.get("hand_number")
    from_view = _picked_from_view(view, me, _deck(_resolve_rules(view, rules)).pack)
    if memory.get("hand_number") != hn or memory.get("seat") != me:
        memory.clear()
        memory.update(seat=me, hand_number=hn, pile=pile, stock_size=t.get("stock_size", 0),
                      phase=view.get("phase"), turn=view.get("turn"), pending=None,
                      picked=from_view or {}, mine=[])
        return memory
    if from_view is not None:
        memory.update(pile=pile, stock_size=t.get("stock_size", 0), phase=view.get("phase"),
                      turn=view.get("turn"), pending=None, picked=from_view)
        return memory
    old = list(memory.get("pile") or [])
    pending = memory.get("pending")
    prev_turn, prev_phase = memory.get("turn"), memory.get("phase")
    if pending is not None:
        old.append(pending)
        first = _next_in(view, me) if me is not None else None
    elif prev_phase == "draw":
        first = prev_turn
    elif prev_phase == "discard" and prev_turn is not None:
        first = _next_in(view, prev_turn)
    else:
        first = None
    restocked = t.get("stock_size", 0) > memory.get("stock_size", 0)
    if not restocked and old:
        m = 0
        while m < len(old) and m < len(pile) and old[m] == pile[m]:
            m += 1
        removed = old[m:]
        if len(removed) == 1 and first is not None and first != me:
            memory["picked"].setdefault(str(first), []).append(removed[0])
    # a card seen back on the pile is no longer held
    visible = Counter(pile)
    for s, cards in memory["picked"].items():
        memory["picked"][s] = [c for c in cards if not visible[c]]
    memory.update(pile=pile, stock_size=t.get("stock_size", 0), phase=view.get("phase"),
                  turn=view.get("turn"), pending=None)
    return memory


def _picked_from_view(view: dict, me: int | None, pack: Counter) -> dict[str, list[str]] | None:
    """Cards each rival took from the discard pile in this hand and may still hold, from the view's public
    ``table.pickups`` (None when the view has no ``pickups``): ``{seat (str): [card]}``, oldest first.

    ``pack``: the full pack as a multiset. The copies of a code a rival may hold are those of the pack
    neither on the pile nor in ``me``'s hand; the latest rival pick-ups of the code take them (a card
    thrown back onto the pile is no longer held; ``me``'s own pick-ups are in its hand)."""
    pickups = view["table"].get("pickups")
    if pickups is None:
        return None
    t = view["table"]
    free = Counter(pack)
    free.subtract(t.get("discard_pile") or [])
    free.subtract(t.get("hand") or [])
    held: list[tuple[int, str]] = []
    for p in reversed(pickups):
        seat, card = p["seat"], p["card"]
        if (me is not None and seat == me) or free[card] <= 0:
            continue
        free[card] -= 1
        held.append((seat, card))
    picked: dict[str, list[str]] = {}
    for seat, card in reversed(held):
        picked.setdefault(str(seat), []).append(card)
    return picked


def _live(d: _Deck, view: dict, hand, picked: dict) -> Counter:
    """Cards this seat has not seen: the pack minus its hand, the discard pile and the cards rivals are
    known to have picked up (they are in the stock or in other hands)."""
    live = Counter(d.pack)
    live.subtract(hand)
    live.subtract(view["table"].get("discard_pile") or [])
    for cards in picked.values():
        live.subtract(cards)
    return +live


# --------------------------------------------------------------------------------------- evaluation
def _discard_pts(cards, rules: Rules) -> dict[str, int]:
    """``{code: loose points of the other cards' best arrangement}`` for each code of ``cards`` (one
    solve, :func:`melds.discard_points`; cached there)."""
    return {c: pc[0] for c, pc in melds.discard_points(cards, rules).items()}


@lru_cache(maxsize=65536)
def _shape(kept: tuple[str, ...], rules: Rules) -> tuple[int, int, tuple[str, ...], frozenset]:
    """``(loose points, highest loose value, loose cards, extenders)`` of ``kept``'s best arrangement;
    ``extenders``: the natural codes that would lengthen one of its melds (a set's rank while it has
    room; the places next to a run's ends, in its suit)."""
    d = _deck(rules)
    ms, loose, pts = melds.best_arrangement(kept, rules)
    order = ranks_of(rules.deck)
    ext: set[str] = set()
    for m in ms:
        nat = [d.info[c] for c in m if c in d.info]
        if len({i[0] for i in nat}) == 1 and len(m) < 4 * rules.decks:
            ext.update(f"{nat[0][0]}{s}" for s in "OCEB")
        elif len({i[0] for i in nat}) > 1:
            suit = nat[0][1]
            first = next(k for k, c in enumerate(m) if c in d.info)
            lo = d.info[m[first]][2] - first
            hi = lo + len(m) - 1
            for place in (lo - 1, hi + 1):
                if 0 <= place < len(order):
                    ext.add(f"{order[place]}{suit}")
    top = max((d.value[c] for c in loose), default=0)
    return pts, top, tuple(loose), frozenset(ext)


def _expected_after(kept: tuple[str, ...], live: Counter, rules: Rules) -> float:
    """Expected loose points (points) of ``kept`` after one stock draw, each unseen card equally likely,
    and the best discard. Exact (the solver, :func:`melds.draw_points`: the best 7 of the 8) for a card
    that could meld with a loose card; a card that lengthens a meld lets the highest loose card go; any
    other card only replaces the highest loose card when cheaper."""
    total = sum(live.values())
    pts, top, loose, ext = _shape(kept, rules)
    if not total:
        return float(pts)
    d = _deck(rules)
    conn = _connecting(loose, rules)
    exact = melds.draw_points(kept, [c for c in live if c in conn], rules)
    acc = 0.0
    for card, n in live.items():
        if card in exact:
            acc += n * exact[card][0]
        elif card in ext:
            acc += n * (pts - top)
        else:
            acc += n * (pts - max(0, top - d.value[card]))
    return acc / total


def _quality(kept: tuple[str, ...], live: Counter, rules: Rules) -> float:
    """Hard's evaluation of a 7-card hand, in points (lower is better): current loose points weighted
    :data:`HARD_PTS_WEIGHT`, expected loose points after the next stock draw the rest."""
    return HARD_PTS_WEIGHT * _points(kept, rules) + (1 - HARD_PTS_WEIGHT) * _expected_after(kept, live, rules)


def _feed_risk(d: _Deck, card: str, view: dict, me: int | None, picked: dict) -> float:
    """Points of risk in throwing ``card``: a wild always; a natural of the same rank as, or within two
    places in the suit of, a card a rival picked up (the next seat in full, others
    :data:`FEED_OTHER_WEIGHT`)."""
    if card in d.wild:
        return FEED_WILD
    if not picked:
        return 0.0
    nxt = _next_in(view, me) if me is not None else None
    rank, suit, place = d.info[card]
    risk = 0.0
    for s, cards in picked.items():
        w = 1.0 if nxt is not None and int(s) == nxt else FEED_OTHER_WEIGHT
        for c in cards:
            i = d.info.get(c)
            if i is None:
                continue
            if i[0] == rank or (i[1] == suit and abs(i[2] - place) == 1):
                risk += w * FEED_SAME
            elif i[1] == suit and abs(i[2] - place) == 2:
                risk += w * FEED_SAME / 2
    return risk


def _long_hand_chance(view: dict) -> float:
    """The chance (0..1) that a discard in this hand lets a random loose card go (:data:`LONG_HAND_ROUNDS`,
    :data:`LONG_HAND_STEP`): 0 until the hand has gone on for more than ``LONG_HAND_ROUNDS`` turns per
    seat still in (``table.turns``; a view without it counts as a short hand), then growing by
    ``LONG_HAND_STEP`` a round."""
    turns = view["table"].get("turns")
    if not isinstance(turns, int) or turns <= 0:
        return 0.0
    seats = len(_seats_in(view)) or len(view.get("players") or []) or 1
    extra = turns / seats - LONG_HAND_ROUNDS
    if extra <= 0:
        return 0.0
    return min(1.0, LONG_HAND_STEP * extra)


def _unstick(view: dict, hand: list[str], options: list[str], rng, rules: Rules) -> str | None:
    """In a long hand, with chance :func:`_long_hand_chance`, a loose card of the best arrangement of the
    8 held chosen at random with ``rng`` (naturals first: a wild only when nothing else is loose; any
    value, so low cards hoarded go too and the card flow unblocks); else None (the level's usual discard).
    Draws from ``rng`` only in a long hand."""
    p = _long_hand_chance(view)
    if p <= 0.0 or rng.random() >= p:
        return None
    cands = _loose_options(_deck(rules), hand, options, rules)
    return rng.choice(cands) if cands else None


def _loose_options(d: _Deck, hand: list[str], options: list[str], rules: Rules) -> list[str]:
    """The loose cards of the best arrangement of ``hand`` that may be discarded (``options``), each code
    once: the naturals, or the wilds when no natural is loose."""
    _pts, loose = _loose(_key(hand), rules)
    cands = [c for c in dict.fromkeys(loose) if c in options]
    naturals = [c for c in cands if c not in d.wild]
    return naturals or cands


# --------------------------------------------------------------------------------------- closing
_KIND_ORDER = {"chinchon": 0, "seven_run_wild": 1, "minus_ten": 2, "normal": 3}


def _closes(view: dict, hand: list[str], legal: list[dict], rules: Rules) -> list[dict]:
    """The legal closes with their engine description (``card``, ``kind``, ``score`` in points, ``loose``),
    best first: a chinchón that wins the game, then the lowest score, then the card order."""
    cards = {a["card"] for a in legal if a["type"] == "close"}
    if not cards:
        return []
    t = view["table"]
    opts = melds.close_options_unchecked(
        hand, rules, first_round_complete=True, taken_from_discard=t.get("taken_from_discard"),
    )
    opts = [o for o in opts if o["card"] in cards]
    if not opts:  # should not happen: trust the legal list
        return [{"card": c, "kind": "normal", "score": 0, "loose": []} for c in sorted(cards, key=card_sort_key)]

    def key(o):
        return (o["kind"] != "chinchon", o["score"] if o["score"] is not None else -999, card_sort_key(o["card"]))

    return sorted(opts, key=key)


def _menos_diez_chance(kept: tuple[str, ...], live: Counter, rules: Rules) -> float:
    """Chance (0..1) that the next stock draw lets ``kept`` (7 cards) meld all 7 after a discard."""
    total = sum(live.values())
    if not total:
        return 0.0
    conn = _connecting(kept, rules)
    after = melds.draw_points(kept, [c for c in live if c in conn], rules)
    return sum(live[c] for c, (pts, _n) in after.items() if pts == 0) / total


# --------------------------------------------------------------------------------------- policies
TAKE = {"type": "draw", "source": "discard"}
STOCK = {"type": "draw", "source": "stock"}


def _pick(legal: list[dict], body: dict) -> dict:
    for a in legal:
        if a == body:
            return dict(a)
    raise AssertionError(f"{body!r} is not legal")  # pragma: no cover - callers choose from legal


def _discardables(legal: list[dict]) -> list[str]:
    return [a["card"] for a in legal if a["type"] == "discard"]


def _fallback_discard(d: _Deck, hand: list[str], options: list[str], rules: Rules) -> str:
    """The engine default's discard: fewest loose points left, ties by the default tie order."""
    pts = _discard_pts(hand, rules)
    return min(options, key=lambda c: (pts[c], _tie_key(d, c)))


def _easy(view: dict, legal: list[dict], rng, rules: Rules) -> dict:
    """**easy** keeps the obvious melds.

    - Draw: from the discard pile only when its top card completes a meld outright (more cards melded
      in the best arrangement of the 8 than of the 7 held), else from the stock.
    - After the draw: closes when it can (the legal close with the lowest score); otherwise discards a
      loose card of the best arrangement of its 8 cards chosen at random (wilds kept while a natural is
      loose); with no loose card, the engine default's discard.
    """
    d = _deck(rules)
    t = view["table"]
    hand = list(t["hand"])
    if view["phase"] == "draw":
        pile = t.get("discard_pile") or []
        if pile and TAKE in legal:
            top = pile[-1]
            if _melded_count(_key([*hand, top]), rules) > _melded_count(_key(hand), rules):
                return _pick(legal, TAKE)
        return _pick(legal, STOCK if STOCK in legal else TAKE)
    closes = _closes(view, hand, legal, rules)
    if closes:
        return _pick(legal, {"type": "close", "card": closes[0]["card"]})
    options = _discardables(legal)
    cands = _loose_options(d, hand, options, rules)
    card = rng.choice(cands) if cands else _fallback_discard(d, hand, options, rules)
    return _pick(legal, {"type": "discard", "card": card})


def _normal(view: dict, legal: list[dict], rng, rules: Rules) -> dict:
    """**normal** takes the discard when it helps and throws its highest loose card.

    - Draw: takes the top of the discard pile when, after it and the best discard, its loose points
      (best arrangement) go down; or when, after it and the throw below, they stay level and the hand
      holds more near-meld pairs (same rank, or next in the suit). Else the stock. (The strict gain
      keeps two normal CPUs from passing cards of equal value back and forth for ever.)
    - After the draw: closes when it can (the legal close with the lowest score). Otherwise throws the
      highest-value loose natural card of the best arrangement of its 8 cards (ties: higher rank, then
      suit O, C, E, B); a wild only when it is the only loose card; with no loose card, the engine
      default's discard. In a long hand, sometimes a random loose card instead (:func:`_unstick`).
    """
    d = _deck(rules)
    t = view["table"]
    hand = list(t["hand"])
    if view["phase"] == "draw":
        forced = _forced_draw(t, legal)
        if forced is not None:
            return forced
        top = t["discard_pile"][-1]
        old = _points(_key(hand), rules)
        eight = [*hand, top]
        after = _discard_pts(eight, rules)
        new = min(after[c] for c in hand)
        _pts8, loose8 = _loose(_key(eight), rules)
        throw = [c for c in loose8 if c != top and c not in d.wild]
        kept = _minus(eight, min(throw, key=lambda c: _tie_key(d, c))) if throw else None
        if new < old or (
            kept is not None and _points(_key(kept), rules) <= old and _pairs(d, kept) > _pairs(d, hand)
        ):
            return _pick(legal, TAKE)
        return _pick(legal, STOCK)
    closes = _closes(view, hand, legal, rules)
    if closes:
        return _pick(legal, {"type": "close", "card": closes[0]["card"]})
    options = _discardables(legal)
    card = _unstick(view, hand, options, rng, rules)
    if card is not None:
        return _pick(legal, {"type": "discard", "card": card})
    cands = _loose_options(d, hand, options, rules)
    if cands:
        card = min(cands, key=lambda c: _tie_key(d, c))
    else:
        card = _fallback_discard(d, hand, options, rules)
    return _pick(legal, {"type": "discard", "card": card})


def _should_wait(view: dict, me: int | None, hand: list[str], best: dict, live: Counter, rules: Rules) -> str | None:
    """Hard's "close now or wait for menos diez" (seed 001: "Many hands turn on one choice ..."; "Close as
    soon as you safely can when a rival is near the limit"). Returns the card to discard to wait, or
    None to close now. Waits only when the best close leaves a loose card, no rival still in is near
    elimination (score above ``elimination - NEAR_ELIMINATION``), its own score is not (same test), and
    keeping 7 cards that still close gives menos diez on the next stock draw with chance at least
    :data:`WAIT_MIN_CHANCE`.
    """
    if best["kind"] != "normal" or me is None:
        return None
    limit = rules.elimination - NEAR_ELIMINATION
    if _score(view, me) > limit:
        return None
    if any(_score(view, s) > limit for s in _seats_in(view) if s != me):
        return None
    best_card, best_p = None, 0.0
    for card in dict.fromkeys(hand):
        kept = _key(_minus(hand, card))
        if melds.close_option(kept, rules) is None:
            continue
        p = _menos_diez_chance(kept, live, rules)
        if p > best_p:
            best_card, best_p = card, p
    if best_card is not None and best_p >= WAIT_MIN_CHANCE:
        return best_card
    return None


def _hard(view: dict, legal: list[dict], rng, rules: Rules, me: int | None, memory: dict) -> dict:
    """**hard** tracks the table, looks one draw ahead, avoids feeding and times its close.

    - Tracking: the unseen cards are the pack less its hand, the discard pile (every discard since the
      last restock) and the cards rivals picked up and may still hold: from the view's public
      ``table.pickups`` (:func:`_picked_from_view`), or, for a view without them, what ``memory`` inferred
      (see :func:`observe`). ``memory`` (optional, kept by the caller between calls) also remembers its
      own discards.
    - Evaluation of a kept 7-card hand (points, lower better): 0.3 × its loose points + 0.7 × its
      expected loose points after one stock draw and the best discard, over the unseen cards.
    - Draw: never takes back its own discard of this hand (with a memory); takes the discard top when
      the best kept hand with it (plus 0.5 point for showing the table what it builds) beats the stock, estimated as the expected loose points after a stock draw less
      half the further improvement the next draw would bring.
    - Discard: among the 3 discards leaving the fewest loose points plus feeding risk, the one with the
      best evaluation plus feeding risk: a wild costs 12 points; a card of the same rank as, or next in
      the suit to, a card the next seat picked up costs 6 (3 two places away; other rivals 30 %). In a
      long hand, sometimes a random loose card instead (:func:`_unstick`).
    - Closing: a chinchón that wins the game, or menos diez, at once; a close with a loose card at once
      unless :func:`_should_wait` finds waiting a turn for menos diez worth it.
    """
    d = _deck(rules)
    t = view["table"]
    hand = list(t["hand"])
    # :func:`choose` has just folded this view into ``memory`` (:func:`observe`): its ``picked`` is the
    # view's ``table.pickups`` read by :func:`_picked_from_view` when the view has them, else inferred
    picked = {s: c for s, c in (memory.get("picked") or {}).items() if me is None or s != str(me)}
    live = _live(d, view, hand, picked)
    if view["phase"] == "draw":
        forced = _forced_draw(t, legal)
        if forced is not None:
            return forced
        top = t["discard_pile"][-1]
        if top in memory.get("mine", ()):
            return _pick(legal, STOCK)  # never take back its own discard: no passing cards round for ever
        kept = _key(hand)
        now = _points(kept, rules)
        after = _expected_after(kept, live, rules)
        stock_q = after - HARD_STOCK_DISCOUNT * (1 - HARD_PTS_WEIGHT) * (now - after)
        eight = [*hand, top]
        after = _discard_pts(eight, rules)
        cands = sorted(dict.fromkeys(hand), key=lambda c: (after[c], _tie_key(d, c)))
        take_q = min(
            _quality(_key(_minus(eight, c)), live, rules) + _feed_risk(d, c, view, me, picked)
            for c in cands[:2]
        ) + HARD_PICKUP_COST
        return _pick(legal, TAKE if take_q < stock_q else STOCK)
    closes = _closes(view, hand, legal, rules)
    if closes:
        best = closes[0]
        wait = _should_wait(view, me, hand, best, live, rules)
        if wait is not None and {"type": "discard", "card": wait} in legal:
            return _pick(legal, {"type": "discard", "card": wait})
        return _pick(legal, {"type": "close", "card": best["card"]})
    options = list(dict.fromkeys(_discardables(legal)))
    card = _unstick(view, hand, options, rng, rules)
    if card is not None:
        return _pick(legal, {"type": "discard", "card": card})
    risk = {c: _feed_risk(d, c, view, me, picked) for c in options}
    after = _discard_pts(hand, rules)
    first = sorted(options, key=lambda c: (after[c] + risk[c], _tie_key(d, c)))
    shortlist = first[:HARD_CANDIDATES]
    card = min(
        shortlist,
        key=lambda c: (_quality(_key(_minus(hand, c)), live, rules) + risk[c], _tie_key(d, c)),
    )
    return _pick(legal, {"type": "discard", "card": card})


def _forced_draw(table: dict, legal: list[dict]) -> dict | None:
    """The draw when there is nothing to weigh: only one source offered, or an empty discard pile.
    ``None`` when both the stock and a non-empty pile may be drawn from."""
    if STOCK not in legal:
        return _pick(legal, TAKE)
    if not table.get("discard_pile") or TAKE not in legal:
        return _pick(legal, STOCK)
    return None


def choose(
    view: dict,
    legal_actions: list[dict],
    level: str,
    rng,
    *,
    seat: int | None = None,
    rules: Rules | dict | None = None,
    memory: dict | None = None,
) -> dict:
    """The CPU's action: one of ``legal_actions`` (complete bodies), as a fresh dict.

    ``view``: the seat's view (``view_for`` / API view; ``you`` names the seat if present);
    ``legal_actions``: the bodies offered (``draw {source}``, ``discard {card}``, ``close {card}``,
    ``reenter {accept}``); ``level``: ``"easy"`` | ``"normal"`` | ``"hard"``; ``rng``:
    ``random.Random`` (easy draws from it; normal and hard only in a long hand, :func:`_unstick`); ``seat``: the deciding seat when the view does not say;
    ``rules``: the room's rules (:class:`Rules`, the resolved dict or API settings; standard when not
    given); ``memory``: an optional dict the caller keeps per seat between calls (hard folds the view
    into it with :func:`observe` and remembers its own discard; easy and normal ignore it).
    Raises ``ValueError`` for an unknown level or no legal action.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown CPU level {level!r}; one of easy, normal, hard")
    if not legal_actions:
        raise ValueError("no legal action to choose from")
    me = _resolve_seat(view, seat)
    mem = memory if memory is not None else {}
    resolved = None
    if level == "hard" and view.get("table", {}).get("hand") is not None:
        resolved = _resolve_rules(view, rules)
        observe(view, mem, seat=me, rules=resolved)
    if len(legal_actions) == 1:
        return dict(legal_actions[0])
    kinds = {a["type"] for a in legal_actions}
    if "reenter" in kinds:
        decline = {"type": "reenter", "accept": False}
        return _pick(legal_actions, decline) if decline in legal_actions else dict(legal_actions[0])
    if not kinds <= {"draw", "discard", "close"} or view.get("phase") not in ("draw", "discard"):
        return dict(legal_actions[0])
    if resolved is None:
        resolved = _resolve_rules(view, rules)
    if level == "easy":
        return _easy(view, legal_actions, rng, resolved)
    if level == "normal":
        return _normal(view, legal_actions, rng, resolved)
    action = _hard(view, legal_actions, rng, resolved, me, mem)
    if action["type"] == "discard":
        mem["pending"] = action["card"]
        mem.setdefault("mine", []).append(action["card"])
    return action
