"""The fixed chat catalogue (``GET /api/chat/catalogue``): emoji and quick phrases.

A message may carry one emoji of :data:`EMOJI` or the id of one phrase of :data:`PHRASES`.
"""

EMOJI: tuple[str, ...] = ("👍", "👏", "😂", "😮", "😢", "😡", "🎲", "🃏", "🔥", "🙏", "🍀", "🎉")

PHRASES: tuple[dict[str, str], ...] = (
    {"id": "hello", "text": "Hello!"},
    {"id": "good_luck", "text": "Good luck!"},
    {"id": "nice", "text": "Nice move!"},
    {"id": "oops", "text": "Oops!"},
    {"id": "hurry", "text": "Your turn, hurry up!"},
    {"id": "thinking", "text": "Let me think..."},
    {"id": "brb", "text": "Be right back."},
    {"id": "gg", "text": "Good game!"},
    {"id": "rematch", "text": "Rematch?"},
    {"id": "thanks", "text": "Thanks!"},
    {"id": "bye", "text": "Bye!"},
)

PHRASE_IDS = frozenset(p["id"] for p in PHRASES)


def catalogue() -> dict:
    """``{"emoji": [str, ...], "phrases": [{"id", "text"}, ...]}``."""
    return {"emoji": list(EMOJI), "phrases": [dict(p) for p in PHRASES]}
