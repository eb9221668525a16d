"""Pieces the admin modules of every app share: read-only model admins and the page of a moderation
action (a form with a reason, calling a service, back to the object's page with a message)."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from config.errors import ApiError

REASON_MAX = 200


class NoEdits:
    """Nothing added, changed or deleted by hand (superusers included)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(NoEdits, admin.ModelAdmin):
    """A record of what happened: shown, never edited by hand. Changes go through the services, from the
    moderation actions."""


class ReadOnlyInline(NoEdits, admin.TabularInline):
    """An inline that only shows rows."""

    extra = 0
    can_delete = False


class ReasonForm(forms.Form):
    """A moderation action's reason (kept in the audit trail)."""

    reason = forms.CharField(max_length=REASON_MAX, widget=forms.TextInput(attrs={"size": 80}))


def admin_url(obj, view: str = "change") -> str:
    """The admin URL of ``obj``'s page (``view``: change, changelist...)."""
    meta = obj._meta
    if view == "changelist":
        return reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=[obj.pk])


def action_page(model_admin: admin.ModelAdmin, request: HttpRequest, *, obj, permission: str, title: str,
                perform: Callable[[dict], str], form_class: type[forms.Form] = ReasonForm,
                form_kwargs: dict | None = None, intro: str = "", back: str | None = None):
    """The page of one moderation action on ``obj``: 403 without ``permission`` (``"app.codename"``); GET
    shows ``form_class``; a valid POST calls ``perform(cleaned_data)`` (a service call returning the
    success message) and redirects to ``back`` (default: the object's page); an ``ApiError`` from the
    service is shown on the form and changes nothing."""
    if not request.user.has_perm(permission):
        raise PermissionDenied
    form = form_class(request.POST or None, **(form_kwargs or {}))
    if request.method == "POST" and form.is_valid():
        try:
            message = perform(form.cleaned_data)
        except ApiError as exc:
            for field, errors in (exc.fields or {}).items():
                for error in errors:
                    form.add_error(field if field in form.fields else None, error)
            if not exc.fields:
                form.add_error(None, str(exc.detail))
        else:
            model_admin.message_user(request, message, messages.SUCCESS)
            return HttpResponseRedirect(back or admin_url(obj))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "intro": intro,
        "form": form,
        "object": obj,
        "opts": model_admin.model._meta,
        "back": back or admin_url(obj),
    }
    return TemplateResponse(request, "moderation/action_form.html", context)
