"""Read-only queries of games (no locks)."""

from __future__ import annotations

from django.db.models import QuerySet

from games.events import log_entries
from games.models import Game, GameAction, GamePlayer

LOG_PAGE = 100


def game_get(*, game_id) -> Game | None:
    """The game with this id, or ``None`` (also for an id that is not an integer)."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
        return None
    return Game.objects.filter(pk=game_id).first()


def game_seat_of(*, game: Game, user) -> int | None:
    """``user``'s seat in ``game``, or ``None`` if not seated."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return GamePlayer.objects.filter(game=game, user=user, cpu=False).values_list("seat", flat=True).first()


def game_log(*, game: Game, user=None, seat: int | None = None, after: int = -1, limit: int = LOG_PAGE) -> dict:
    """A page of the events with ``seq > after`` that ``user``'s seat (or ``seat``) may see.

    ``{"events": [{seq, index, by?, type, ...}], "next_after": int, "more": bool}``: whole seqs only (a
    page never splits a seq; it ends after the seq that reaches ``limit`` events); ``next_after`` is the last
    seq read (pass it as ``after`` for the next page; ``after`` itself when nothing was read); ``more``:
    seqs remain after it.
    """
    if seat is None and user is not None:
        seat = game_seat_of(game=game, user=user)
    rows = []
    count = 0
    last = after
    more = False
    qs = GameAction.objects.filter(game=game, seq__gt=after).order_by("seq").values_list("seq", "by", "events")
    for seq, by, events in qs.iterator(chunk_size=200):
        if count >= limit:
            more = True
            break
        entries = log_entries([(seq, by, events)], seat)
        rows.extend(entries)
        count += len(entries)
        last = seq
    return {"events": rows, "next_after": last, "more": more}


def games_for_user(*, user, status: str | None = None) -> QuerySet[Game]:
    """The games ``user`` holds a seat in, newest first; optionally only those with ``status``."""
    qs = Game.objects.filter(players__user=user, players__cpu=False).distinct().order_by("-id")
    if status:
        qs = qs.filter(status=status)
    return qs


def game_for_group(*, group: str) -> Game | None:
    """The newest game of a live-delivery group (a room's current or last game)."""
    return Game.objects.filter(group=group).order_by("-id").first()
