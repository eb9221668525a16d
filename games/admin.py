"""Admin of games: list, filter by game/status/ranked, search by id, room code or a player's name or
username. Everything is read-only (games change only through ``games.services``); the game's page is
readable (players, the action log as a timeline, the final standing, the fairness seed after the end,
"Verify replay") and a moderator with ``games.abort_game`` may abort a playing game, with a reason."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from games import services
from games.models import Game, GameAction, GamePlayer
from games.replay import ReplayMismatch, game_replay_check
from games.selectors import game_fairness, game_timeline
from moderation.admin_tools import ReadOnlyAdmin, ReadOnlyInline, ReasonForm, action_page


class GamePlayerInline(ReadOnlyInline):
    model = GamePlayer
    fields = ["seat", "user", "cpu", "cpu_level", "connected", "away", "autoplay", "left", "kicked",
              "timeouts_in_row"]
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    """Games, read-only; search by id, room code (group), or a player's display name or username."""

    list_display = ["id", "game", "status", "seq", "ranked", "group", "turn_seconds", "created_at", "finished_at"]
    list_filter = ["game", "status", "ranked"]
    search_fields = ["group", "players__user__username", "players__user__display_name"]
    search_help_text = "A game id, a room code, or a player's name or username."
    actions = ["abort_games"]
    fields = ["game", "status", "seq", "ranked", "turn_seconds", "cpu_speed", "group", "created_at",
              "finished_at", "deadline", "bot_due_at", "human_acted"]
    readonly_fields = fields
    change_form_template = "moderation/change_form.html"

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if term.isdigit() and len(term) < 19:
            return queryset.filter(Q(pk=int(term)) | Q(group__icontains=term)), False
        qs, _ = super().get_search_results(request, queryset, term)
        return qs.distinct(), False

    def get_urls(self):
        return [
            path("<int:pk>/abort/", self.admin_site.admin_view(self.abort_view), name="games_game_abort"),
            path("<int:pk>/verify/", self.admin_site.admin_view(self.verify_view), name="games_game_verify"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        game = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if game is not None:
            tools = []
            if game.status == Game.PLAYING and request.user.has_perm("games.abort_game"):
                tools = [{"url": reverse("admin:games_game_abort", args=[game.pk]), "label": "Abort game"}]
            if game.status == Game.FINISHED and request.user.has_perm("moderation.void_game"):
                tools = [{"url": reverse("admin:moderation_gamevoid_void", args=[game.pk]), "label": "Void game"}]
            context.update(moderation_tools=tools, moderation_panels=["moderation/game_page.html"],
                           **self._page(game))
        return super().change_view(request, object_id, form_url, extra_context=context)

    def _page(self, game: Game) -> dict:
        """The readable page: players (linked), the timeline, the final standing, fairness."""
        players = list(GamePlayer.objects.filter(game=game).select_related("user").order_by("seat"))
        names = {p.seat: p for p in players}
        standing = [{"place": row.get("place"), "seat": row.get("seat"), "player": names.get(row.get("seat")),
                     "points": row.get("points", row.get("score"))}
                    for row in (game.result or {}).get("standing", [])]
        return {"game": game, "players": players, "timeline": game_timeline(game), "standing": standing,
                "fairness": game_fairness(game)}

    def verify_view(self, request, pk):
        """POST: run the replay check (``games.replay.game_replay_check``) and say how it went."""
        game = self.get_object(request, str(pk))
        if game is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))
        if request.method != "POST" or not self.has_view_permission(request, game):
            raise PermissionDenied
        try:
            checked = game_replay_check(game)
        except ReplayMismatch as exc:
            self.message_user(request, f"Replay FAILED: {exc}", messages.ERROR)
        else:
            self.message_user(request, f"Replay verified: {checked.actions} actions replayed from the seed give "
                              f"the same state and result.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:games_game_change", args=[game.pk]))

    def abort_view(self, request, pk):
        game = self.get_object(request, str(pk))
        if game is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            if not services.game_moderator_abort(game_id=game.pk, by=request.user, reason=data["reason"]):
                return f"Game {game.pk} was not playing: nothing to abort."
            return f"Game {game.pk} aborted (unrated); the players were told."

        return action_page(self, request, obj=game, permission="games.abort_game", title="Abort game",
                           perform=perform, intro="The game ends unrated; every seat sees it aborted.")

    def has_abort_permission(self, request):
        return request.user.has_perm("games.abort_game")

    @admin.action(description="Abort the selected games (unrated)", permissions=["abort"])
    def abort_games(self, request, queryset):
        """Asks a reason first (an intermediate page), then aborts each playing game through
        ``games.services.game_moderator_abort`` (one audit row each)."""
        form = ReasonForm(request.POST if "reason" in request.POST else None)
        if form.is_bound and form.is_valid():
            done = sum(1 for gid in queryset.values_list("id", flat=True)
                       if services.game_moderator_abort(game_id=gid, by=request.user, reason=form.cleaned_data["reason"]))
            self.message_user(request, f"{done} game(s) aborted.", messages.SUCCESS)
            return HttpResponseRedirect(request.get_full_path())
        context = {**self.admin_site.each_context(request), "title": "Abort the selected games", "form": form,
                   "games": list(queryset), "opts": self.opts,
                   "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME}
        return TemplateResponse(request, "moderation/abort_games.html", context)


@admin.register(GameAction)
class GameActionAdmin(ReadOnlyAdmin):
    list_display = ["game", "seq", "seat", "by", "user", "created_at"]
    list_filter = ["by"]
    search_fields = ["=game__id"]
    list_select_related = ["game", "user"]
    readonly_fields = ["game", "seq", "seat", "by", "user", "action", "events", "action_id", "response", "created_at"]

    def get_search_results(self, request, queryset, search_term):
        if search_term and not search_term.strip().isdigit():
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)

    def get_fields(self, request, obj=None):
        """A playing game's actions, events and answers hold seats' hidden cards (a Chinchón closer's
        face-down card is in its ``action``): shown once it is over."""
        fields = list(self.readonly_fields)
        if obj is not None and obj.game.status == Game.PLAYING:
            fields = [f for f in fields if f not in ("action", "events", "response")]
        return fields
