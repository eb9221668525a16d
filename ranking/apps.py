"""Ranking: Elo-style ratings per game, ranked play among friends, leaderboards, statistics."""
from django.apps import AppConfig


class RankingConfig(AppConfig):
    """Ranking app; :meth:`ready` connects the receivers (game finished, room joined, user out)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ranking"

    def ready(self) -> None:
        from ranking import receivers

        receivers.connect()
