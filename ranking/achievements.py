"""The fixed achievement catalogue, and XP and levels.

Achievements are awarded once per user (``AchievementAward``: ``unique(user, achievement)``) by the task
that records a finished game (:func:`ranking.services.game_record`), judged from that game's log and
the player's totals after it. Each entry: ``id`` (stable, used by clients), ``name``, ``description``
(its condition in words; both English message ids translated by the API into the request's language),
``xp`` (granted once with the award, through :func:`ranking.services.xp_grant`, reason ``achievement``,
ref the id) and what its progress counts: ``counter`` (a key of :func:`ranking.selectors.user_totals`)
toward ``target`` (a condition met within one game counts 0 or 1 of 1).

**XP** (DESIGN.md "Ratings", from seed 003's table): 26 a game played, 43 a win, 3 a hand finished
("end a round"), 1 a card discarded; a seat that resigned or was played for (away, autoplay, left) gets
none unless it was eliminated. A player's XP is that game XP plus its grants (``XpGrant``: achievements,
challenges).

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

from django.utils.translation import gettext, gettext_noop

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
    """One catalogue entry; ``test(ctx)`` says whether the seat earned it in this game; ``xp`` is granted
    with it; progress counts ``counter`` of the player's totals toward ``target`` (``None``: a condition
    met within one game, 0 or 1 of 1)."""

    id: str
    name: str
    description: str
    xp: int
    test: Callable[[SeatContext], bool]
    counter: str | None = None
    target: int = 1

    def as_dict(self) -> dict:
        """``{id, name, description}`` in the active language (the API and socket shape)."""
        return {"id": self.id, "name": gettext(self.name), "description": gettext(self.description)}


_ = gettext_noop
CATALOGUE: tuple[Achievement, ...] = (
    Achievement("first_game", _("First game"), _("Finish a game."), 10, lambda c: c.games >= 1, "games"),
    Achievement("first_win", _("First win"), _("Win a game."), 20, lambda c: c.won, "wins"),
    Achievement("ten_games", _("Regular"), _("Finish 10 games."), 50, lambda c: c.games >= 10, "games", 10),
    Achievement("first_ranked_game", _("Ranked debut"), _("Finish a rated ranked game."), 20,
                lambda c: c.rated, "rated_games"),
    Achievement("first_ranked_win", _("Ranked winner"), _("Win a rated ranked game."), 30,
                lambda c: c.rated and c.won, "rated_wins"),
    Achievement("ten_ranked_wins", _("Contender"), _("Win 10 rated ranked games."), 100,
                lambda c: c.rated_wins >= 10, "rated_wins", 10),
    Achievement("rating_1600", _("Rising star"), _("Reach a rating of 1600 in a game."), 100,
                lambda c: c.rating_after is not None and c.rating_after >= 1600, "best_rating", 1600),
    Achievement("comeback", _("Comeback"), _("Win a game after standing last after a hand."), 50,
                lambda c: c.won and c.facts.was_last),
    Achievement("pinzoro", _("Pinzoro!"), _("Roll 1-1-1 in Chinchirorin."), 30,
                lambda c: c.facts.pinzoro > 0, "pinzoro"),
    Achievement("arashi", _("Storm"), _("Roll an arashi (three of a kind) in Chinchirorin."), 20,
                lambda c: c.facts.arashi > 0, "arashi"),
    Achievement("shigoro", _("Shigoro"), _("Roll 4-5-6 in Chinchirorin."), 15, lambda c: c.facts.shigoro > 0,
                "shigoro"),
    Achievement("hifumi_survivor", _("Hifumi survivor"), _("Roll a hifumi (1-2-3) and still win the game."), 40,
                lambda c: c.won and c.facts.hifumi > 0),
    Achievement("double_up", _("Double up"),
                _("Finish a Chinchirorin game with twice the starting points or more."), 40,
                lambda c: c.game_name == "chinchirorin" and c.final_points is not None
                and c.starting_points is not None and c.final_points >= 2 * c.starting_points),
    Achievement("menos_diez", _("Menos diez"), _("Close a Chinchón hand with all seven cards melded."), 30,
                lambda c: c.facts.minus_ten > 0, "minus_ten"),
    Achievement("chinchon", _("¡Chinchón!"), _("Close with a seven-card run without a wild."), 100,
                lambda c: c.facts.chinchon > 0, "chinchon"),
    Achievement("clean_sheet", _("Clean sheet"), _("Win a Chinchón game with a score of 0 or less."), 50,
                lambda c: c.game_name == "chinchon" and c.won and c.final_points is not None
                and c.final_points <= 0),
)
del _

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
