"""Models whose changes django-auditlog records by itself (the admin edits them through forms): users'
roles and standing fields, groups and their permissions. Moderation actions on other models write their
rows through :func:`config.audit.audit_record`.

A user's *creation* is not logged: players make guests and accounts all day, and the trail is for what
staff change (an account's later changes, and its deletion, are logged).
"""

from auditlog.receivers import log_create
from auditlog.registry import auditlog
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models.signals import post_save

USER_FIELDS = ["username", "display_name", "email", "is_active", "is_staff", "is_superuser", "is_guest"]


def register_models() -> None:
    """Register the models above (idempotent)."""
    user = get_user_model()
    if not auditlog.contains(user):
        auditlog.register(user, include_fields=USER_FIELDS, m2m_fields={"groups", "user_permissions"})
        post_save.disconnect(log_create, sender=user, dispatch_uid=auditlog._dispatch_uid(post_save, log_create))
    if not auditlog.contains(Group):
        auditlog.register(Group, m2m_fields={"permissions"})
