"""Read-only queries of ranking: ratings, friends, the queue, the leaderboard, statistics."""

from __future__ import annotations

from django.db.models import F, Q, QuerySet, Window
from django.db.models.functions import Rank
from django.utils import timezone

from games.engine.registry import GAMES
from ranking.models import START_RATING, FriendRequest, Friendship, QueueEntry, Rating


def ratings_for_user(user) -> dict[str, dict[str, int]]:
    """``{"chinchirorin": {"rating": int, "games": int}, "chinchon": {...}}``; unrated games show 1500/0."""
    out = {g: {"rating": START_RATING, "games": 0} for g in GAMES}
    for r in Rating.objects.filter(user=user).only("game", "rating", "games"):
        out[r.game] = {"rating": r.rating, "games": r.games}
    return out


def player_of(user) -> dict:
    """``player``: ``{id, display_name}``."""
    return {"id": user.id, "display_name": user.display_name}


# -------------------------------------------------------------------------------------------------- friends
def friend_ids(user_id: int) -> set[int]:
    """Ids of the user's friends."""
    out: set[int] = set()
    for low, high in Friendship.objects.filter(Q(user_low_id=user_id) | Q(user_high_id=user_id)).values_list(
        "user_low_id", "user_high_id"
    ):
        out.add(high if low == user_id else low)
    return out


def are_friends(a_id: int, b_id: int) -> bool:
    """Whether two users are friends."""
    low, high = sorted((a_id, b_id))
    return Friendship.objects.filter(user_low_id=low, user_high_id=high).exists()


def friends_for_user(user) -> dict:
    """``GET /api/friends``: ``{"friends": [{player, since, source}], "incoming": [{player, at}],
    "outgoing": [{player, at}]}``; friends by display name, requests newest first."""
    rows = Friendship.objects.filter(Q(user_low=user) | Q(user_high=user)).select_related("user_low", "user_high")
    friends = []
    for f in rows:
        other = f.user_high if f.user_low_id == user.id else f.user_low
        friends.append({"player": player_of(other), "since": f.created_at, "source": f.source})
    friends.sort(key=lambda x: (x["player"]["display_name"].lower(), x["player"]["id"]))
    incoming = [{"player": player_of(r.from_user), "at": r.created_at}
                for r in FriendRequest.objects.filter(to_user=user).select_related("from_user").order_by("-id")]
    outgoing = [{"player": player_of(r.to_user), "at": r.created_at}
                for r in FriendRequest.objects.filter(from_user=user).select_related("to_user").order_by("-id")]
    return {"friends": friends, "incoming": incoming, "outgoing": outgoing}


# ---------------------------------------------------------------------------------------------------- queue
def queue_status(user, *, now=None) -> dict:
    """``GET /api/queue``: ``{"status": "none"|"waiting"|"matched"|"expired", "game", "seats", "room",
    "queued_at", "expires_at"}`` (``room``: the room code once matched, else null)."""
    now = now or timezone.now()
    entry = QueueEntry.objects.filter(user=user).first()
    if entry is None:
        return {"status": "none", "game": None, "seats": None, "room": None, "queued_at": None,
                "expires_at": None}
    status = entry.status
    if status == QueueEntry.Status.WAITING and entry.expires_at <= now:
        status = "expired"
    return {"status": status, "game": entry.game, "seats": entry.seats, "room": entry.room_code or None,
            "queued_at": entry.created_at, "expires_at": entry.expires_at}


# ---------------------------------------------------------------------------------------------- leaderboard
def leaderboard(*, game: str, scope: str = "all", user=None) -> QuerySet:
    """Ratings of ``game`` of active users with at least one rated game, best first, annotated with
    ``rank`` (competition ranking: ties share a rank, 1, 1, 3). ``scope="friends"``: only ``user`` and
    its friends (ranks among them)."""
    qs = Rating.objects.filter(game=game, games__gte=1, user__is_active=True)
    if scope == "friends" and user is not None:
        qs = qs.filter(user_id__in=friend_ids(user.id) | {user.id})
    return (
        qs.select_related("user")
        .annotate(rank=Window(expression=Rank(), order_by=F("rating").desc()))
        .order_by("-rating", "user_id")
    )


# ---------------------------------------------------------------------------------------------- statistics
COUNTERS = {
    "chinchirorin": ("pinzoro", "arashi", "shigoro", "hifumi", "hands_finished"),
    "chinchon": ("minus_ten", "chinchon", "hands_finished", "cards_discarded"),
}


def user_stats(user) -> dict:
    """``GET /api/users/{id}/stats``::

        {"player": {id, display_name}, "games", "wins", "draws", "losses",
         "xp", "level", "level_xp", "next_level_xp",
         "per_game": {"chinchirorin": {"games", "wins", "draws", "losses", "rating", "rated_games",
                                       "pinzoro", "arashi", "shigoro", "hifumi", "hands_finished"},
                      "chinchon": {..., "minus_ten", "chinchon", "hands_finished", "cards_discarded"}},
         "rating_history": {"chinchirorin": [{game_id, at, before, after, change}], "chinchon": [...]}}

    Counts cover every finished (not aborted) game the user played a human seat in, ranked or not;
    ``rated_games`` and the history only rated ones (oldest first). ``level_xp``/``next_level_xp``: total
    XP at which the current / next level starts.
    """
    from django.db.models import Count, Sum

    from ranking.achievements import level_for, level_xp
    from ranking.models import GameRecord, RatingChange

    ratings = ratings_for_user(user)
    per_game: dict[str, dict] = {}
    totals = {"games": 0, "wins": 0, "draws": 0, "losses": 0, "xp": 0}
    for game in GAMES:
        qs = GameRecord.objects.filter(user=user, game_name=game)
        agg = qs.aggregate(
            games=Count("id"), wins=Count("id", filter=Q(outcome="win")), draws=Count("id", filter=Q(outcome="draw")),
            losses=Count("id", filter=Q(outcome="loss")), xp=Sum("xp"),
            **{c: Sum(c) for c in COUNTERS[game]},
        )
        row = {k: agg[k] or 0 for k in ("games", "wins", "draws", "losses")}
        row["rating"] = ratings[game]["rating"]
        row["rated_games"] = ratings[game]["games"]
        row.update({c: agg[c] or 0 for c in COUNTERS[game]})
        per_game[game] = row
        for k in totals:
            totals[k] += agg[k] or 0
    history: dict[str, list] = {g: [] for g in GAMES}
    for c in RatingChange.objects.filter(user=user).order_by("id"):
        history.setdefault(c.game_name, []).append(
            {"game_id": c.game_id, "at": c.created_at, "before": c.before, "after": c.after, "change": c.change})
    level = level_for(totals["xp"])
    return {"player": player_of(user), **totals, "level": level, "level_xp": level_xp(level),
            "next_level_xp": level_xp(level + 1), "per_game": per_game, "rating_history": history}


def user_achievements(user) -> list[dict]:
    """``GET /api/users/{id}/achievements``: ``[{id, name, description, awarded_at, game_id}]``, in the
    order they were awarded (entries no longer in the catalogue are skipped)."""
    from ranking.achievements import BY_ID
    from ranking.models import AchievementAward

    out = []
    for award in AchievementAward.objects.filter(user=user).order_by("awarded_at", "id"):
        ach = BY_ID.get(award.achievement)
        if ach is not None:
            out.append({**ach.as_dict(), "awarded_at": award.awarded_at, "game_id": award.game_id})
    return out
