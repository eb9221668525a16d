"""Rooms: where friends gather, share a code, chat and play."""
from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """Rooms app; :meth:`ready` connects to ``games.signals.game_finishing``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"

    def ready(self):
        from rooms import receivers

        receivers.connect()
