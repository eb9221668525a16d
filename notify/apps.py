"""Notify app config."""
from django.apps import AppConfig


class NotifyConfig(AppConfig):
    """Notify app: "your turn" and invitations on the user socket and by Web Push (docs/party.md);
    :meth:`ready` connects the receivers."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "notify"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from notify import receivers

        receivers.connect()
