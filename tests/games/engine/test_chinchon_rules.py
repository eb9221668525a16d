"""Chinchón settings: presets, overrides and validation (rules/chinchon.md "Presets", "Settings")."""

import json

import pytest

from games.engine.chinchon import SEAT_RANGE, Rules, rules_to_dict, validate_rules
from games.engine.errors import InvalidRules


def test_standard_defaults():
    r = validate_rules({})
    assert r == validate_rules(None) == validate_rules({"preset": "standard"})
    assert (r.deck, r.decks, r.jokers, r.wild_card, r.card_values) == (48, 1, 2, None, "figures_10")
    assert (r.close_mode, r.close_limit, r.close_after_first_round) == ("one_card", 3, False)
    assert (r.seven_run, r.seven_run_wild, r.minus_ten, r.wild_value) == ("win_game", -10, -10, 25)
    assert (r.layoff, r.layoff_onto, r.elimination, r.reentry) == (True, "closer", 100, "off")
    assert r.max_jokers_per_meld == 1


def test_traditional_preset():
    r = validate_rules({"preset": "traditional"})
    assert (r.deck, r.decks, r.jokers, r.card_values) == (48, 1, 0, "pip")
    assert (r.close_mode, r.close_limit, r.seven_run, r.seven_run_wild) == ("total", 5, "minus_ten", -10)
    assert (r.layoff, r.layoff_onto, r.elimination, r.reentry) == (True, "all", 100, "unlimited")
    assert validate_rules({"preset": "traditional", "deck": 40}).card_values == "ordinal_40"
    assert validate_rules({"preset": "traditional", "deck": 40, "card_values": "pip"}).card_values == "pip"


def test_wild_ace_preset():
    r = validate_rules({"preset": "wild_ace"})
    assert (r.deck, r.jokers, r.wild_card, r.card_values) == (40, 0, "1O", "figures_10")
    assert (r.close_mode, r.close_limit, r.close_after_first_round) == ("one_card", 3, True)
    assert (r.seven_run, r.seven_run_wild, r.elimination, r.reentry) == ("win_game", -25, 50, "unlimited")
    assert r.layoff_onto == "closer"


def test_overrides_one_by_one():
    r = validate_rules({"preset": "standard", "deck": 40, "jokers": 0, "close_limit": 5, "reentry": "once",
                        "elimination": 50, "layoff": False, "minus_ten": -20, "wild_value": 30,
                        "max_jokers_per_meld": 2, "seven_run": "minus_ten", "seven_run_wild": -25,
                        "wild_card": "1O", "close_after_first_round": True, "layoff_onto": "all",
                        "card_values": "ordinal_40", "close_mode": "total"})
    assert r.deck == 40 and r.close_limit == 5 and r.reentry == "once" and r.layoff is False
    assert r.card_values == "ordinal_40" and r.close_mode == "total" and r.minus_ten == -20


@pytest.mark.parametrize(
    "settings,field",
    [
        ({"preset": "nope"}, "preset"),
        ({"colour": "red"}, "colour"),
        ({"turn_seconds": 60}, "turn_seconds"),
        ({"deck": 52}, "deck"),
        ({"deck": "48"}, "deck"),
        ({"jokers": 3}, "jokers"),
        ({"jokers": True}, "jokers"),
        ({"wild_card": "2O"}, "wild_card"),
        ({"card_values": "face"}, "card_values"),
        ({"card_values": "ordinal_40"}, "card_values"),  # needs a 40-card deck
        ({"wild_value": 51}, "wild_value"),
        ({"wild_value": -1}, "wild_value"),
        ({"max_jokers_per_meld": 3}, "max_jokers_per_meld"),
        ({"close_mode": "any"}, "close_mode"),
        ({"close_limit": 4}, "close_limit"),
        ({"close_limit": 11, "close_mode": "total"}, "close_limit"),
        ({"close_after_first_round": 1}, "close_after_first_round"),
        ({"minus_ten": 5}, "minus_ten"),
        ({"minus_ten": -51}, "minus_ten"),
        ({"seven_run": "lose"}, "seven_run"),
        ({"seven_run_wild": -20}, "seven_run_wild"),
        ({"layoff": "yes"}, "layoff"),
        ({"layoff_onto": "nobody"}, "layoff_onto"),
        ({"elimination": 60}, "elimination"),
        ({"reentry": "twice"}, "reentry"),
        ({"decks": 3}, "decks"),
        ({"decks": 2}, "decks"),  # two decks: traditional only
        ({"preset": "wild_ace", "decks": 2}, "decks"),
    ],
)
def test_bad_settings_name_the_field(settings, field):
    with pytest.raises(InvalidRules) as exc:
        validate_rules(settings)
    assert exc.value.field == field


def test_total_close_limit_range():
    assert validate_rules({"close_mode": "total", "close_limit": 7}).close_limit == 7
    assert validate_rules({"preset": "traditional", "close_limit": 0}).close_limit == 0


def test_seats_and_decks():
    assert validate_rules({"preset": "traditional"}, seats=5).decks == 2
    assert validate_rules({"preset": "traditional"}, seats=8).decks == 2
    assert validate_rules({"preset": "traditional"}, seats=4).decks == 1
    assert validate_rules({"preset": "traditional", "decks": 2}, seats=6).decks == 2
    for settings, seats, field in [
        ({}, 5, "seats"),
        ({}, 1, "seats"),
        ({"preset": "wild_ace"}, 5, "seats"),
        ({"preset": "traditional"}, 9, "seats"),
        ({"preset": "traditional", "decks": 1}, 6, "decks"),
        ({"preset": "traditional", "decks": 2}, 4, "decks"),
    ]:
        with pytest.raises(InvalidRules) as exc:
            validate_rules(settings, seats=seats)
        assert exc.value.field == field


def test_seat_range():
    assert SEAT_RANGE({}) == (2, 4)
    assert SEAT_RANGE({"preset": "wild_ace"}) == (2, 4)
    assert SEAT_RANGE({"preset": "traditional"}) == (2, 8)
    assert SEAT_RANGE({"preset": "traditional", "decks": 2}) == (5, 8)
    assert SEAT_RANGE({"preset": "traditional", "decks": 1}) == (2, 4)


def test_rules_to_dict_round_trip():
    for preset in ("standard", "traditional", "wild_ace"):
        r = validate_rules({"preset": preset})
        d = rules_to_dict(r)
        assert set(d) == set(Rules.__dataclass_fields__)
        assert validate_rules(json.loads(json.dumps(d))) == r
    r = validate_rules({"preset": "traditional"}, seats=6)
    assert validate_rules(rules_to_dict(r), seats=6) == r
