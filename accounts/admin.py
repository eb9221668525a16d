"""Admin for users, sanctions and IP blocks. Sanctions and blocks are made and lifted only through the
services of ``accounts.sanctions`` (so every one has its record and its effects at once); their rows are
read-only here and never deleted."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.utils import timezone
from rest_framework.authtoken.models import TokenProxy

from accounts import sanctions
from accounts.models import IpBlock, Sanction, User
from accounts.ranks import rank_refusal
from config.errors import ApiError
from config.textpolicy import lookalike_key
from moderation.selectors import user_overview


class SanctionInline(admin.TabularInline):
    """A user's sanctions, newest first (read-only: add one from Sanctions)."""

    model = Sanction
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = readonly_fields = ["kind", "reason", "until", "created_by", "created_at", "lifted_at", "lifted_by",
                                "lift_reason"]

    def has_add_permission(self, request, obj=None):
        return False


# API tokens are stored hashed (accounts.tokens): DRF's own token table is empty and its page would only
# invite reading keys, so it is not shown.
if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Users with their display name, guest flag and standing (sanction them from Sanctions)."""

    list_display = ["id", "username", "display_name", "is_guest", "banned_at", "suspended_until", "muted_until",
                    "is_staff", "date_joined"]
    list_filter = ["is_guest", "is_active", "is_staff", "is_superuser"]
    search_fields = ["username", "display_name", "email"]
    search_help_text = "A username, display name or e-mail; names that look alike are found too (Hana, Hanа, H4na)."
    ordering = ["-date_joined"]
    readonly_fields = ["banned_at", "suspended_until", "muted_until"]
    fieldsets = BaseUserAdmin.fieldsets + (
        ("Player", {"fields": ("display_name", "is_guest")}),
        ("Standing", {"fields": ("banned_at", "suspended_until", "muted_until")}),
    )
    add_fieldsets = BaseUserAdmin.add_fieldsets + (("Player", {"fields": ("display_name",)}),)
    inlines = [SanctionInline]
    change_form_template = "moderation/change_form.html"

    def get_search_results(self, request, queryset, search_term):
        """The stock search, plus users either of whose names looks like the term (``User.name_key``,
        :func:`config.textpolicy.lookalike_key`: TR39 skeleton, case and digits read as letters)."""
        qs, duplicates = super().get_search_results(request, queryset, search_term)
        key = lookalike_key(search_term.strip()) if search_term.strip() else ""
        if key:
            qs = qs | queryset.filter(name_key__contains=key)
        return qs, duplicates

    def save_model(self, request, obj, form, change):
        """Save; unticking ``is_active`` also closes the user's sockets and hands their seats to the CPU
        (:func:`accounts.sanctions.user_deactivated`), as a ban does."""
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            sanctions.user_deactivated(user=obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The user's page: the form, their sanctions (inline), then their games, rooms, chat, reports,
        ratings and friends (``moderation.selectors.user_overview``), all linked."""
        user = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if user is not None:
            context.update(ov=user_overview(user), moderation_panels=["moderation/user_page.html"])
        return super().change_view(request, object_id, form_url, extra_context=context)


class SanctionForm(forms.ModelForm):
    """A new sanction: user, kind, reason, (mute, suspend) an end time in the future and, when a longer
    sanction of the same kind is in force, ``replaces`` naming it. ``actor``: the staff user adding it
    (ranks checked, :mod:`accounts.ranks`)."""

    replaces = forms.IntegerField(required=False, min_value=1, label="Replaces sanction #",
                                  help_text="Only when asked: the number of a longer sanction in force that this "
                                            "one replaces.")

    class Meta:
        model = Sanction
        fields = ["user", "kind", "reason", "until"]

    actor = None

    def clean(self):
        data = super().clean()
        kind, until, user = data.get("kind"), data.get("until"), data.get("user")
        if kind == Sanction.BAN and until is not None:
            self.add_error("until", "A ban is for good: leave the end time empty (suspend for a period).")
        elif kind in (Sanction.MUTE, Sanction.SUSPEND) and (until is None or until <= timezone.now()):
            self.add_error("until", "Give an end time in the future.")
        elif user is not None and kind:
            refusal = rank_refusal(actor=self.actor, target=user) or sanctions.sanction_conflict(
                user=user, kind=kind, until=until, replaces=data.get("replaces"))
            if refusal is not None:
                self.add_error("replaces" if refusal.fields else "user", str(refusal.detail))
        return data


class LiftForm(forms.Form):
    """Why the sanctions are lifted (kept on each sanction and in the audit trail)."""

    reason = forms.CharField(max_length=sanctions.REASON_MAX, widget=forms.TextInput(attrs={"size": 80}))


class _RecordAdmin(admin.ModelAdmin):
    """A record made by a service (``save_model`` of a new row) and then read-only, never deleted;
    ``record_fields``: the fields shown read-only once it exists."""

    record_fields: list[str] = []

    def get_readonly_fields(self, request, obj=None):
        return ["created_by", "created_at"] if obj is None else self.record_fields

    def has_delete_permission(self, request, obj=None):
        return False


def _lift_service(kind: str):
    return {Sanction.MUTE: sanctions.user_mute_lift, Sanction.SUSPEND: sanctions.user_suspend_lift,
            Sanction.BAN: sanctions.user_ban_lift}[kind]


@admin.register(Sanction)
class SanctionAdmin(_RecordAdmin):
    """Mute, suspend or ban through the services (their effects at once), and lift them with a reason.
    A moderator sanctions players only; a superuser anyone but themselves (:mod:`accounts.ranks`)."""

    form = SanctionForm
    list_display = ["id", "user", "kind", "reason", "until", "created_by", "created_at", "lifted_at", "lift_reason"]
    list_filter = ["kind", ("lifted_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "user__display_name", "reason"]
    raw_id_fields = ["user"]
    actions = ["lift"]
    record_fields = ["user", "kind", "reason", "until", "created_by", "created_at", "lifted_at", "lifted_by",
                     "lift_reason"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None:
            form = type("ActorSanctionForm", (form,), {"actor": request.user})
        return form

    def get_fields(self, request, obj=None):
        return self.record_fields if obj is not None else ["user", "kind", "reason", "until", "replaces"]

    def save_model(self, request, obj, form, change):
        if change:
            return
        data = form.cleaned_data
        kwargs = {"user": data["user"], "by": request.user, "reason": data["reason"], "replaces": data.get("replaces")}
        if data["kind"] == Sanction.BAN:
            made = sanctions.user_ban(**kwargs)
        else:
            service = sanctions.user_mute if data["kind"] == Sanction.MUTE else sanctions.user_suspend
            made = service(until=data["until"], **kwargs)
        obj.pk, obj.created_by, obj.created_at = made.pk, made.created_by, made.created_at

    @admin.action(description="Lift the selected sanctions (and any of the same kind in force for that user)")
    def lift(self, request, queryset):
        """A page asking the reason, then each sanction in force lifted through its service (ranks
        checked: a refused one is named and left in force)."""
        form = LiftForm(request.POST if "reason" in request.POST else None)
        if not form.is_valid():
            context = {**self.admin_site.each_context(request), "title": "Lift sanctions", "form": form,
                       "queryset": queryset, "opts": self.model._meta,
                       "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME}
            return TemplateResponse(request, "admin/accounts/sanction/lift.html", context)
        lifted = 0
        for sanction in queryset.select_related("user"):
            if not sanction.in_force():
                continue
            try:
                lifted += _lift_service(sanction.kind)(user=sanction.user, by=request.user,
                                                       reason=form.cleaned_data["reason"])
            except ApiError as exc:
                self.message_user(request, f"Sanction #{sanction.pk}: {exc.detail}", messages.ERROR)
        self.message_user(request, f"{lifted} sanction(s) lifted.", messages.SUCCESS)
        return None


class IpBlockForm(forms.ModelForm):
    """A new block: an address or CIDR network, a reason, an optional end time."""

    class Meta:
        model = IpBlock
        fields = ["network", "reason", "until"]

    def clean_network(self):
        try:
            return sanctions.clean_network(self.cleaned_data["network"])
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["network"]) from exc

    def clean_until(self):
        until = self.cleaned_data.get("until")
        if until is not None and until <= timezone.now():
            raise ValidationError("Give an end time in the future, or none.")
        return until


@admin.register(IpBlock)
class IpBlockAdmin(_RecordAdmin):
    """Block an address or network from creating guests and accounts; lift blocks."""

    form = IpBlockForm
    list_display = ["id", "network", "reason", "until", "created_by", "created_at", "lifted_at"]
    list_filter = [("lifted_at", admin.EmptyFieldListFilter)]
    search_fields = ["network", "reason"]
    actions = ["lift"]
    record_fields = ["network", "reason", "until", "created_by", "created_at", "lifted_at", "lifted_by"]

    def save_model(self, request, obj, form, change):
        if change:
            return
        data = form.cleaned_data
        made = sanctions.ip_block(network=data["network"], by=request.user, reason=data["reason"],
                                  until=data.get("until"))
        obj.pk, obj.created_by, obj.created_at = made.pk, made.created_by, made.created_at

    @admin.action(description="Lift the selected blocks")
    def lift(self, request, queryset):
        lifted = sum(sanctions.ip_block_lift(block=block, by=request.user) for block in queryset)
        self.message_user(request, f"{lifted} block(s) lifted.", messages.SUCCESS)
