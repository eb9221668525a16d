"""Every row of the audit trail (django-auditlog's ``LogEntry``: moderation actions written through
``config.audit.audit_record``, sanctions, and the staff's changes auditlog records by itself) is also one
log line once its transaction commits: logger ``chinchi.moderation``, INFO,
"moderation action <action> by <actor> on <target>", and under ``LOG_FORMAT=json`` the fields

- ``actor``: the moderator's user id, or ``"system"``;
- ``action``: the audit row's own (``"chat_hide"``, ``"room_close"``, ``"report_resolve"``...), else
  ``"<model>_<create|update|delete>"`` (``"sanction_create"``, ``"user_update"``);
- ``target``: ``"<app_label>.<model>:<pk>"``.

No reason, note, name or other text a person wrote reaches the log (the admin's audit log has them).
"""

import logging

from auditlog.models import LogEntry
from django.db import transaction
from django.db.models.signals import post_save

logger = logging.getLogger("chinchi.moderation")

_ACTIONS = {LogEntry.Action.CREATE: "create", LogEntry.Action.UPDATE: "update", LogEntry.Action.DELETE: "delete"}


def action_fields(entry: LogEntry) -> dict:
    """``{"actor", "action", "target"}`` of an audit row (the module docstring)."""
    model = entry.content_type.model if entry.content_type_id else "object"
    label = f"{entry.content_type.app_label}.{model}" if entry.content_type_id else "unknown"
    data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
    action = data.get("action") if isinstance(data.get("action"), str) else None
    return {"actor": entry.actor_id if entry.actor_id is not None else "system",
            "action": action or f"{model}_{_ACTIONS.get(entry.action, 'change')}",
            "target": f"{label}:{entry.object_pk}"}


def _log_on_commit(sender, instance: LogEntry, created: bool, **_kwargs) -> None:
    if not created:
        return
    fields = action_fields(instance)
    transaction.on_commit(lambda: logger.info("moderation action %s by %s on %s", fields["action"],
                                              fields["actor"], fields["target"], extra=fields))


def connect() -> None:
    post_save.connect(_log_on_commit, sender=LogEntry, dispatch_uid="moderation.action_log")
