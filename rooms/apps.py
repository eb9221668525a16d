"""Rooms: where friends gather, share a code, chat and play."""
from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """Rooms app; :meth:`ready` connects the receivers (game finishing, user out) and answers
    games' question of who may watch a game (``games.hooks.watch``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"

    def ready(self):
        from rooms import receivers

        receivers.connect()
        receivers.register_hooks()
