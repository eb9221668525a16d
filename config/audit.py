"""The audit trail: every moderation action writes one row of django-auditlog's ``LogEntry`` (the admin's
"Audit log entries"), beside the rows auditlog writes by itself for the models registered with it.

A row written here has ``action`` update (or create / delete), ``actor`` (the moderator; null for the
system), ``object_repr`` and the target's content type and id, ``changes`` ``{field: [before, after]}`` and
``additional_data`` ``{"action": "<what>", "reason": "<why>", ...}`` (``until`` and other details when
given).
"""

from __future__ import annotations

from typing import Any

from auditlog.models import LogEntry
from django.contrib.auth import get_user_model


def audit_record(*, actor, action: str, target, reason: str = "", changes: dict | None = None,
                 kind: str = "update", **data: Any):
    """Write one audit row for ``action`` (``"chat_hide"``, ``"room_close"``, ``"seat_kick"``,
    ``"game_abort"``, ``"rating_adjust"``, ``"report_resolve"``...) done by ``actor`` (a user or None) to
    ``target`` (a saved model instance). ``changes``: ``{field: [before, after]}`` (values made strings);
    ``kind``: ``create`` / ``update`` / ``delete``; ``data``: more JSON details (``until``, ``amount``...).
    Returns the ``LogEntry``. Call inside the transaction that makes the change, so both commit or neither.
    """
    flag = {"create": LogEntry.Action.CREATE, "update": LogEntry.Action.UPDATE,
            "delete": LogEntry.Action.DELETE}[kind]
    user = actor if isinstance(actor, get_user_model()) and actor.pk else None
    extra = {"action": action, "reason": reason, **{k: _jsonable(v) for k, v in data.items()}}
    return LogEntry.objects.log_create(
        target, force_log=True, action=flag, actor=user, actor_email=getattr(user, "email", None) or None,
        changes={k: [_text(a), _text(b)] for k, (a, b) in (changes or {}).items()},
        additional_data=extra,
    )


def _text(value: Any) -> str:
    return "None" if value is None else str(value)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)
