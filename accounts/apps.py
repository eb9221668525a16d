from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Accounts app: users, tokens, standing and sanctions."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self):
        from auditlog.registry import auditlog

        from accounts.models import IpBlock, Sanction

        # Every change to a sanction or a block, wherever it is made (services, admin, shell), is logged
        # by django-auditlog with its actor; the rows themselves are the domain record.
        auditlog.register(Sanction)
        auditlog.register(IpBlock)
