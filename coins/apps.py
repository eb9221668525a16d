"""Coins app config."""
from django.apps import AppConfig


class CoinsConfig(AppConfig):
    """Coins app; :meth:`ready` connects the receivers (a wallet for every new user)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "coins"
    verbose_name = "Coins"

    def ready(self) -> None:
        from coins import receivers

        receivers.connect()
