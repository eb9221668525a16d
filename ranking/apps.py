from django.apps import AppConfig


class RankingConfig(AppConfig):
    """Ranking app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ranking"
