"""The games catalogue (``GET /api/games/catalogue``): what a settings screen needs to create a room.

For each game its seat range, presets and every rules setting, read from the engine's one settings table
(``SETTINGS``, ``PRESET_TABLE``: the same rows ``validate_rules`` checks against), with labels and
descriptions translated into the active language (Django's gettext; ``LocaleMiddleware`` picks it from
``Accept-Language``); plus the room's turn timers, CPU levels and CPU speeds. Ids and values are the same
in every language.
"""

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _

from games.engine.registry import GAMES, get_engine
from games.engine.settings import CHOICE, INTEGER, INTEGER_LIST, Setting
from games.models import Game
from games.services import CPU_DELAYS
from rooms.models import CPU_LEVELS, DEFAULT_SEATS, TURN_SECONDS

GAME_NAMES = dict(Game.GAME_CHOICES)
GAME_DESCRIPTIONS = {
    "chinchirorin": _("The Japanese three-dice game: one dealer against the table, bets in points, "
                      "pinzoro, arashi, shigoro and points."),
    "chinchon": _("The Spanish rummy with the Spanish deck: meld sets and runs, close with menos diez or "
                  "a chinchón, and stay under the elimination score."),
}
TURN_LABELS = {None: _("No timer"), 30: _("30 seconds"), 60: _("60 seconds")}
CPU_LEVEL_LABELS = {"easy": _("Easy"), "normal": _("Normal"), "hard": _("Hard")}
CPU_SPEED_LABELS = {"fast": _("Fast"), "normal": _("Normal"), "slow": _("Slow")}
# The room's on/off settings (a room's boolean fields; the create and PATCH bodies take them).
ROOM_SWITCHES = [
    ("spectators_allowed", False, _("Spectators"),
     _("Users with the code may watch the table (never while a ranked game is in progress).")),
    ("voice_allowed", True, _("Voice chat"),
     _("The seated players may talk to each other; nobody's microphone is used until they join voice.")),
]


def _json(value):
    return list(value) if isinstance(value, tuple) else value


def _setting(setting: Setting, preset_ids: list[str]) -> dict:
    """One setting row of the catalogue, translated."""
    out = {"name": setting.name, "type": setting.type, "default": _json(setting.default),
           "presets": {p: _json(setting.value_in(p)) for p in preset_ids}}
    if setting.type == CHOICE:
        out["choices"] = [{"value": c.value, "label": gettext(c.label)} for c in setting.choices]
    if setting.type in (INTEGER, INTEGER_LIST):
        out["min"] = setting.min
        if setting.max is not None:
            out["max"] = setting.max
    if setting.type == INTEGER_LIST:
        out["min_items"], out["max_items"] = setting.min_items, setting.max_items
    out["label"] = gettext(setting.label)
    out["description"] = gettext(setting.description)
    return out


def game_catalogue(name: str) -> dict:
    """``{id, name, description, seats: {min, max, default}, presets: [...], settings: [...]}`` of game
    ``name`` in the active language."""
    engine = get_engine(name)
    presets = list(engine.PRESET_TABLE)
    if presets:
        lo, hi = min(p.min_seats for p in presets), max(p.max_seats for p in presets)
    else:
        lo, hi = engine.SEAT_RANGE({})
    ids = [p.id for p in presets]
    return {
        "id": name,
        "name": gettext(GAME_NAMES[name]),
        "description": gettext(GAME_DESCRIPTIONS[name]),
        "seats": {"min": lo, "max": hi, "default": DEFAULT_SEATS},
        "presets": [{"id": p.id, "name": gettext(p.name), "description": gettext(p.description),
                     "seats": {"min": p.min_seats, "max": p.max_seats}} for p in presets],
        "settings": [_setting(s, ids) for s in engine.SETTINGS],
    }


def catalogue() -> dict:
    """The whole catalogue in the active language: ``{games, turn_seconds, cpu_levels, cpu_speeds,
    room_settings}`` (``room_settings``: ``[{name, type: "boolean", default, label, description}]``, the
    room's on/off settings)."""
    return {
        "games": [game_catalogue(name) for name in GAMES],
        "turn_seconds": [{"value": v, "label": gettext(TURN_LABELS[v])} for v in TURN_SECONDS],
        "cpu_levels": [{"id": v, "label": gettext(CPU_LEVEL_LABELS[v])} for v in CPU_LEVELS],
        "cpu_speeds": [{"id": v, "seconds": CPU_DELAYS[v], "label": gettext(CPU_SPEED_LABELS[v])}
                       for v in CPU_DELAYS],
        "room_settings": [{"name": name, "type": "boolean", "default": default, "label": gettext(label),
                           "description": gettext(description)}
                          for name, default, label, description in ROOM_SWITCHES],
    }
