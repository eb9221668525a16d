"""The fixed chat catalogue (``GET /api/chat/catalogue``): emoji and quick phrases.

A message may carry one emoji of :data:`EMOJI` or the id of one phrase of :data:`PHRASES`.
"""

from django.utils.translation import gettext, gettext_noop

EMOJI: tuple[str, ...] = ("👍", "👏", "😂", "😮", "😢", "😡", "🎲", "🃏", "🔥", "🙏", "🍀", "🎉")

PHRASES: tuple[dict[str, str], ...] = (
    {"id": "hello", "text": gettext_noop("Hello!")},
    {"id": "good_luck", "text": gettext_noop("Good luck!")},
    {"id": "nice", "text": gettext_noop("Nice move!")},
    {"id": "oops", "text": gettext_noop("Oops!")},
    {"id": "hurry", "text": gettext_noop("Your turn, hurry up!")},
    {"id": "thinking", "text": gettext_noop("Let me think...")},
    {"id": "brb", "text": gettext_noop("Be right back.")},
    {"id": "gg", "text": gettext_noop("Good game!")},
    {"id": "rematch", "text": gettext_noop("Rematch?")},
    {"id": "thanks", "text": gettext_noop("Thanks!")},
    {"id": "bye", "text": gettext_noop("Bye!")},
)
"""The quick phrases: ``id`` (what a chat message carries, the same in every language) and English
``text`` (a message id; :func:`catalogue` gives it in the active language)."""

PHRASE_IDS = frozenset(p["id"] for p in PHRASES)


def catalogue() -> dict:
    """``{"emoji": [str, ...], "phrases": [{"id", "text"}, ...]}``, phrase texts in the active language
    (the request's ``Accept-Language``)."""
    return {"emoji": list(EMOJI), "phrases": [{"id": p["id"], "text": gettext(p["text"])} for p in PHRASES]}
