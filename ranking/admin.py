"""Admin of ranking: ratings, rating changes (read-only), friendships and requests, the queue, game
records and achievement awards."""

from django.contrib import admin

from ranking.models import (
    AchievementAward,
    FriendRequest,
    Friendship,
    GameRecord,
    QueueEntry,
    Rating,
    RatingChange,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Nothing added, changed or deleted by hand: these rows are the record of what happened."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "rating", "games", "updated_at"]
    list_filter = ["game"]
    search_fields = ["user__username", "user__display_name"]
    ordering = ["game", "-rating"]
    raw_id_fields = ["user"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "game_name", "seat", "place", "before", "after", "change", "k", "created_at"]
    list_filter = ["game_name", "k"]
    search_fields = ["user__username", "user__display_name", "game__id"]
    date_hierarchy = "created_at"


@admin.register(Friendship)
class FriendshipAdmin(admin.ModelAdmin):
    list_display = ["user_low", "user_high", "source", "created_at"]
    list_filter = ["source"]
    search_fields = ["user_low__username", "user_low__display_name", "user_high__username", "user_high__display_name"]
    raw_id_fields = ["user_low", "user_high"]


@admin.register(FriendRequest)
class FriendRequestAdmin(admin.ModelAdmin):
    list_display = ["from_user", "to_user", "created_at"]
    search_fields = ["from_user__username", "to_user__username"]
    raw_id_fields = ["from_user", "to_user"]


@admin.register(QueueEntry)
class QueueEntryAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "seats", "status", "room_code", "created_at", "expires_at", "matched_at"]
    list_filter = ["game", "seats", "status"]
    search_fields = ["user__username", "user__display_name", "room_code"]
    raw_id_fields = ["user"]


@admin.register(GameRecord)
class GameRecordAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "game_name", "seat", "place", "outcome", "rated", "xp", "finished_at"]
    list_filter = ["game_name", "outcome", "rated", "resigned", "played_for"]
    search_fields = ["user__username", "user__display_name", "game__id"]


@admin.register(AchievementAward)
class AchievementAwardAdmin(admin.ModelAdmin):
    list_display = ["user", "achievement", "game", "seat", "awarded_at"]
    list_filter = ["achievement"]
    search_fields = ["user__username", "user__display_name", "achievement"]
    raw_id_fields = ["user", "game"]
