"""The challenge catalogue and its rotation (seed 003: "Get extra coins and experience by completing game
challenges"). Pure: no Django.

Each game has a pool of daily and a pool of weekly challenges. The active ones are chosen from the date
alone, so every server and every client agrees without storing anything: a period's challenges are the
``DAILY_PICK`` (daily) or ``WEEKLY_PICK`` (weekly) entries of the game's pool with the smallest
``sha256("<period key>|<challenge id>")``. Period keys: the UTC date ``2026-12-01`` (a day, from 00:00
UTC) and the ISO week ``2026-W49`` (Monday 00:00 UTC to the next Monday).

Progress counts the caller's finished games of that game within the period from the per-seat facts that
statistics, XP and achievements use (:mod:`ranking.gamelog` ``seat_facts``, stored per game and player
as ``ranking.models.GameRecord``). A game counts when it counts for the seat (``GameRecord.counts``: the
rule of :mod:`ranking.eligibility`). Metrics: ``games`` (games played), ``wins`` (a sole first place that
counts, ``win_counts``), and
the fact counters ``hands_finished``, ``cards_discarded``, ``minus_ten``, ``chinchon``, ``pinzoro``,
``arashi``, ``shigoro``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

DAILY, WEEKLY = "daily", "weekly"
DAILY_PICK = 2
WEEKLY_PICK = 1
METRICS = ("games", "wins", "hands_finished", "cards_discarded", "minus_ten", "chinchon", "pinzoro", "arashi",
           "shigoro")


@dataclass(frozen=True)
class Challenge:
    """One catalogue entry: reach ``target`` of ``metric`` in ``game`` games within one period; the
    reward is ``coins`` coins and ``xp`` XP. ``id`` is stable (clients and claims use it)."""

    id: str
    game: str
    period: str
    metric: str
    target: int
    coins: int
    xp: int
    name: str
    description: str


def gettext_noop(text: str) -> str:
    """Return ``text`` unchanged: marks a name or description as a message id for the translations."""
    return text


def _c(game, period, metric, target, coins, xp, name, description):
    return Challenge(f"{game}.{period}.{metric}_{target}", game, period, metric, target, coins, xp, name, description)


CATALOGUE: tuple[Challenge, ...] = (
    # Chinchón, daily
    _c("chinchon", DAILY, "games", 3, 40, 20,
       gettext_noop("Three at the table"), gettext_noop("Play 3 games of Chinchón.")),
    _c("chinchon", DAILY, "wins", 2, 60, 30,
       gettext_noop("Double winner"), gettext_noop("Win 2 games of Chinchón.")),
    _c("chinchon", DAILY, "minus_ten", 1, 50, 25,
       gettext_noop("Menos diez"), gettext_noop("Close a hand with all seven cards melded.")),
    _c("chinchon", DAILY, "cards_discarded", 40, 40, 20,
       gettext_noop("Busy hands"), gettext_noop("Discard 40 cards in Chinchón.")),
    _c("chinchon", DAILY, "hands_finished", 15, 40, 20,
       gettext_noop("Long night"), gettext_noop("Finish 15 hands of Chinchón.")),
    # Chinchón, weekly
    _c("chinchon", WEEKLY, "wins", 7, 200, 100,
       gettext_noop("Week of wins"), gettext_noop("Win 7 games of Chinchón this week.")),
    _c("chinchon", WEEKLY, "minus_ten", 5, 200, 100,
       gettext_noop("All melded"), gettext_noop("Close with menos diez 5 times this week.")),
    _c("chinchon", WEEKLY, "chinchon", 1, 300, 150,
       gettext_noop("¡Chinchón!"), gettext_noop("Close with a seven-card run without a wild.")),
    _c("chinchon", WEEKLY, "games", 15, 150, 75,
       gettext_noop("Regular"), gettext_noop("Play 15 games of Chinchón this week.")),
    # Chinchirorin, daily
    _c("chinchirorin", DAILY, "games", 3, 40, 20,
       gettext_noop("Three bowls"), gettext_noop("Play 3 games of Chinchirorin.")),
    _c("chinchirorin", DAILY, "wins", 2, 60, 30,
       gettext_noop("Lucky streak"), gettext_noop("Win 2 games of Chinchirorin.")),
    _c("chinchirorin", DAILY, "hands_finished", 30, 40, 20,
       gettext_noop("Rattle the dice"), gettext_noop("Play 30 hands of Chinchirorin.")),
    _c("chinchirorin", DAILY, "arashi", 1, 60, 30,
       gettext_noop("Storm"), gettext_noop("Roll an arashi (three of a kind).")),
    _c("chinchirorin", DAILY, "shigoro", 1, 50, 25, gettext_noop("Shigoro"), gettext_noop("Roll 4-5-6.")),
    # Chinchirorin, weekly
    _c("chinchirorin", WEEKLY, "pinzoro", 1, 300, 150,
       gettext_noop("Pinzoro!"), gettext_noop("Roll a pinzoro (1-1-1).")),
    _c("chinchirorin", WEEKLY, "wins", 7, 200, 100,
       gettext_noop("Week of luck"), gettext_noop("Win 7 games of Chinchirorin this week.")),
    _c("chinchirorin", WEEKLY, "games", 15, 150, 75,
       gettext_noop("Regular"), gettext_noop("Play 15 games of Chinchirorin this week.")),
)
BY_ID: dict[str, Challenge] = {c.id: c for c in CATALOGUE}
GAMES = ("chinchirorin", "chinchon")


@dataclass(frozen=True)
class Period:
    """A challenge period: ``kind`` daily/weekly, ``key`` (``2026-12-01`` / ``2026-W49``), ``start`` and
    ``end`` (UTC, end excluded)."""

    kind: str
    key: str
    start: datetime
    end: datetime


def period_of(kind: str, now: datetime) -> Period:
    """The daily or weekly period holding ``now`` (an aware datetime)."""
    now = now.astimezone(UTC)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if kind == DAILY:
        return Period(DAILY, day.date().isoformat(), day, day + timedelta(days=1))
    monday = day - timedelta(days=day.weekday())
    year, week, _ = monday.isocalendar()
    return Period(WEEKLY, f"{year}-W{week:02d}", monday, monday + timedelta(days=7))


def _rank(period_key: str, challenge_id: str) -> str:
    return hashlib.sha256(f"{period_key}|{challenge_id}".encode()).hexdigest()


def active(now: datetime) -> list[tuple[Challenge, Period]]:
    """The challenges active at ``now``: per game (catalogue order of games), its daily picks then its weekly
    picks, each with its period (see the module docstring)."""
    out = []
    for game in GAMES:
        for kind, pick in ((DAILY, DAILY_PICK), (WEEKLY, WEEKLY_PICK)):
            period = period_of(kind, now)
            pool = [c for c in CATALOGUE if c.game == game and c.period == kind]
            chosen = sorted(pool, key=lambda c: _rank(period.key, c.id))[:pick]
            out += [(c, period) for c in sorted(chosen, key=pool.index)]
    return out
