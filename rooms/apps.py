from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """Rooms app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"
