"""Coins app config."""
from django.apps import AppConfig


class CoinsConfig(AppConfig):
    """Coins app; :meth:`ready` connects the receivers (a wallet for every new user) and registers the coin
    hooks of the games write path (:mod:`games.hooks`: stakes, re-entries, pots, refunds)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "coins"
    verbose_name = "Coins"

    def ready(self) -> None:
        from coins import game_coins, metrics, receivers

        receivers.connect()
        game_coins.register()
        metrics.register()
