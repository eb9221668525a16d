"""``GET /api/games/catalogue``: the settings tables of the rules files, read from the engine's one table
that the room API validates against, localised by Accept-Language (en, es, ja). Expected values are
written out by hand from rules/chinchirorin.md and rules/chinchon.md ("Settings", "Presets")."""

import pytest

from games.engine import chinchirorin, chinchon
from games.engine.errors import InvalidRules

pytestmark = pytest.mark.django_db

CHINCHIRORIN = {  # name: (type, default, bounds)
    "style": ("choice", "streamer", ["streamer", "common"]),
    "pinzoro_multiplier": ("integer", 5, (1, 10)),
    "hifumi_multiplier": ("integer", 2, (1, 2)),
    "out_of_bowl": ("boolean", False, None),
    "first_dealer": ("choice", "roll", ["roll", "seat"]),
    "rounds": ("integer", 1, (1, 3)),
    "starting_points": ("integer", 1000, (100, 100000)),
    "max_dealer_hands": ("integer", 3, (1, 10)),
    "bet_options": ("integer_list", [10, 20, 50, 100], None),
}
# rules/chinchon.md "Presets": (standard, traditional, wild_ace) for the settings the presets set.
CHINCHON_PRESETS = {
    "deck": (48, 48, 40), "jokers": (2, 0, 0), "wild_card": (None, None, "1O"),
    "card_values": ("figures_10", "pip", "figures_10"), "close_mode": ("one_card", "total", "one_card"),
    "close_limit": (3, 5, 3), "close_after_first_round": (False, False, True),
    "seven_run": ("win_game", "minus_ten", "win_game"), "seven_run_wild": (-10, -10, -25),
    "layoff": (True, True, True), "layoff_onto": ("closer", "all", "closer"), "elimination": (100, 100, 50),
    "reentry": ("off", "unlimited", "unlimited"),
    "first_mano": ("random", "high_card", "random"),  # seed 002: the highest card drawn is mano
}
CHINCHON_CHOICES = {
    "deck": [40, 48], "decks": [1, 2], "jokers": [0, 1, 2], "wild_card": [None, "1O"],
    "card_values": ["figures_10", "pip", "ordinal_40"], "max_jokers_per_meld": [1, 2],
    "close_mode": ["one_card", "total"], "seven_run": ["win_game", "minus_ten"], "seven_run_wild": [-10, -25],
    "layoff_onto": ["closer", "all"], "elimination": [50, 70, 100], "reentry": ["off", "once", "unlimited"],
    "first_mano": ["random", "high_card"],
}


def _games(api, lang="en"):
    res = api.get("/api/games/catalogue", HTTP_ACCEPT_LANGUAGE=lang)
    assert res.status_code == 200
    assert res["Content-Language"] == lang
    return {g["id"]: g for g in res.json()["games"]}, res.json()


def test_chinchirorin_settings_as_the_rules_file_lists_them(api):
    games, _ = _games(api)
    g = games["chinchirorin"]
    assert (g["name"], g["seats"], g["presets"]) == ("Chinchirorin", {"min": 2, "max": 8, "default": "auto"}, [])
    assert [s["name"] for s in g["settings"]] == list(CHINCHIRORIN)
    for s in g["settings"]:
        kind, default, bounds = CHINCHIRORIN[s["name"]]
        assert (s["type"], s["default"], s["presets"]) == (kind, default, {})
        assert s["label"] and s["description"]
        if kind == "integer":
            assert (s["min"], s["max"]) == bounds
        if kind == "choice":
            assert [c["value"] for c in s["choices"]] == bounds
    bets = games["chinchirorin"]["settings"][-1]
    assert (bets["min"], bets["min_items"], bets["max_items"]) == (1, 1, 6)


def test_chinchon_presets_and_their_values(api):
    games, _ = _games(api)
    g = games["chinchon"]
    assert (g["name"], g["seats"]) == ("Chinchón", {"min": 2, "max": 8, "default": "auto"})
    assert [(p["id"], p["seats"]) for p in g["presets"]] == [
        ("standard", {"min": 2, "max": 4}), ("traditional", {"min": 2, "max": 8}),
        ("wild_ace", {"min": 2, "max": 4})]
    settings = {s["name"]: s for s in g["settings"]}
    assert set(settings) == set(chinchon.Rules.__dataclass_fields__) - {"preset"}
    for name, (std, trad, wild) in CHINCHON_PRESETS.items():
        assert settings[name]["presets"] == {"standard": std, "traditional": trad, "wild_ace": wild}, name
        assert settings[name]["default"] == std
    for name, values in CHINCHON_CHOICES.items():
        assert settings[name]["type"] == "choice"
        assert [c["value"] for c in settings[name]["choices"]] == values, name
    assert [(settings[n]["type"], settings[n]["min"], settings[n]["max"]) for n in
            ("wild_value", "minus_ten", "close_limit")] == [("integer", 0, 50), ("integer", -50, 0),
                                                              ("integer", 0, 10)]
    assert settings["layoff"]["type"] == settings["close_after_first_round"]["type"] == "boolean"


def test_timers_cpu_levels_and_speeds(api):
    _, body = _games(api)
    assert [t["value"] for t in body["turn_seconds"]] == [None, 30, 60]
    assert [c["id"] for c in body["cpu_levels"]] == ["easy", "normal", "hard"]
    assert [(c["id"], c["seconds"]) for c in body["cpu_speeds"]] == [("fast", 0.5), ("normal", 1.5), ("slow", 3.0)]


def test_the_room_api_validates_against_the_same_table(api, host):
    """Every listed default, preset value and choice is accepted; one past each integer bound is a 400
    naming the setting."""
    _, body = _games(api)
    for game in body["games"]:
        engine = chinchon if game["id"] == "chinchon" else chinchirorin
        presets = [p["id"] for p in game["presets"]] or [None]
        for s in game["settings"]:
            for preset in presets:
                base = {"preset": preset} if preset else {}
                value = s["presets"][preset] if preset else s["default"]
                engine.validate_rules({**base, s["name"]: value})
            for choice in s.get("choices", []):
                if s["name"] not in ("card_values", "decks"):  # ordinal_40 needs 40 cards; decks: seats
                    engine.validate_rules({s["name"]: choice["value"]})
            if s["type"] == "integer" and s["name"] != "close_limit":
                for bad in (s["min"] - 1, s["max"] + 1):
                    with pytest.raises(InvalidRules) as exc:
                        engine.validate_rules({s["name"]: bad})
                    assert exc.value.field == s["name"]
    res = host.post("/api/rooms", {"game": "chinchirorin", "rules": {"rounds": 4}}, format="json")
    assert (res.status_code, res.json()["fields"]) == (400, {"rules.rounds": ["must be an integer from 1 to 3"]})


def test_localised_by_accept_language_ids_unchanged(api):
    en, en_body = _games(api, "en")
    es, es_body = _games(api, "es")
    ja, _ = _games(api, "ja")
    style = {lang: g["chinchirorin"]["settings"][0] for lang, g in (("en", en), ("es", es), ("ja", ja))}
    assert [style[lang]["label"] for lang in ("en", "es", "ja")] == ["Play style", "Estilo de juego", "プレイスタイル"]
    assert ja["chinchirorin"]["name"] == "チンチロリン"
    assert es_body["cpu_levels"][0]["label"] == "Fácil"
    first_mano = {lang: next(s for s in g["chinchon"]["settings"] if s["name"] == "first_mano")
                  for lang, g in (("en", en), ("es", es), ("ja", ja))}
    assert [first_mano[lang]["label"] for lang in ("en", "es", "ja")] == ["First mano", "Mano inicial",
                                                                         "最初のマノ(先手)"]
    assert [c["label"] for c in first_mano["es"]["choices"]] == ["Al azar", "La carta más alta"]

    def ids(games):
        return [(g["id"], [(s["name"], s["type"], s["default"], s.get("choices") and [c["value"] for c in
                 s["choices"]]) for s in g["settings"]]) for g in games.values()]

    assert ids(en) == ids(es) == ids(ja)
    # an unsupported language falls back to English
    res = api.get("/api/games/catalogue", HTTP_ACCEPT_LANGUAGE="de")
    assert res.json()["games"][0]["settings"][0]["label"] == "Play style"


def test_public_even_with_a_bad_token(api):
    assert api.get("/api/games/catalogue", HTTP_AUTHORIZATION="Token nope").status_code == 200


def test_rules_errors_in_the_request_language(host):
    res = host.post("/api/rooms", {"game": "chinchirorin", "rules": {"pinzoro_multiplier": 11}}, format="json",
                    HTTP_ACCEPT_LANGUAGE="es")
    assert res.json()["fields"] == {"rules.pinzoro_multiplier": ["debe ser un entero de 1 a 10"]}
    res = host.post("/api/rooms", {"game": "chinchon", "seats": 5}, format="json", HTTP_ACCEPT_LANGUAGE="ja")
    assert res.json()["fields"] == {"seats": ["standard は 2〜4 席で遊びます"]}
