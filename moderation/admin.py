"""The moderators' admin pages: the report queue (with the reported content in context, assign, resolve)
and the ranked-play integrity flags."""

from datetime import timedelta

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from games.models import Game
from games.selectors import game_timeline
from moderation import (
    audit_admin,  # noqa: F401  (the audit trail's pages)
    notices,
    services,
    voids,
)
from moderation.admin_tools import ReadOnlyAdmin, action_page
from moderation.models import Appeal, GameVoid, IntegrityFlag, Report, UserNote
from rooms.models import ChatMessage

CHAT_CONTEXT = 8  # messages shown before and after a reported one
LOG_CONTEXT = 30  # last timeline rows of a reported game shown on the report's page


def _open_reports_on_target():
    return Coalesce(Subquery(
        Report.objects.filter(target_key=OuterRef("target_key"), status=Report.Status.OPEN)
        .values("target_key").annotate(n=Count("id")).values("n")[:1]), 0)


class ReportStatusFilter(admin.SimpleListFilter):
    """Open reports unless asked otherwise: the queue opens on what is left to do."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("open", "Open"), ("resolved", "Resolved"), ("all", "All")]

    def queryset(self, request, queryset):
        value = self.value() or "open"
        return queryset if value == "all" else queryset.filter(status=value)

    def choices(self, changelist):
        current = self.value() or "open"
        for value, label in self.lookup_choices:
            yield {"selected": current == value, "display": label,
                   "query_string": changelist.get_query_string({self.parameter_name: value})}


class AssignForm(forms.Form):
    """Whom a report goes to: a staff user."""

    moderator = forms.ModelChoiceField(queryset=get_user_model().objects.filter(is_staff=True, is_active=True)
                                       .order_by("username"))


class ResolveForm(forms.Form):
    """A report's outcome, whom it applies to, for how long (mute/suspend) and why."""

    outcome = forms.ChoiceField(choices=Report.Outcome.choices)
    user = forms.ModelChoiceField(queryset=get_user_model().objects.none(), required=False,
                                  help_text="Whom the warning or sanction applies to.")
    hours = forms.IntegerField(min_value=1, max_value=24 * 365, required=False,
                               help_text="Mute / suspend: for how many hours.")
    note = forms.CharField(max_length=500, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
                           help_text="Why (the sanction's reason and the report's outcome note).")
    replaces = forms.IntegerField(required=False, min_value=1, label="Replaces sanction #",
                                  help_text="Only when asked: the number of a longer sanction in force that this "
                                            "one replaces.")

    def __init__(self, *args, candidates, initial_user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["user"].queryset = get_user_model().objects.filter(pk__in=[u.pk for u in candidates])
        if initial_user is not None:
            self.fields["user"].initial = initial_user.pk

    def clean(self):
        data = super().clean()
        outcome = data.get("outcome")
        if outcome in (Report.Outcome.MUTE, Report.Outcome.SUSPEND) and not data.get("hours"):
            self.add_error("hours", "A mute or suspension needs a length.")
        if outcome and outcome != Report.Outcome.DISMISS and not data.get("user"):
            self.add_error("user", "Choose whom this applies to.")
        return data


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    """The report queue: open reports by default, most-reported targets first, then newest. A report's
    page shows the reported content in context; "Assign" gives it (and its target's other open reports)
    to a moderator, you by default; "Resolve" applies an outcome through the services."""

    list_display = ["id", "created_at", "kind", "target", "reported_user", "reason", "reports_on_target",
                    "status", "assigned_to", "outcome"]
    list_display_links = ["id", "created_at"]
    list_filter = [ReportStatusFilter, "kind", "reason", "outcome", ("assigned_to", admin.EmptyFieldListFilter)]
    search_fields = ["reported_user__username", "reported_user__display_name", "reporter__username", "content",
                     "note"]
    list_select_related = ["reporter", "reported_user", "assigned_to"]
    fields = ["kind", "target", "reported_user", "reporter", "reason", "note", "content", "created_at", "status",
              "assigned_to", "outcome", "outcome_note", "resolved_by", "resolved_at"]
    readonly_fields = fields
    change_form_template = "moderation/change_form.html"

    def get_queryset(self, request):
        qs = self.model._default_manager.get_queryset().annotate(on_target=_open_reports_on_target())
        return qs.order_by(*self.get_ordering(request))

    def get_ordering(self, request):
        return ["-on_target", "-created_at", "-id"]

    @admin.display(description="open reports on target", ordering="on_target")
    def reports_on_target(self, report):
        return report.on_target

    @admin.display(description="target")
    def target(self, report):
        if report.kind == Report.Kind.USER and report.user_id:
            return format_html('<a href="{}">{}</a>', reverse("admin:accounts_user_change", args=[report.user_id]),
                               report.user)
        if report.kind == Report.Kind.CHAT_MESSAGE and report.chat_message_id:
            return format_html('<a href="{}">message {}</a>: “{}”',
                               reverse("admin:rooms_chatmessage_change", args=[report.chat_message_id]),
                               report.chat_message_id, report.content)
        if report.kind == Report.Kind.GAME and report.game_id:
            return format_html('<a href="{}">game {}</a>', reverse("admin:games_game_change", args=[report.game_id]),
                               report.game_id)
        return report.target_key

    def has_resolve_permission(self, request):
        return request.user.has_perm("moderation.resolve_report")

    def get_urls(self):
        return [
            path("<int:pk>/assign/", self.admin_site.admin_view(self.assign_view), name="moderation_report_assign"),
            path("<int:pk>/resolve/", self.admin_site.admin_view(self.resolve_view),
                 name="moderation_report_resolve"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        report = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if report is not None:
            tools = []
            if report.status == Report.Status.OPEN and self.has_resolve_permission(request):
                tools.append({"url": reverse("admin:moderation_report_assign", args=[report.pk]),
                              "label": "Assign"})
                tools.append({"url": reverse("admin:moderation_report_resolve", args=[report.pk]),
                              "label": "Resolve"})
            context.update(moderation_tools=tools, moderation_panels=["moderation/report_context.html"],
                           **self._context(report))
        return super().change_view(request, object_id, form_url, extra_context=context)

    def _context(self, report: Report) -> dict:
        """The reported content in context: the chat around a message, a game's players and last log rows,
        and the other reports on the same target."""
        out: dict = {"report": report, "others": list(
            Report.objects.filter(target_key=report.target_key).exclude(pk=report.pk)
            .select_related("reporter").order_by("-id")[:50])}
        message = report.chat_message
        if message is not None:
            around = ChatMessage.objects.filter(room_id=message.room_id).select_related("user")
            before = list(around.filter(id__lt=message.pk).order_by("-id")[:CHAT_CONTEXT])
            after = list(around.filter(id__gt=message.pk).order_by("id")[:CHAT_CONTEXT])
            out["chat"] = [*reversed(before), message, *after]
            out["chat_room"] = message.room
        if report.game is not None:
            out["timeline"] = game_timeline(report.game)[-LOG_CONTEXT:]
            out["game"] = report.game
        return out

    def assign_view(self, request, pk):
        """Assign the report (and its target's other open reports) to a moderator, yourself by default."""
        report = self.get_object(request, str(pk))
        if report is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.report_assign(report_id=report.pk, moderator=data["moderator"], by=request.user)
            return f"Report {report.pk} assigned to {data['moderator']}."

        return action_page(self, request, obj=report, permission="moderation.resolve_report", title="Assign report",
                           perform=perform, form_class=AssignForm, form_kwargs={"initial": {"moderator": request.user}})

    def resolve_view(self, request, pk):
        report = self.get_object(request, str(pk))
        if report is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))
        candidates = [u for u in [report.reported_user] if u is not None]
        if report.game is not None:
            candidates += [gp.user for gp in report.game.players.select_related("user") if gp.user is not None]

        def perform(data):
            until = timezone.now() + timedelta(hours=data["hours"]) if data.get("hours") else None
            services.report_resolve(report_id=report.pk, by=request.user, outcome=data["outcome"],
                                    note=data["note"], user=data.get("user"), until=until,
                                    replaces=data.get("replaces"))
            return f"Report {report.pk} resolved: {data['outcome']}."

        return action_page(self, request, obj=report, permission="moderation.resolve_report", title="Resolve report",
                           perform=perform, form_class=ResolveForm,
                           form_kwargs={"candidates": candidates, "initial_user": report.reported_user},
                           back=reverse("admin:moderation_report_change", args=[report.pk]),
                           intro="Every open report on the same target is resolved with this outcome.")


@admin.register(IntegrityFlag)
class IntegrityFlagAdmin(ReadOnlyAdmin):
    """Ranked-play integrity flags with their evidence; a moderator clears or confirms each."""

    list_display = ["id", "kind", "game_name", "user", "other", "games", "status", "updated_at"]
    list_filter = ["status", "kind", "game_name"]
    search_fields = ["user__username", "user__display_name", "other__username", "other__display_name"]
    list_select_related = ["user", "other"]
    fields = ["kind", "game_name", "user", "other", "status", "created_at", "updated_at", "reviewed_by",
              "reviewed_at", "review_note"]
    readonly_fields = fields
    change_form_template = "moderation/change_form.html"

    @admin.display(description="games")
    def games(self, flag):
        return len(flag.evidence.get("games", []))

    def get_urls(self):
        return [path("<int:pk>/review/", self.admin_site.admin_view(self.review_view),
                     name="moderation_integrityflag_review")] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        flag = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if flag is not None:
            tools = []
            if flag.status == IntegrityFlag.Status.OPEN and request.user.has_perm("moderation.change_integrityflag"):
                tools = [{"url": reverse("admin:moderation_integrityflag_review", args=[flag.pk]), "label": "Review"}]
            context.update(moderation_tools=tools, moderation_panels=["moderation/flag_evidence.html"], flag=flag)
        return super().change_view(request, object_id, form_url, extra_context=context)

    def review_view(self, request, pk):
        flag = self.get_object(request, str(pk))
        if flag is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.integrity_flag_review(flag_id=flag.pk, by=request.user, status=data["status"],
                                           note=data["note"])
            return f"Flag {flag.pk}: {data['status']}."

        return action_page(self, request, obj=flag, permission="moderation.change_integrityflag",
                           title="Review flag", perform=perform, form_class=ReviewForm,
                           intro="Clear it if the games look fair; confirm it once you have acted "
                           "(adjusted ratings, sanctioned the players).")


class ReviewForm(forms.Form):
    status = forms.ChoiceField(choices=[(IntegrityFlag.Status.CLEARED, "Cleared (nothing wrong)"),
                                        (IntegrityFlag.Status.CONFIRMED, "Confirmed (acted on)")])
    note = forms.CharField(max_length=500, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))



class DecideForm(forms.Form):
    """An appeal's decision and why (the player is told)."""

    decision = forms.ChoiceField(choices=[("grant", "Grant: lift the sanction"), ("reject", "Reject: it stays")])
    note = forms.CharField(max_length=500, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
                           help_text="Why: the player is told, and it is kept in the audit trail.")


class AppealStatusFilter(ReportStatusFilter):
    """Open appeals unless asked otherwise."""

    def lookups(self, request, model_admin):
        return [("open", "Open"), ("granted", "Granted"), ("rejected", "Rejected"), ("all", "All")]


@admin.register(Appeal)
class AppealAdmin(ReadOnlyAdmin):
    """The appeal queue: players' appeals against their sanctions, open ones first (oldest first); "Decide"
    grants (the sanction is lifted) or rejects, and the player is told. Needs ``resolve_report``."""

    list_display = ["id", "created_at", "user", "sanction_kind", "sanction_reason", "text", "status", "decided_by"]
    list_filter = [AppealStatusFilter]
    list_select_related = ["user", "sanction", "decided_by"]
    search_fields = ["user__username", "user__display_name", "text"]
    fields = ["user", "sanction", "sanction_reason", "text", "status", "created_at", "decided_by", "decided_at",
              "decision_note"]
    readonly_fields = fields
    ordering = ["created_at", "id"]
    change_form_template = "moderation/change_form.html"

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("moderation.resolve_report") or super().has_view_permission(request, obj)

    def has_module_permission(self, request):
        return self.has_view_permission(request)

    @admin.display(description="sanction")
    def sanction_kind(self, appeal):
        return f"#{appeal.sanction_id} {appeal.sanction.kind}"

    @admin.display(description="its reason")
    def sanction_reason(self, appeal):
        return appeal.sanction.reason

    def get_urls(self):
        return [path("<int:pk>/decide/", self.admin_site.admin_view(self.decide_view),
                     name="moderation_appeal_decide")] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        appeal = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if appeal is not None and appeal.status == Appeal.Status.OPEN and request.user.has_perm(
                "moderation.resolve_report"):
            context["moderation_tools"] = [{"url": reverse("admin:moderation_appeal_decide", args=[appeal.pk]),
                                            "label": "Decide"}]
        return super().change_view(request, object_id, form_url, extra_context=context)

    def decide_view(self, request, pk):
        appeal = self.get_object(request, str(pk))
        if appeal is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            notices.appeal_decide(appeal_id=appeal.pk, by=request.user, grant=data["decision"] == "grant",
                                  note=data["note"])
            return f"Appeal {appeal.pk}: {data['decision']}ed; the player is told."

        return action_page(self, request, obj=appeal, permission="moderation.resolve_report", title="Decide appeal",
                           perform=perform, form_class=DecideForm)


class UserNoteForm(forms.ModelForm):
    class Meta:
        model = UserNote
        fields = ["user", "text"]
        widgets = {"text": forms.Textarea(attrs={"rows": 3, "cols": 80})}


@admin.register(UserNote)
class UserNoteAdmin(admin.ModelAdmin):
    """Moderators' notes about users ("Add a note" on a user's page), through ``services.note_add`` (one
    audit row each); read-only once written. Needs ``moderation.resolve_report``."""

    form = UserNoteForm
    list_display = ["created_at", "user", "by", "text"]
    list_select_related = ["user", "by"]
    search_fields = ["user__username", "user__display_name", "text"]
    raw_id_fields = ["user"]

    def _moderator(self, request):
        return request.user.has_perm("moderation.resolve_report")

    def has_view_permission(self, request, obj=None):
        return self._moderator(request)

    def has_module_permission(self, request):
        return self._moderator(request)

    def has_add_permission(self, request):
        return self._moderator(request)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_changeform_initial_data(self, request):
        return {"user": request.GET.get("user")}

    def save_model(self, request, obj, form, change):
        made = services.note_add(user=form.cleaned_data["user"], by=request.user, text=form.cleaned_data["text"])
        obj.pk, obj.by, obj.created_at = made.pk, made.by, made.created_at

    def response_add(self, request, obj, post_url_continue=None):
        return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[obj.user_id]))


@admin.register(GameVoid)
class GameVoidAdmin(ReadOnlyAdmin):
    """Games voided by a moderator (read-only). "Void game" is on a finished game's page (``Games``), for
    those with ``moderation.void_game``: ``<game id>/void/`` here."""

    list_display = ["game", "by", "reason", "created_at"]
    search_fields = ["=game__id", "reason"]
    list_select_related = ["by"]
    fields = ["game", "by", "reason", "summary", "created_at"]
    readonly_fields = fields

    def get_urls(self):
        return [path("<int:game_id>/void/", self.admin_site.admin_view(self.void_view),
                     name="moderation_gamevoid_void")] + super().get_urls()

    def void_view(self, request, game_id):
        """Void finished game ``game_id`` with a reason (:func:`moderation.voids.game_void`)."""
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            return self._get_obj_does_not_exist_redirect(request, Game._meta, str(game_id))

        def perform(data):
            void, new = voids.game_void(game_id=game.pk, by=request.user, reason=data["reason"])
            if not new:
                return f"Game {game.pk} was already voided: nothing changed."
            return (f"Game {game.pk} voided: {len(void.summary['ratings'])} rating(s) restored, "
                    f"{len(void.summary['coins'])} wallet(s) and {len(void.summary['xp'])} XP total(s) reversed; "
                    "the players were told.")

        return action_page(self, request, obj=game, permission="moderation.void_game", title="Void game",
                           perform=perform,
                           intro="Every seat's rating (and rated-game count) is restored; the game's coins and "
                           "XP are reversed through the ledger; the game stops counting for challenges and "
                           "achievements. Once only: voiding again changes nothing.")
