"""Read-only queries of ranking: ratings, friends, the queue, the leaderboard, statistics."""

from __future__ import annotations

from datetime import UTC, timedelta

from django.contrib.auth import get_user_model
from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, Rank
from django.utils import timezone

from accounts.presence import online_ids
from games.engine.registry import GAMES
from ranking.achievements import BY_ID, CATALOGUE, level_for, level_xp
from ranking.models import (
    START_RATING,
    AchievementAward,
    FriendRequest,
    Friendship,
    GameRecord,
    QueueEntry,
    Rating,
    RatingChange,
    XpGrant,
)


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
    """``GET /api/friends``: ``{"friends": [{player, since, source, online}], "incoming": [{player, at}],
    "outgoing": [{player, at}]}``; friends by display name, requests newest first. ``online``: the friend
    has a user socket open (``accounts.presence``)."""
    rows = Friendship.objects.filter(Q(user_low=user) | Q(user_high=user)).select_related("user_low", "user_high")
    others = [f.user_high if f.user_low_id == user.id else f.user_low for f in rows]
    online = online_ids(o.pk for o in others)
    friends = [{"player": player_of(other), "since": f.created_at, "source": f.source, "online": other.pk in online}
               for f, other in zip(rows, others, strict=True)]
    friends.sort(key=lambda x: (x["player"]["display_name"].lower(), x["player"]["id"]))
    incoming = [{"player": player_of(r.from_user), "at": r.created_at}
                for r in FriendRequest.objects.filter(to_user=user).select_related("from_user").order_by("-id")]
    outgoing = [{"player": player_of(r.to_user), "at": r.created_at}
                for r in FriendRequest.objects.filter(from_user=user).select_related("to_user").order_by("-id")]
    return {"friends": friends, "incoming": incoming, "outgoing": outgoing}


USER_SEARCH_LIMIT = 20


def users_search(*, text: str, user) -> list:
    """``GET /api/users?search=``: up to 20 active users other than ``user`` whose display name contains
    ``text``, or (registered users) whose username does, case-insensitive; an exact username or display
    name first, then names starting with ``text``, then the rest, each by display name."""
    text = text.strip()
    match = Q(display_name__icontains=text) | Q(username__icontains=text, is_guest=False)
    order = Case(
        When(Q(username__iexact=text, is_guest=False) | Q(display_name__iexact=text), then=Value(0)),
        When(Q(display_name__istartswith=text) | Q(username__istartswith=text, is_guest=False), then=Value(1)),
        default=Value(2), output_field=IntegerField())
    return list(get_user_model().objects.filter(match, is_active=True).exclude(pk=user.pk)
                .annotate(_order=order).order_by("_order", "display_name", "pk")[:USER_SEARCH_LIMIT])


# ---------------------------------------------------------------------------------------------------- queue
def queue_status(user, *, now=None) -> dict:
    """``GET /api/queue``: ``{"status": "none"|"waiting"|"matched"|"expired", "game", "seats", "preset",
    "style", "room", "queued_at", "expires_at"}`` (``preset``/``style``: asked for, else null; ``room``:
    the room code once matched, else null)."""
    now = now or timezone.now()
    entry = QueueEntry.objects.filter(user=user).first()
    if entry is None:
        return {"status": "none", "game": None, "seats": None, "preset": None, "style": None, "room": None,
                "queued_at": None, "expires_at": None}
    status = entry.status
    if status == QueueEntry.Status.WAITING and entry.expires_at <= now:
        status = "expired"
    return {"status": status, "game": entry.game, "seats": entry.seats, "preset": entry.preset or None,
            "style": entry.style or None, "room": entry.room_code or None, "queued_at": entry.created_at,
            "expires_at": entry.expires_at}


# ---------------------------------------------------------------------------------------------- leaderboard
def week_start(now=None):
    """The start of the current week: Monday 00:00 UTC (the "this week" of the leaderboards)."""
    now = now or timezone.now()
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def leaderboard(*, game: str, scope: str = "all", period: str = "all", user=None) -> QuerySet:
    """Ratings of ``game`` of active users with at least one rated game, best first, annotated with
    ``rank`` (competition ranking: ties share a rank, 1, 1, 3) and ``period_games``. ``scope="friends"``:
    only ``user`` and its friends (ranks among them). ``period="week"``: only players with a rated game of
    ``game`` since :func:`week_start`, ``period_games`` counting those (else every rated game)."""
    qs = Rating.objects.filter(game=game, games__gte=1, user__is_active=True)
    if scope == "friends" and user is not None:
        qs = qs.filter(user_id__in=friend_ids(user.id) | {user.id})
    if period == "week":
        week = (RatingChange.objects.filter(user=OuterRef("user_id"), game_name=game, created_at__gte=week_start())
                .order_by().values("user").annotate(n=Count("id")).values("n")[:1])
        qs = qs.annotate(period_games=Coalesce(Subquery(week), 0)).filter(period_games__gt=0)
    else:
        qs = qs.annotate(period_games=F("games"))
    return (
        qs.select_related("user")
        .annotate(rank=Window(expression=Rank(), order_by=F("rating").desc()))
        .order_by("-rating", "user_id")
    )


def _xp_sum(model, amount: str, at: str, since) -> Coalesce:
    rows = model.objects.filter(user=OuterRef("pk"))
    if since is not None:
        rows = rows.filter(**{f"{at}__gte": since})
    return Coalesce(Subquery(rows.order_by().values("user").annotate(s=Sum(amount)).values("s")[:1]), 0)


def xp_leaderboard(*, scope: str = "all", period: str = "all", user=None) -> QuerySet:
    """Active users (guests included) by XP — game XP (``GameRecord.xp``) plus grants (``XpGrant``) — most
    first, with some XP in the period; annotated ``xp`` (in the period: all time, or since
    :func:`week_start` for ``period="week"``), ``total_xp`` (all time, for the level) and ``rank``
    (competition ranking). ``scope="friends"``: ``user`` and its friends only."""
    qs = get_user_model().objects.filter(is_active=True)
    if scope == "friends" and user is not None:
        qs = qs.filter(pk__in=friend_ids(user.id) | {user.id})
    total = _xp_sum(GameRecord, "xp", "finished_at", None) + _xp_sum(XpGrant, "amount", "created_at", None)
    qs = qs.annotate(total_xp=total)
    if period == "week":
        since = week_start()
        qs = qs.annotate(xp=_xp_sum(GameRecord, "xp", "finished_at", since)
                         + _xp_sum(XpGrant, "amount", "created_at", since))
    else:
        qs = qs.annotate(xp=F("total_xp"))
    return (qs.filter(xp__gt=0).annotate(rank=Window(expression=Rank(), order_by=F("xp").desc()))
            .order_by("-xp", "pk"))


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
         "rating_history": {"chinchirorin": [{game_id, at, before, after, change, reason}], "chinchon": [...]}}

    Counts cover every finished (not aborted) game the user played a human seat in, ranked or not;
    ``rated_games`` and the history only rated ones (oldest first), with moderators' adjustments among
    them (``game_id`` null, ``reason`` given; a game's row has ``reason`` ""). ``level_xp``/``next_level_xp``: total
    XP at which the current / next level starts.
    """
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
            {"game_id": c.game_id, "at": c.created_at, "before": c.before, "after": c.after, "change": c.change,
             "reason": c.reason})
    totals["xp"] += grants_xp(user.id)
    level = level_for(totals["xp"])
    return {"player": player_of(user), **totals, "level": level, "level_xp": level_xp(level),
            "next_level_xp": level_xp(level + 1), "per_game": per_game, "rating_history": history}


def grants_xp(user_id: int) -> int:
    """The XP granted to a user outside games (``XpGrant``: achievements, challenges)."""
    return XpGrant.objects.filter(user_id=user_id).aggregate(s=Sum("amount"))["s"] or 0


def user_totals(user) -> dict[str, int]:
    """What achievements' progress counts, over every finished game of the user: ``games``, ``wins``,
    ``rated_games``, ``rated_wins``, ``best_rating`` (the highest rating reached, 1500 without a rated
    game), ``pinzoro``, ``arashi``, ``shigoro``, ``minus_ten``, ``chinchon``. Two queries."""
    agg = GameRecord.objects.filter(user=user).aggregate(
        games=Count("id"), wins=Count("id", filter=Q(outcome="win")),
        rated_games=Count("id", filter=Q(rated=True)), rated_wins=Count("id", filter=Q(rated=True, outcome="win")),
        **{c: Sum(c) for c in ("pinzoro", "arashi", "shigoro", "minus_ten", "chinchon")},
    )
    out = {k: v or 0 for k, v in agg.items()}
    best = RatingChange.objects.filter(user=user).aggregate(m=Max("after"))["m"]
    out["best_rating"] = max(best or START_RATING, START_RATING)
    return out


def achievement_catalogue() -> list[dict]:
    """``GET /api/achievements``: ``[{id, name, description, xp, target}]`` in catalogue order, texts in
    the active language (``description`` is the condition in words; ``target``: what progress counts to)."""
    return [{**a.as_dict(), "xp": a.xp, "target": a.target} for a in CATALOGUE]


def user_achievement_progress(user) -> list[dict]:
    """``GET /api/users/{id}/achievements/progress``: every catalogue entry with the user's ``progress``
    toward its ``target`` (``min(count, target)``; ``target`` once earned), ``earned``, and the award's
    ``awarded_at`` and ``game_id`` (null while locked)."""
    totals = user_totals(user)
    awards = {a.achievement: a for a in AchievementAward.objects.filter(user=user)}
    out = []
    for a, row in zip(CATALOGUE, achievement_catalogue(), strict=True):
        award = awards.get(a.id)
        count = totals.get(a.counter, 0) if a.counter else 0
        progress = a.target if award is not None else min(count, a.target)
        out.append({**row, "progress": progress, "earned": award is not None,
                    "awarded_at": award.awarded_at if award else None, "game_id": award.game_id if award else None})
    return out


def user_achievements(user) -> list[dict]:
    """``GET /api/users/{id}/achievements``: ``[{id, name, description, awarded_at, game_id}]``, in the
    order they were awarded (entries no longer in the catalogue are skipped)."""
    out = []
    for award in AchievementAward.objects.filter(user=user).order_by("awarded_at", "id"):
        ach = BY_ID.get(award.achievement)
        if ach is not None:
            out.append({**ach.as_dict(), "awarded_at": award.awarded_at, "game_id": award.game_id})
    return out
