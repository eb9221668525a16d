"""Admin for games: list, filter by game/status, search by id or group, read-only state and log, and an
"abort" action (through ``games.services.game_abort``)."""

from django.contrib import admin, messages

from games import services
from games.models import Game, GameAction, GamePlayer


class GamePlayerInline(admin.TabularInline):
    model = GamePlayer
    extra = 0
    can_delete = False
    fields = ["seat", "user", "cpu", "cpu_level", "connected", "away", "autoplay", "left", "timeouts_in_row"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "status", "seq", "ranked", "group", "turn_seconds", "created_at", "finished_at"]
    list_filter = ["game", "status", "ranked"]
    search_fields = ["=id", "group"]
    inlines = [GamePlayerInline]
    actions = ["abort_games"]
    readonly_fields = ["game", "rules", "state", "seq", "status", "window", "window_opened_at", "deadline",
                       "bot_due_at", "turn_seconds", "cpu_speed", "ranked", "group", "created_at", "finished_at",
                       "result", "human_acted"]
    exclude = ["seed"]

    def get_search_results(self, request, queryset, search_term):
        # "=id" with a non-numeric term must not reach the database as an integer lookup.
        if search_term and not search_term.strip().isdigit():
            return queryset.filter(group__icontains=search_term.strip()), False
        return super().get_search_results(request, queryset, search_term)

    def has_add_permission(self, request):
        return False

    @admin.action(description="Abort the selected games (unrated)")
    def abort_games(self, request, queryset):
        done = sum(1 for gid in queryset.values_list("id", flat=True) if services.game_abort(game_id=gid, reason="admin"))
        self.message_user(request, f"{done} game(s) aborted.", messages.SUCCESS)


@admin.register(GameAction)
class GameActionAdmin(admin.ModelAdmin):
    list_display = ["game", "seq", "seat", "by", "user", "created_at"]
    list_filter = ["by"]
    search_fields = ["=game__id"]
    list_select_related = ["game", "user"]
    readonly_fields = ["game", "seq", "seat", "by", "user", "action", "events", "action_id", "response", "created_at"]

    def get_search_results(self, request, queryset, search_term):
        if search_term and not search_term.strip().isdigit():
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
