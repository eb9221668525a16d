"""Spanish-suited cards: codes, decks, values and the display order (rules/chinchon.md "Cards").

A card is a **code**: rank then suit, ``"7O"``, ``"12E"``; a joker is ``"JK"``. Suits ``O`` Oros, ``C`` Copas,
``E`` Espadas, ``B`` Bastos; ranks 1-12 (48-card deck) or 1-7, 10, 11, 12 (40-card deck; no 8s, 9s).
Standard library only. Everything here is a pure function of its arguments.

Public API (stable, used by the Chinchón engine and the CPU players):

- :data:`SUITS`, :data:`JOKER`, :func:`ranks_of` (the run order of a deck)
- :func:`parse_card` / :func:`format_card` / :func:`is_card_code`
- :func:`card_sort_key` / :func:`sort_cards` (O, C, E, B then rank, JK last)
- :func:`build_deck` (the full deck, a list of codes with repeats for two decks / jokers)
- :func:`card_value` (penalty points of a loose card under a value scheme)
- :func:`check_cards` (raises :class:`~games.engine.errors.InvalidCard` for a card the deck cannot hold)
"""

from collections import Counter
from collections.abc import Iterable

from games.engine.errors import InvalidCard

SUITS = ("O", "C", "E", "B")
"""Suits in display / sort order: Oros, Copas, Espadas, Bastos."""
JOKER = "JK"
"""The code of a joker."""
SUIT_NAMES = {"O": "Oros", "C": "Copas", "E": "Espadas", "B": "Bastos"}
RANKS_48 = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
RANKS_40 = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
VALUE_SCHEMES = ("figures_10", "pip", "ordinal_40")

_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


def ranks_of(deck: int) -> tuple[int, ...]:
    """The ranks of a ``deck`` of 40 or 48 cards, in run order (1..12, or 1..7, 10, 11, 12)."""
    if deck == 48:
        return RANKS_48
    if deck == 40:
        return RANKS_40
    raise ValueError(f"deck must be 40 or 48, not {deck!r}")


def parse_card(code: str) -> tuple[int, str] | None:
    """Parse a code: ``"7O"`` -> ``(7, "O")``; ``"JK"`` -> ``None`` (a joker has no rank or suit).

    Raises ``ValueError`` for anything that is not a card code of a 48-card deck (``"13O"``, ``"7X"``, ``7``).
    """
    if code == JOKER:
        return None
    if not isinstance(code, str) or len(code) < 2 or len(code) > 3:
        raise ValueError(f"{code!r} is not a card code")
    rank_s, suit = code[:-1], code[-1]
    if suit not in _SUIT_INDEX or not (rank_s.isascii() and rank_s.isdigit()) or rank_s[0] == "0":
        raise ValueError(f"{code!r} is not a card code")
    rank = int(rank_s)
    if not 1 <= rank <= 12:
        raise ValueError(f"{code!r} is not a card code")
    return rank, suit


def is_card_code(code: object) -> bool:
    """True when ``code`` is a syntactically valid code (``"1O"``..``"12B"`` or ``"JK"``), whatever the deck."""
    if not isinstance(code, str):
        return False
    try:
        parse_card(code)
    except ValueError:
        return False
    return True


def format_card(rank: int, suit: str) -> str:
    """``(7, "O")`` -> ``"7O"``. Raises ``ValueError`` for a rank outside 1-12 or an unknown suit."""
    if suit not in _SUIT_INDEX or not isinstance(rank, int) or not 1 <= rank <= 12:
        raise ValueError(f"no card of rank {rank!r} and suit {suit!r}")
    return f"{rank}{suit}"


def card_sort_key(code: str) -> tuple[int, int]:
    """Sort key: suit O, C, E, B, then rank; ``JK`` last. ``(suit index, rank)``, a joker ``(4, 0)``."""
    if code == JOKER:
        return (4, 0)
    return (_SUIT_INDEX[code[-1]], int(code[:-1]))


def sort_cards(codes: Iterable[str]) -> list[str]:
    """The codes sorted for display: O, C, E, B then rank, jokers last (a new list)."""
    return sorted(codes, key=card_sort_key)


def build_deck(deck: int = 48, decks: int = 1, jokers: int = 0) -> list[str]:
    """The full pack in a fixed order: ``decks`` copies of each card of a ``deck`` (40/48) plus ``jokers`` a deck.

    Example: ``build_deck(40, 1, 2)`` has 42 codes. (The wild Ace of Oros is an ordinary card of the pack.)
    """
    out: list[str] = []
    for _ in range(decks):
        for suit in SUITS:
            out.extend(f"{r}{suit}" for r in ranks_of(deck))
        out.extend([JOKER] * jokers)
    return out


def card_value(code: str, scheme: str, *, wild_value: int = 25, wild_card: str | None = None) -> int:
    """Penalty points of ``code`` left loose (rules/chinchon.md "Card values").

    ``scheme``: ``figures_10`` (1..9 face value; 10, 11, 12 count 10), ``pip`` (face value, Rey 12) or
    ``ordinal_40`` (1..7 face value, Sota 8, Caballo 9, Rey 10). A joker, or the ``wild_card`` (``"1O"``) when
    set, counts ``wild_value`` points. Raises ``ValueError`` for an unknown scheme or code.
    """
    if code == JOKER or (wild_card is not None and code == wild_card):
        return wild_value
    parsed = parse_card(code)
    assert parsed is not None
    rank = parsed[0]
    if scheme == "figures_10":
        return 10 if rank >= 10 else rank
    if scheme == "pip":
        return rank
    if scheme == "ordinal_40":
        if rank in (8, 9):
            raise ValueError(f"card {code!r} has no ordinal_40 value")
        return {10: 8, 11: 9, 12: 10}.get(rank, rank)
    raise ValueError(f"unknown card_values {scheme!r}")


def check_cards(codes: Iterable[str], *, deck: int, decks: int = 1, jokers: int = 0) -> list[str]:
    """Check that the deck could hold all ``codes`` at once; returns them as a list.

    Raises :class:`InvalidCard` (message names the card) for a malformed code, a card outside the deck
    (``"card '8C' not in a 40-card deck"``), a joker with no jokers, or more copies than the deck holds.
    """
    codes = list(codes)
    ranks = ranks_of(deck)
    for code in codes:
        if not isinstance(code, str):
            raise InvalidCard(f"{code!r} is not a card code")
        if code == JOKER:
            if jokers == 0:
                raise InvalidCard("card 'JK' not in a deck without jokers")
            continue
        try:
            rank, _suit = parse_card(code)  # type: ignore[misc]
        except ValueError:
            raise InvalidCard(f"{code!r} is not a card code") from None
        if rank not in ranks:
            raise InvalidCard(f"card '{code}' not in a {deck}-card deck")
    for code, n in Counter(codes).items():
        cap = decks * (jokers if code == JOKER else 1)
        if n > cap:
            held = "once" if cap == 1 else f"{cap} times"
            raise InvalidCard(f"card '{code}' appears {n} times; the deck holds it {held}")
    return codes
