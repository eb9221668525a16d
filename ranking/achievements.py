"""The fixed achievement catalogue, and XP and levels.

Achievements are awarded once per user (``AchievementAward``: ``unique(user, achievement)``) by the task
that records a finished game (:func:`ranking.services.game_record`), judged from that game's log and
the player's totals after it. Each entry: ``id`` (stable, used by clients), ``name``, ``description``.

**XP** (DESIGN.md "Ratings", from seed 003's table): 26 a game played, 43 a win, 3 a hand finished
("end a round"), 1 a card discarded; a seat that resigned or was played for (away, autoplay, left) gets
none unless it was eliminated.

**Levels** (seed 003 gives no table; the project's rule): level ``n`` needs ``50 · n · (n − 1)`` XP, i.e.
100 · (1 + 2 + … + (n − 1)):

=====  ========
level  total XP
=====  ========
1      0
2      100
3      300
4      600
5      1000
6      1500
10     4500
=====  ========
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

XP_GAME = 26
XP_WIN = 43
XP_HAND = 3
XP_DISCARD = 1


def xp_for(*, won: bool, hands_finished: int, cards_discarded: int, resigned: bool, played_for: bool,
           eliminated: bool) -> int:
    """XP one seat earns from one finished game (see the module docstring)."""
    if (resigned or played_for) and not eliminated:
        return 0
    return XP_GAME + (XP_WIN if won else 0) + XP_HAND * hands_finished + XP_DISCARD * cards_discarded


def level_xp(level: int) -> int:
    """Total XP needed to reach ``level`` (>= 1): ``50 · level · (level − 1)``."""
    return 50 * level * (level - 1)


def level_for(xp: int) -> int:
    """The level of a player with ``xp`` total XP (>= 1): the largest n with ``level_xp(n) <= xp``."""
    if xp <= 0:
        return 1
    n = int((1 + math.sqrt(1 + 4 * xp / 50)) / 2)
    while level_xp(n + 1) <= xp:
        n += 1
    while n > 1 and level_xp(n) > xp:
        n -= 1
    return n


@dataclass
class SeatContext:
    """What an achievement may look at: this game's facts for the seat and the player's totals after it.

    ``won``: sole first place. ``facts``: :class:`ranking.gamelog.SeatFacts`. ``games``/``wins``: finished
    games and wins of any game, this one included; ``rated_games``/``rated_wins``: rated ones;
    ``rating_after``: the rating after this game when it was rated, else None. ``final_points``: the
    seat's chinchirorin points / chinchón score at the end (None if unknown); ``starting_points``:
    chinchirorin's starting points.
    """

    game_name: str
    won: bool
    rated: bool
    facts: object
    games: int = 0
    wins: int = 0
    rated_games: int = 0
    rated_wins: int = 0
    rating_after: int | None = None
    final_points: int | None = None
    starting_points: int | None = None
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Achievement:
    """One catalogue entry; ``test(ctx)`` says whether the seat earned it in this game."""

    id: str
    name: str
    description: str
    test: Callable[[SeatContext], bool]

    def as_dict(self) -> dict:
        """``{id, name, description}`` (the API and socket shape)."""
        return {"id": self.id, "name": self.name, "description": self.description}


CATALOGUE: tuple[Achievement, ...] = (
    Achievement("first_game", "First game", "Finish a game.", lambda c: c.games >= 1),
    Achievement("first_win", "First win", "Win a game.", lambda c: c.won),
    Achievement("ten_games", "Regular", "Finish 10 games.", lambda c: c.games >= 10),
    Achievement("first_ranked_game", "Ranked debut", "Finish a rated ranked game.", lambda c: c.rated),
    Achievement("first_ranked_win", "Ranked winner", "Win a rated ranked game.", lambda c: c.rated and c.won),
    Achievement("ten_ranked_wins", "Contender", "Win 10 rated ranked games.", lambda c: c.rated_wins >= 10),
    Achievement("rating_1600", "Rising star", "Reach a rating of 1600 in a game.",
                lambda c: c.rating_after is not None and c.rating_after >= 1600),
    Achievement("comeback", "Comeback", "Win a game after standing last after a hand.",
                lambda c: c.won and c.facts.was_last),
    Achievement("pinzoro", "Pinzoro!", "Roll 1-1-1 in Chinchirorin.", lambda c: c.facts.pinzoro > 0),
    Achievement("arashi", "Storm", "Roll an arashi (three of a kind) in Chinchirorin.", lambda c: c.facts.arashi > 0),
    Achievement("shigoro", "Shigoro", "Roll 4-5-6 in Chinchirorin.", lambda c: c.facts.shigoro > 0),
    Achievement("hifumi_survivor", "Hifumi survivor", "Roll a hifumi (1-2-3) and still win the game.",
                lambda c: c.won and c.facts.hifumi > 0),
    Achievement("double_up", "Double up", "Finish a Chinchirorin game with twice the starting points or more.",
                lambda c: c.game_name == "chinchirorin" and c.final_points is not None
                and c.starting_points is not None and c.final_points >= 2 * c.starting_points),
    Achievement("menos_diez", "Menos diez", "Close a Chinchón hand with all seven cards melded.",
                lambda c: c.facts.minus_ten > 0),
    Achievement("chinchon", "¡Chinchón!", "Close with a seven-card run without a wild.", lambda c: c.facts.chinchon > 0),
    Achievement("clean_sheet", "Clean sheet", "Win a Chinchón game with a score of 0 or less.",
                lambda c: c.game_name == "chinchon" and c.won and c.final_points is not None and c.final_points <= 0),
)

BY_ID: dict[str, Achievement] = {a.id: a for a in CATALOGUE}


def earned(ctx: SeatContext) -> list[Achievement]:
    """The catalogue entries this seat earned in this game (whether or not already awarded)."""
    out = []
    for a in CATALOGUE:
        try:
            if a.test(ctx):
                out.append(a)
        except (AttributeError, TypeError):
            continue
    return out
