"""Read-only queries of ratings."""

from ranking.models import START_RATING, Rating

GAMES = ("chinchirorin", "chinchon")


def ratings_for_user(user) -> dict[str, dict[str, int]]:
    """``{"chinchirorin": {"rating": int, "games": int}, "chinchon": {...}}``; unrated games show 1500/0."""
    out = {g: {"rating": START_RATING, "games": 0} for g in GAMES}
    for r in Rating.objects.filter(user=user).only("game", "rating", "games"):
        out[r.game] = {"rating": r.rating, "games": r.games}
    return out
