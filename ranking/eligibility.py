"""What a finished game earns: the one rule behind the pot, challenges, XP and achievements (docs/economy.md).

Judged once per finished (not aborted) game from its own rows (seats, log, standing) and the players'
earlier verdicts, and stored as one :class:`~ranking.models.SeatCredit` per human seat; the pot
(:mod:`coins.pot`), XP, achievements (:func:`ranking.services.game_record`) and challenge progress
(:mod:`coins.selectors`) all read those rows, so they always agree.

Per human seat:

- **played**: the seat never quit (resigned, left, or was played for at the end), or it made at least
  :data:`MIN_DECISIONS` decisions of its own (actions ``by`` player other than ``resign``). An eliminated
  seat never quit: it played (seed 003: it keeps the XP earned before the elimination).
- **real opponents**: every CPU seat (it plays its whole game); a human opponent that played and is
  *established* (account at least :func:`established_days` old with at least :func:`established_games`
  counted games); a human opponent new to the site that played its whole game (never quit) counts only
  in the first :func:`new_opponent_daily` games a day of this seat that leaned on one (and only when no
  CPU or established opponent was there).
- **counts** (``played`` and at least one real opponent): the seat gets its game XP, its games count for
  challenges and achievements. **win_counts**: it counts and the seat is sole first.

The pot (:func:`pot_split`): a sharer whose game counts (a winner) gets its own coins back in its share;
any other seat's coins paid in (stake and re-entries) go to the winners only if it played, is a real
*established* opponent of every winner, and no winner already took :func:`pair_daily_paid` pots from it
in the last 24 hours; otherwise they are refunded to it when it played, and forfeited to no one when it quit early (it keeps
nothing and nobody can win it: quitting is not a free exit from a bad deal, and an alt's stake feeds no
one).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from games.models import Game, GameAction, GamePlayer
from ranking.models import SeatCredit

MIN_DECISIONS = 6
"""A seat that quit (resigned, left, timed out, played for) before this many decisions of its own did not
play: a ranked game is then not rated (README "Ratings: rated play needs play") and the seat earns nothing
(this module)."""

WINDOW = timedelta(hours=24)
"""The window of the daily limits (:func:`new_opponent_daily`, :func:`pair_daily_paid`)."""


def established_days() -> int:
    """Setting ``ECONOMY_ESTABLISHED_DAYS`` (default 7): the account age an opponent needs to be established."""
    return int(getattr(settings, "ECONOMY_ESTABLISHED_DAYS", 7))


def established_games() -> int:
    """Setting ``ECONOMY_ESTABLISHED_GAMES`` (default 20): the counted games an opponent needs to be established."""
    return int(getattr(settings, "ECONOMY_ESTABLISHED_GAMES", 20))


def new_opponent_daily() -> int:
    """Setting ``ECONOMY_NEW_OPPONENT_DAILY`` (default 3): games a day in which a seat may count a human
    opponent new to the site as a real opponent."""
    return int(getattr(settings, "ECONOMY_NEW_OPPONENT_DAILY", 3))


def pair_daily_paid() -> int:
    """Setting ``ECONOMY_PAIR_DAILY_PAID`` (default 3, as ranking's pair cap): pots a day one player may take
    from the stake of the same opponent."""
    return int(getattr(settings, "ECONOMY_PAIR_DAILY_PAID", 3))


@dataclass(frozen=True)
class SeatPlay:
    """A human seat's own play: ``decisions`` made (not counting ``resign``) and whether it ``quit``."""

    decisions: int
    quit: bool

    @property
    def played(self) -> bool:
        return not self.quit or self.decisions >= MIN_DECISIONS


def seat_play(game: Game, players: list[GamePlayer]) -> dict[int, SeatPlay]:
    """``{seat: SeatPlay}`` of the human seats in ``players`` from ``game``'s log and seat rows."""
    humans = {p.seat: p for p in players if not p.cpu and p.user_id is not None}
    made = dict.fromkeys(humans, 0)
    resigned: set[int] = set()
    rows = GameAction.objects.filter(game=game, seat__in=list(humans)).values_list("seat", "by", "action")
    for seat, by, action in rows:
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == "resign":
            resigned.add(seat)
        elif by == "player":
            made[seat] += 1
    return {s: SeatPlay(made[s], s in resigned or p.played_for) for s, p in humans.items()}


def _places(game: Game) -> dict[int, int]:
    out: dict[int, int] = {}
    result = game.result if isinstance(game.result, dict) else {}
    for row in result.get("standing") or []:
        try:
            seat, place = int(row["seat"]), int(row["place"])
        except (KeyError, TypeError, ValueError):
            continue
        if place >= 1:
            out[seat] = place
    return out


_LOCK_SPACE = zlib.crc32(b"ranking.eligibility") & 0x7FFFFFFF


def _lock_users(user_ids) -> None:
    """Serialise verdicts of games sharing a player (transaction-scoped advisory locks in user-id order), so
    the daily limits are read and used one game after the other. SQLite serialises writers itself."""
    if connection.vendor != "postgresql":
        return
    keys = [(_LOCK_SPACE << 32) | (uid & 0xFFFFFFFF) for uid in sorted(set(user_ids))]
    with connection.cursor() as cur:  # one statement, taking the locks in key order
        cur.execute("SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT k FROM unnest(%s::bigint[]) AS k "
                    "ORDER BY k) AS ordered", [keys])


def established(user_ids, *, now: datetime) -> dict[int, bool]:
    """``{user_id: bool}``: account at least :func:`established_days` old and at least
    :func:`established_games` counted games (its ``SeatCredit`` rows with ``counts``)."""
    old = now - timedelta(days=established_days())
    rows = (get_user_model().objects.filter(pk__in=list(user_ids))
            .annotate(n=Count("seat_credits", filter=Q(seat_credits__counts=True))).values_list("pk", "date_joined", "n"))
    return {pk: joined <= old and n >= established_games() for pk, joined, n in rows}


def game_credits(game: Game, *, now: datetime | None = None) -> dict[int, SeatCredit]:
    """``{seat: SeatCredit}`` of a finished, not aborted game (``{}`` otherwise), judged and stored on the
    first call (inside its own atomic block, or the caller's), read back on the next ones."""
    if game is None or game.status != Game.FINISHED:
        return {}
    result = game.result if isinstance(game.result, dict) else {}
    if result.get("reason") == "aborted":
        return {}
    stored = {c.seat: c for c in SeatCredit.objects.filter(game=game)}
    if stored:
        return stored
    players = list(GamePlayer.objects.filter(game=game).order_by("seat"))
    human_ids = sorted({p.user_id for p in players if not p.cpu and p.user_id is not None})
    if not human_ids:
        return {}
    now = now or timezone.now()
    with transaction.atomic():
        _lock_users(human_ids)
        stored = {c.seat: c for c in SeatCredit.objects.filter(game=game)}
        if stored:  # judged by another run while this one waited
            return stored
        rows = judge(game, players, now=now)
        SeatCredit.objects.bulk_create(rows)
    return {c.seat: c for c in SeatCredit.objects.filter(game=game)}


@dataclass
class _Seat:
    seat: int
    user_id: int
    play: SeatPlay
    credited: list[int] = field(default_factory=list)


def judge(game: Game, players: list[GamePlayer], *, now: datetime) -> list[SeatCredit]:
    """The unsaved ``SeatCredit`` rows of ``game`` (one per user: its first human seat), judged now."""
    plays = seat_play(game, players)
    seats: dict[int, _Seat] = {}
    for p in players:
        if p.seat in plays and all(s.user_id != p.user_id for s in seats.values()):
            seats[p.seat] = _Seat(p.seat, p.user_id, plays[p.seat])
    cpu = any(p.cpu for p in players)
    est = established([s.user_id for s in seats.values()], now=now)
    since = now - WINDOW
    used_today = {uid: 0 for uid in est}
    for uid in SeatCredit.objects.filter(user_id__in=list(est), created_at__gte=since,
                                         leaned_on_new=True).values_list("user_id", flat=True):
        used_today[uid] += 1
    places = _places(game)
    firsts = [s for s, p in places.items() if p == 1]
    out = []
    for me in seats.values():
        new_ones = []
        for other in seats.values():
            if other is me or not other.play.played:
                continue
            if est.get(other.user_id):
                me.credited.append(other.user_id)
            elif not other.play.quit:  # a new account counts only when it played its whole game
                new_ones.append(other.user_id)
        leaned = False
        if new_ones and me.play.played and not cpu and not me.credited and used_today[me.user_id] < new_opponent_daily():
            me.credited += new_ones
            leaned = True
        counts = me.play.played and (cpu or bool(me.credited))
        won = firsts == [me.seat]
        out.append(SeatCredit(
            game=game, user_id=me.user_id, seat=me.seat, decisions=me.play.decisions, quit=me.play.quit,
            played=me.play.played, counts=counts, win_counts=counts and won, established=est.get(me.user_id, False),
            cpu_opponent=cpu, credited=sorted(me.credited), leaned_on_new=leaned, created_at=now))
    return out


def pot_split(*, credits: dict[int, SeatCredit], paid: dict[int, int], sharers: list[int],
              paid_before: dict[tuple[int, int], int]) -> dict[str, dict[int, int]]:
    """How a finished game's pot goes, by seat (pure).

    ``credits``: the game's verdicts by seat; ``paid``: ``{seat: coins it paid in}`` (stake and re-entries);
    ``sharers``: the seats the engine placed first among the stakers, in seat order; ``paid_before``:
    ``{(winner user, payer user): pots the winner took from that payer in the last 24 h}``.
    Returns ``{"pot": {seat: coins}, "refund": {seat: coins}, "forfeit": {seat: coins}}`` (each seat's
    coins paid in land in exactly one of the pot shares, its refund or its forfeit).
    """
    winners = [s for s in sharers if s in credits and credits[s].counts]
    pool = 0
    refund: dict[int, int] = {}
    forfeit: dict[int, int] = {}
    for seat, coins in sorted(paid.items()):
        if coins <= 0:
            continue
        c = credits.get(seat)
        if seat in winners:  # a winner's own coins come back inside its share
            pool += coins
            continue
        if c is None or not c.played:
            forfeit[seat] = coins
            continue
        if seat in sharers:  # placed first too, but its game does not count: nobody wins its coins
            refund[seat] = coins
            continue
        winnable = bool(winners) and c.established and all(
            c.user_id in credits[w].credited and paid_before.get((credits[w].user_id, c.user_id), 0) < pair_daily_paid()
            for w in winners)
        if winnable:
            pool += coins
        else:
            refund[seat] = coins
    pot: dict[int, int] = {}
    if winners and pool:
        share, rest = divmod(pool, len(winners))
        for i, seat in enumerate(winners):
            if share + (1 if i < rest else 0):
                pot[seat] = share + (1 if i < rest else 0)
    return {"pot": pot, "refund": refund, "forfeit": forfeit}
