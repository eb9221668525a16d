"""Tournaments: an organiser's evening of rounds among invited players (docs/tournaments.md)."""
from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Tournaments app; :meth:`ready` connects to ``games.signals.game_finished``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from tournaments import receivers

        receivers.connect()
