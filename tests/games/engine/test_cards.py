"""Cards: codes, decks, values, sort order (rules/chinchon.md "Cards", "Card values")."""

from collections import Counter

import pytest

from games.engine.cards import (
    build_deck,
    card_sort_key,
    card_value,
    check_cards,
    format_card,
    is_card_code,
    parse_card,
    ranks_of,
    sort_cards,
)
from games.engine.errors import InvalidCard


def test_parse_and_format():
    assert parse_card("7O") == (7, "O")
    assert parse_card("12E") == (12, "E")
    assert parse_card("JK") is None
    assert format_card(10, "B") == "10B"
    # non-ASCII digits ("\u0663" is an Arabic-Indic 3, "\u00b2" a superscript 2) are not card codes
    for bad in ("13O", "0O", "7X", "", "O7", "07O", "1", 7, None, "\u0663O", "\u00b2O", "1\u0662O"):
        assert not is_card_code(bad)
        with pytest.raises(ValueError):
            parse_card(bad)


def test_run_order():
    assert ranks_of(48) == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
    assert ranks_of(40) == (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)


def test_decks():
    assert len(build_deck(48, 1, 0)) == 48
    assert len(build_deck(40, 1, 2)) == 42
    two = build_deck(48, 2, 2)
    assert len(two) == 100
    c = Counter(two)
    assert c["JK"] == 4 and c["7O"] == 2 and c["9B"] == 2
    assert "8C" not in build_deck(40)


def test_sort_order():
    cards = ["JK", "1B", "12O", "3C", "1O", "10E", "2C", "JK"]
    assert sort_cards(cards) == ["1O", "12O", "2C", "3C", "10E", "1B", "JK", "JK"]
    assert card_sort_key("JK") > card_sort_key("12B")


@pytest.mark.parametrize(
    "code,scheme,expected",
    [
        ("12O", "figures_10", 10),
        ("11O", "figures_10", 10),
        ("10O", "figures_10", 10),
        ("9O", "figures_10", 9),
        ("12C", "pip", 12),
        ("10C", "pip", 10),
        ("8C", "pip", 8),
        ("12E", "ordinal_40", 10),
        ("11E", "ordinal_40", 9),
        ("10E", "ordinal_40", 8),
        ("7E", "ordinal_40", 7),
        ("1B", "ordinal_40", 1),
        ("JK", "pip", 25),
    ],
)
def test_values(code, scheme, expected):
    assert card_value(code, scheme) == expected


def test_wild_values():
    assert card_value("1O", "figures_10", wild_card="1O") == 25
    assert card_value("1O", "figures_10") == 1
    assert card_value("JK", "figures_10", wild_value=0) == 0


def test_check_cards():
    assert check_cards(["7O", "JK"], deck=40, jokers=1) == ["7O", "JK"]
    with pytest.raises(InvalidCard, match="card '8C' not in a 40-card deck"):
        check_cards(["8C"], deck=40)
    with pytest.raises(InvalidCard, match="JK"):
        check_cards(["JK"], deck=48, jokers=0)
    with pytest.raises(InvalidCard, match="7O"):
        check_cards(["7O", "7O"], deck=48)
    assert check_cards(["7O", "7O"], deck=48, decks=2) == ["7O", "7O"]
    with pytest.raises(InvalidCard):
        check_cards(["JK", "JK", "JK"], deck=48, jokers=2)
    with pytest.raises(InvalidCard):
        check_cards(["13O"], deck=48)
