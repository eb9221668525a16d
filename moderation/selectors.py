"""Reads for the moderators' pages."""

from __future__ import annotations

from django.db.models import Q

from accounts.traces import accounts_sharing
from games.models import Game, GamePlayer
from moderation.models import Report, UserNote
from ranking.models import Friendship, Rating, RatingChange
from rooms.models import ChatMessage, RoomKick, Seat

PAGE_ROWS = 20
"""Rows per list on a user's page (newest first)."""


def user_overview(user) -> dict:
    """Everything a moderator reads on a user's page, newest first, ``PAGE_ROWS`` rows a list:
    ``games_playing`` / ``games_recent`` (Game rows with ``seat``), ``rooms`` (with ``seat``), ``chat``,
    ``reports_made``, ``reports_received``, ``ratings``, ``rating_history``
    (``{game_name: [RatingChange]}``), ``friends`` (users), ``kicks`` (RoomKick), ``sharing`` (other
    accounts seen from the same address or device, ``accounts.traces.accounts_sharing``), ``notes``
    (moderators' notes, :class:`~moderation.models.UserNote`)."""
    seats = {gp.game_id: gp.seat for gp in GamePlayer.objects.filter(user=user, cpu=False).only("game_id", "seat")}
    games = Game.objects.filter(pk__in=list(seats)).defer("state", "rules").order_by("-id")
    playing = list(games.filter(status=Game.PLAYING)[:PAGE_ROWS])
    recent = list(games.exclude(status=Game.PLAYING)[:PAGE_ROWS])
    for game in playing + recent:
        game.seat = seats.get(game.pk)
    rooms = []
    for seat in Seat.objects.filter(user=user).select_related("room").order_by("-room_id")[:PAGE_ROWS]:
        seat.room.seat = seat.index
        rooms.append(seat.room)
    history: dict[str, list] = {}
    for change in RatingChange.objects.filter(user=user).select_related("adjusted_by").order_by("-id")[:200]:
        history.setdefault(change.game_name, []).append(change)
    friend_ids = [low if high == user.pk else high for low, high in Friendship.objects.filter(
        Q(user_low=user) | Q(user_high=user)).values_list("user_low_id", "user_high_id")]
    return {
        "games_playing": playing,
        "games_recent": recent,
        "rooms": rooms,
        "chat": list(ChatMessage.objects.filter(user=user).select_related("room").order_by("-id")[:PAGE_ROWS]),
        "reports_made": list(Report.objects.filter(reporter=user).order_by("-id")[:PAGE_ROWS]),
        "reports_received": list(Report.objects.filter(reported_user=user).select_related("reporter")
                                 .order_by("-id")[:PAGE_ROWS]),
        "ratings": list(Rating.objects.filter(user=user).order_by("game")),
        "rating_history": history,
        "friends": list(type(user).objects.filter(pk__in=friend_ids).order_by("display_name")[:100]),
        "kicks": list(RoomKick.objects.filter(user=user).select_related("room", "by")[:PAGE_ROWS]),
        "sharing": accounts_sharing(user)[:PAGE_ROWS],
        "notes": list(UserNote.objects.filter(user=user).select_related("by")[:PAGE_ROWS]),
    }
