"""One text policy for everything people type that others see: display names, chat text, report notes.

:func:`clean_text` (a plain function) and :class:`PolicyTextField` (its DRF field) apply, in order:

1. ``not_text``: a string.
2. NFC (Unicode normalisation form C), then the surrounding whitespace trimmed.
3. ``control`` (Cc), ``line_break`` (Zl, Zp), ``bidi`` (the bidirectional controls and marks: U+061C,
   U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), ``format`` (other Cf, except ZWJ U+200D and the emoji
   tag characters U+E0020–U+E007F when they sit inside an emoji sequence), ``private_use`` (Co),
   ``surrogate`` (Cs), ``unassigned`` (Cn, per the Unicode version of ``unicodedata2``), each refused with
   the code point it found.
4. ``combining_marks``: at most :data:`MAX_MARKS` combining marks (Mn, Me) in one grapheme cluster,
   counted in its NFD form (Vietnamese "ệ" has two, Devanagari conjuncts two or three; "Zalgo" text
   stacks dozens). Emoji sequences (variation selectors, keycaps) are not counted.
5. ``blank``: something visible must remain after removing whitespace, marks, format characters and the
   characters that render as nothing (Hangul fillers U+115F, U+1160, U+3164, U+FFA0, braille blank U+2800).
6. ``too_short`` / ``too_long``: the length counted in grapheme clusters (``regex``'s ``\\X``: what a reader
   sees as one character: "👍🏽", "🇯🇵", "é" as e + U+0301 are one each), and at most
   ``4 × max_length`` code points (the column's size).

Errors are :class:`TextPolicyError` (a DRF ``ValidationError``) whose message starts with the rule's name:
``"control: U+0085 is a control character."``; raised through a serializer, ``fields`` names the field.

Names that look alike: :func:`skeleton` is the Unicode TR39 skeleton (ICU's SpoofChecker, through
PyICU): two names are confusable when their skeletons are equal ("Hana" with a Cyrillic "а", "Ann" and
"Аnn", "rn" and "m"). :func:`names_told_apart` tells such names apart within a room by adding the suffix
``" #<seat + 1>"`` to each of them; display names themselves may not end like that (rule
``reserved_suffix``), so the suffix cannot be faked.
"""

from __future__ import annotations

from functools import lru_cache

import regex
import unicodedata2
from django.utils.translation import gettext, gettext_noop
from rest_framework import serializers

MAX_MARKS = 3
CODE_POINTS_PER_CLUSTER = 4  # column size = max_length × this
ZWJ = "\u200d"
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
BLANK_RENDERING = frozenset("\u115f\u1160\u3164\uffa0\u2800")
TAG_CHARACTERS = range(0xE0020, 0xE0080)
_CLUSTER = regex.compile(r"\X")
_EMOJI = regex.compile(r"\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Regional_Indicator}")
_RESERVED_SUFFIX = regex.compile(r"\s#\d+\Z")

_CATEGORY_RULES = {  # category: (rule, message with {point})
    "Cc": ("control", gettext_noop("{point} is a control character.")),
    "Zl": ("line_break", gettext_noop("{point} is a line separator.")),
    "Zp": ("line_break", gettext_noop("{point} is a paragraph separator.")),
    "Co": ("private_use", gettext_noop("{point} is a private-use character.")),
    "Cs": ("surrogate", gettext_noop("{point} is a lone surrogate.")),
    "Cn": ("unassigned", gettext_noop("{point} is not an assigned character.")),
}


class TextPolicyError(serializers.ValidationError):
    """A text broke the policy; ``rule``: the rule's name (``control``, ``bidi``, ``blank``...). The
    message is ``"<rule>: <text in the request's language>"``; ``message`` is a msgid formatted with
    ``params``."""

    def __init__(self, rule: str, message: str, **params):
        super().__init__(f"{rule}: {gettext(message).format(**params)}", code=rule)
        self.rule = rule


def _point(ch: str) -> str:
    name = unicodedata2.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def _emoji_cluster(cluster: str) -> bool:
    return bool(_EMOJI.search(cluster))


def _check_characters(cluster: str) -> None:
    """Raise for the first refused character of one grapheme cluster."""
    emoji = None
    for ch in cluster:
        category = unicodedata2.category(ch)
        if ch in BIDI_CONTROLS:
            raise TextPolicyError("bidi", gettext_noop("{point} is a bidirectional control."), point=_point(ch))
        if category in _CATEGORY_RULES:
            rule, message = _CATEGORY_RULES[category]
            raise TextPolicyError(rule, message, point=_point(ch))
        if category == "Cf":
            if emoji is None:
                emoji = _emoji_cluster(cluster)
            if not (emoji and (ch == ZWJ or ord(ch) in TAG_CHARACTERS)):
                raise TextPolicyError("format", gettext_noop("{point} is an invisible format character."),
                                      point=_point(ch))


def grapheme_count(text: str) -> int:
    """How many grapheme clusters (user-perceived characters, ``regex``'s ``\\X``) ``text`` has."""
    return len(_CLUSTER.findall(text))


def _visible(ch: str) -> bool:
    category = unicodedata2.category(ch)
    return not (category[0] in "ZMC" or ch in BLANK_RENDERING or ch.isspace())


def clean_text(value, *, max_length: int, min_length: int = 1, reserved_suffix: bool = False) -> str:
    """``value`` checked against the policy (see the module) and returned in NFC, trimmed.

    ``max_length``/``min_length``: in grapheme clusters. ``reserved_suffix``: also refuse a text ending in
    ``" #<digits>"`` (display names: the suffix :func:`names_told_apart` adds). Raises
    :class:`TextPolicyError` naming the rule broken.
    """
    if not isinstance(value, str):
        raise TextPolicyError("not_text", gettext_noop("Must be a string."))
    text = unicodedata2.normalize("NFC", value).strip()
    clusters = _CLUSTER.findall(text)
    for cluster in clusters:
        _check_characters(cluster)
        marks = sum(1 for ch in unicodedata2.normalize("NFD", cluster) if unicodedata2.category(ch) in ("Mn", "Me"))
        if marks > MAX_MARKS and not _emoji_cluster(cluster):
            raise TextPolicyError("combining_marks",
                                  gettext_noop("At most {most} combining marks on one character ({found} found)."),
                                  most=MAX_MARKS, found=marks)
    if min_length > 0 and not any(_visible(ch) for ch in text):
        raise TextPolicyError("blank", gettext_noop("Must show something: it is empty or only invisible characters."))
    if len(clusters) < min_length:
        raise TextPolicyError("too_short", gettext_noop("At least {least} characters."), least=min_length)
    if len(clusters) > max_length or len(text) > max_length * CODE_POINTS_PER_CLUSTER:
        raise TextPolicyError("too_long", gettext_noop("At most {most} characters."), most=max_length)
    if reserved_suffix and (_RESERVED_SUFFIX.search(text) or _RESERVED_SUFFIX.search(skeleton(text))):
        raise TextPolicyError("reserved_suffix", gettext_noop(
            "May not end with ' #' and a number: that suffix tells look-alike names apart."))
    return text


class PolicyTextField(serializers.CharField):
    """A DRF field applying :func:`clean_text` (``max_length``/``min_length`` in grapheme clusters)."""

    def __init__(self, *, max_length: int, min_length: int = 1, reserved_suffix: bool = False, **kwargs):
        self.policy = {"max_length": max_length, "min_length": min_length, "reserved_suffix": reserved_suffix}
        kwargs.setdefault("help_text", f"{min_length}–{max_length} characters (grapheme clusters) under the "
                                       "text policy (README \"Security\").")
        super().__init__(trim_whitespace=False, allow_blank=min_length == 0, **kwargs)

    def run_validation(self, data=serializers.empty):
        # Field's, not CharField's: a blank text is the policy's ``blank`` rule, not DRF's own message.
        return serializers.Field.run_validation(self, data)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise TextPolicyError("not_text", gettext_noop("Must be a string."))
        return clean_text(data, **self.policy)


# --------------------------------------------------------------------------------- look-alike names
@lru_cache(maxsize=1)
def _spoof_checker():
    import icu  # lazy: PyICU is heavy and only the look-alike check needs it

    return icu.SpoofChecker()


@lru_cache(maxsize=4096)
def skeleton(text: str) -> str:
    """The Unicode TR39 skeleton of ``text`` (ICU ``SpoofChecker.getSkeleton``): equal for names a reader
    could take for each other (not a text to show)."""
    return _spoof_checker().getSkeleton(0, text)


LEET = str.maketrans({"4": "a", "@": "a", "3": "e", "0": "o", "1": "l", "5": "s", "$": "s", "7": "t", "8": "b"})
"""Digits and signs read as letters in names ("H4na"), folded by :func:`lookalike_key`."""


def lookalike_key(text: str) -> str:
    """A search key equal for names that look alike: the TR39 :func:`skeleton`, case-folded, with
    :data:`LEET` digits read as letters, skeletoned again (``"Hana"``, ``"HANA"``, ``"Hanа"`` with a Cyrillic
    ``а`` and ``"H4na"`` all give ``"hana"``). Not a text to show."""
    return skeleton(skeleton(text.casefold()).casefold().translate(LEET)).casefold()


NAME_TAG = " #{n}"  # the suffix of a name confusable with another in the same room; n = seat + 1


def names_told_apart(names: dict, seats: dict | None = None) -> dict:
    """``{key: display name}`` → ``{key: name as shown}``: every name whose TR39 skeleton another key's
    name shares (identical names included) gets :data:`NAME_TAG` with its seat (``"Hana #2"`` for seat 1);
    the others are unchanged. Keys are seats, or anything with ``seats`` giving ``{key: seat}``."""
    by_skeleton: dict[str, list] = {}
    for key, name in names.items():
        by_skeleton.setdefault(skeleton(name), []).append(key)
    out = dict(names)
    for keys in by_skeleton.values():
        if len(keys) > 1:
            for key in keys:
                seat = key if seats is None else seats[key]
                out[key] = names[key] + NAME_TAG.format(n=seat + 1)
    return out
