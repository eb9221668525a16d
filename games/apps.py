from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games app: the Django layer around the pure engines."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
