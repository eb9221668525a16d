"""Models whose every change django-auditlog records by itself (the admin edits them through forms):
users' roles and standing fields, groups and their permissions. Moderation actions on other models write
their rows through :func:`config.audit.audit_record`."""

from auditlog.registry import auditlog
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

USER_FIELDS = ["username", "display_name", "email", "is_active", "is_staff", "is_superuser", "is_guest"]


def register_models() -> None:
    """Register the models above (idempotent)."""
    user = get_user_model()
    if not auditlog.contains(user):
        auditlog.register(user, include_fields=USER_FIELDS, m2m_fields={"groups", "user_permissions"})
    if not auditlog.contains(Group):
        auditlog.register(Group, m2m_fields={"permissions"})
