"""The audit trail's admin pages (django-auditlog's ``LogEntry``): each row's action and reason as
columns (``additional_data["action"]`` / ``["reason"]``, written by :func:`config.audit.audit_record` and
by the models' ``get_additional_data``), filtered by actor and by action."""

from auditlog.admin import LogEntryAdmin as BaseLogEntryAdmin
from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models.fields.json import KT
from django.utils.html import format_html_join


class ActorFilter(admin.SimpleListFilter):
    """Rows of one actor: every user who appears as an actor, and "system" (no actor)."""

    title = "actor"
    parameter_name = "actor"

    def lookups(self, request, model_admin):
        ids = LogEntry.objects.exclude(actor=None).values_list("actor_id", flat=True).distinct()
        users = get_user_model().objects.filter(pk__in=ids).order_by("username")
        return [("system", "system")] + [(str(u.pk), u.username) for u in users]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if value == "system":
            return queryset.filter(actor=None)
        return queryset.filter(actor_id=int(value)) if value.isdigit() else queryset.none()


class ActionFilter(admin.SimpleListFilter):
    """Rows of one moderation action (``ban``, ``coin_adjust``, ``chat_hide``...)."""

    title = "moderation action"
    parameter_name = "what"

    def lookups(self, request, model_admin):
        values = (LogEntry.objects.annotate(what=KT("additional_data__action")).exclude(what=None)
                  .values_list("what", flat=True).distinct().order_by("what"))
        return [(v, v) for v in values if v]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset if value is None else queryset.filter(additional_data__action=value)


admin.site.unregister(LogEntry)


@admin.register(LogEntry)
class AuditEntryAdmin(BaseLogEntryAdmin):
    """The audit trail: when, who, what (the moderation action), on what, why, and the field changes."""

    list_display = ["created", "user_url", "what", "resource_url", "reason", "msg_short"]
    list_filter = [ActionFilter, ActorFilter, "action"]
    search_fields = [*BaseLogEntryAdmin.search_fields, "additional_data"]
    readonly_fields = ["created", "resource_url", "action", "user_url", "what", "reason", "details", "msg"]
    fieldsets = [
        (None, {"fields": ["created", "user_url", "what", "resource_url", "reason", "details"]}),
        ("Changes", {"fields": ["action", "msg"]}),
    ]

    @admin.display(description="action")
    def what(self, entry):
        data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
        return data.get("action") or f"{entry.get_action_display()} {entry.content_type.model}"

    @admin.display(description="reason")
    def reason(self, entry):
        data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
        return data.get("reason") or "—"

    @admin.display(description="details")
    def details(self, entry):
        data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
        rows = [(k, v) for k, v in data.items() if k not in ("action", "reason")]
        return format_html_join("", "<div>{}: {}</div>", rows) if rows else "—"
