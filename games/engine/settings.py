"""Rules settings as data: each game holds ONE table of :class:`Setting` rows (rules files, "Settings"),
read by the game's ``validate_rules`` (every value check) and by the catalogue API (``GET
/api/games/catalogue``), so a setting added to a table is validated and listed with no other change.

Texts here (labels, descriptions, error messages) are English and are the gettext message ids the Django
layer translates; :func:`gettext_noop` only marks them for extraction (``makemessages``), keeping the
engine free of Django. Error messages are templates with ``{name}`` fields, filled from
:attr:`games.engine.errors.InvalidRules.params`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine.errors import InvalidRules

INTEGER = "integer"
BOOLEAN = "boolean"
CHOICE = "choice"
INTEGER_LIST = "integer_list"
TYPES = (INTEGER, BOOLEAN, CHOICE, INTEGER_LIST)


def gettext_noop(text: str) -> str:
    """Return ``text`` unchanged: marks an English text as a message id for the translation catalogues."""
    return text


MSG_NOT_AN_OBJECT = gettext_noop("must be an object of settings")
MSG_UNKNOWN = gettext_noop("unknown setting")
MSG_BOOLEAN = gettext_noop("must be true or false")
MSG_INTEGER = gettext_noop("must be an integer from {min} to {max}")
MSG_CHOICE = gettext_noop("must be one of {choices}")
MSG_LIST = gettext_noop("must be a list of {min_items} to {max_items} integers, each at least {min}")
MSG_ASCENDING = gettext_noop("must be distinct and in ascending order")


@dataclass(frozen=True)
class Choice:
    """One allowed value of a ``choice`` setting and its English label (a message id)."""

    value: Any
    label: str


@dataclass(frozen=True, eq=False)
class Setting:
    """One rules setting, as the API names it.

    - ``type``: ``integer`` (``min``..``max``), ``boolean``, ``choice`` (one of ``choices``' values; JSON
      ``null`` allowed when a value is ``None``) or ``integer_list`` (``min_items``..``max_items`` integers,
      each ``>= min``, strictly ascending). A boolean is never a number.
    - ``default``: the value when neither the preset nor the settings give one.
    - ``presets``: ``{preset id: value}`` for the presets that change it (games with presets only).
    - ``label``, ``description``: English texts (message ids) for a settings screen.
    """

    name: str
    type: str
    default: Any
    label: str
    description: str
    choices: tuple[Choice, ...] = ()
    min: int | None = None
    max: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    presets: Mapping[str, Any] = field(default_factory=dict)

    def value_in(self, preset: str | None) -> Any:
        """The value this setting takes in ``preset`` (its default when the preset leaves it alone)."""
        return self.presets.get(preset, self.default) if preset is not None else self.default

    def check(self, value: Any) -> Any:
        """Return ``value`` when the setting allows it; else raise ``InvalidRules(name, message)``."""
        if self.type == BOOLEAN:
            if not isinstance(value, bool):
                raise InvalidRules(self.name, MSG_BOOLEAN)
        elif self.type == INTEGER:
            if not _is_int(value) or not self.min <= value <= self.max:
                raise InvalidRules(self.name, MSG_INTEGER, min=self.min, max=self.max)
        elif self.type == CHOICE:
            typed = value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))
            if not typed or all(value != c.value or type(value) is not type(c.value) for c in self.choices):
                shown = ", ".join("null" if c.value is None else str(c.value) for c in self.choices)
                raise InvalidRules(self.name, MSG_CHOICE, choices=shown)
        else:  # INTEGER_LIST
            bounds = {"min_items": self.min_items, "max_items": self.max_items, "min": self.min}
            if not isinstance(value, (list, tuple)) or not self.min_items <= len(value) <= self.max_items:
                raise InvalidRules(self.name, MSG_LIST, **bounds)
            if any(not _is_int(v) or v < self.min for v in value):
                raise InvalidRules(self.name, MSG_LIST, **bounds)
            if any(a >= b for a, b in zip(value, value[1:], strict=False)):
                raise InvalidRules(self.name, MSG_ASCENDING)
        return value


@dataclass(frozen=True)
class Preset:
    """A named set of setting values (its values are the :attr:`Setting.presets` entries), the seat counts
    it is played by, and English texts (message ids)."""

    id: str
    name: str
    description: str
    min_seats: int
    max_seats: int


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def table_index(table: tuple[Setting, ...]) -> dict[str, Setting]:
    """``{name: Setting}`` of a table (in table order)."""
    return {s.name: s for s in table}


def preset_values(table: tuple[Setting, ...], preset: str | None) -> dict[str, Any]:
    """Every setting's value in ``preset`` (``None``: the defaults), in table order."""
    return {s.name: s.value_in(preset) for s in table}
