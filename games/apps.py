from django.apps import AppConfig

from config import sources


class GamesConfig(AppConfig):
    """Games app: the Django layer around the pure engines. :meth:`ready` provides config's health check
    and metrics with the games' readers (:mod:`config.sources`: the sweeper's heartbeat, games playing)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from games import selectors

        sources.provide("sweep_heartbeat_at", selectors.sweep_heartbeat_at)
        sources.provide("games_in_progress", selectors.games_in_progress)
