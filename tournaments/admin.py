"""Admin of tournaments for moderators: the tournaments with their entrants and tables (links to each
table's room), read-only; the actions "Cancel tournament" and "Remove a player"
(``tournaments.moderate_tournament``), each asking a reason and writing an audit row."""

from django import forms
from django.contrib import admin
from django.urls import path, reverse
from django.utils.html import format_html

from moderation.admin_tools import ReadOnlyAdmin, ReadOnlyInline, ReasonForm, action_page
from tournaments import services
from tournaments.models import Tournament, TournamentPlayer, TournamentStatus, TournamentTable

PERMISSION = "tournaments.moderate_tournament"


class PlayerInline(ReadOnlyInline):
    model = TournamentPlayer
    fields = ["seed", "user", "withdrawn", "joined_at"]
    readonly_fields = fields


class TableInline(ReadOnlyInline):
    """Each round's tables: players, the room (a link to its admin page), the game and the places."""

    model = TournamentTable
    fields = ["round", "index", "status", "players", "room_link", "game", "places", "ended_at"]
    readonly_fields = fields

    @admin.display(description="room")
    def room_link(self, table):
        if table.room_id is None:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:rooms_room_change", args=[table.room_id]),
                           table.room)


class RemoveForm(ReasonForm):
    """Which entrant to remove, and why."""

    player = forms.TypedChoiceField(coerce=int, choices=())

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [
            (e.user_id, f"#{e.seed} {e.user}") for e in
            tournament.players.select_related("user").filter(withdrawn=False).order_by("seed")]
        self.order_fields(["player", "reason"])


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ["code", "name", "game_name", "format", "status", "round", "rounds", "organiser", "rated",
                    "starts_at"]
    list_filter = ["status", "game_name", "format", "rated"]
    search_fields = ["code", "name", "organiser__username", "organiser__display_name"]
    list_select_related = ["organiser"]
    inlines = [PlayerInline, TableInline]
    change_form_template = "moderation/change_form.html"

    def get_urls(self):
        return [
            path("<int:pk>/cancel/", self.admin_site.admin_view(self.cancel_view), name="tournaments_tournament_cancel"),
            path("<int:pk>/remove/", self.admin_site.admin_view(self.remove_view), name="tournaments_tournament_remove"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        t = self.get_object(request, object_id)
        tools = []
        live = t is not None and t.status in (TournamentStatus.OPEN, TournamentStatus.RUNNING)
        if live and request.user.has_perm(PERMISSION):
            tools = [{"url": reverse("admin:tournaments_tournament_remove", args=[t.pk]), "label": "Remove a player"},
                     {"url": reverse("admin:tournaments_tournament_cancel", args=[t.pk]), "label": "Cancel tournament"}]
        context = {"moderation_tools": tools, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context=context)

    def cancel_view(self, request, pk):
        t = self.get_object(request, str(pk))
        if t is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.tournament_moderate_cancel(tournament_id=t.pk, by=request.user, reason=data["reason"])
            return f"Tournament {t.code} cancelled."

        return action_page(self, request, obj=t, permission=PERMISSION, title="Cancel tournament", perform=perform,
                           intro="Tables in play are closed and their games aborted, unrated.")

    def remove_view(self, request, pk):
        t = self.get_object(request, str(pk))
        if t is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.tournament_moderate_remove(tournament_id=t.pk, user_id=data["player"], by=request.user,
                                                reason=data["reason"])
            return f"Player removed from tournament {t.code}."

        return action_page(self, request, obj=t, permission=PERMISSION, title="Remove a player", perform=perform,
                           form_class=RemoveForm, form_kwargs={"tournament": t},
                           intro="Before the start the entry goes; after it the player is not paired again.")
