"""The moderation app: the admin site moderators use (dashboard at its front page), player reports,
ranked-play integrity flags and the "Moderators" group. (``moderation.admin_config.ChinchiAdminConfig``
replaces ``django.contrib.admin`` in ``INSTALLED_APPS``.)"""

from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = "Moderation"

    def ready(self) -> None:
        from moderation import action_log, audit_registry, metrics, receivers

        audit_registry.register_models()
        receivers.connect()
        action_log.connect()
        metrics.register()
