"""Admin for rooms (code, game, status, host, ranked; seats inline; chat) and chat moderation.

Deleting chat messages is the moderation here; muting and banning users live on the User admin.
"""

from django.contrib import admin

from rooms.models import ChatMessage, Room, Seat


class SeatInline(admin.TabularInline):
    """A room's seats."""

    model = Seat
    extra = 0
    fields = ["index", "user", "cpu", "cpu_level", "left", "connections"]
    readonly_fields = ["connections"]
    raw_id_fields = ["user"]
    ordering = ["index"]


class ChatInline(admin.TabularInline):
    """A room's latest chat messages (read only; delete them here or in the chat list)."""

    model = ChatMessage
    extra = 0
    fields = ["created_at", "user", "seat", "text", "emoji", "phrase"]
    readonly_fields = fields
    can_delete = True
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    """Rooms: search by code or host, filter by game, status, ranked."""

    list_display = ["code", "game_name", "status", "host", "ranked", "seat_count", "game", "version",
                    "created_at", "last_activity"]
    list_filter = ["status", "game_name", "ranked", "cpu_level", "cpu_speed"]
    search_fields = ["code", "host__username", "host__display_name"]
    raw_id_fields = ["host", "game"]
    readonly_fields = ["version", "created_at", "last_activity"]
    inlines = [SeatInline, ChatInline]
    date_hierarchy = "created_at"


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """Chat moderation: search by text, user or room code; filter by kind and date; delete messages."""

    list_display = ["id", "created_at", "room", "user", "seat", "text", "emoji", "phrase"]
    list_filter = ["created_at", ("emoji", admin.EmptyFieldListFilter), ("phrase", admin.EmptyFieldListFilter)]
    search_fields = ["text", "user__username", "user__display_name", "room__code"]
    raw_id_fields = ["room", "user"]
    readonly_fields = ["room", "user", "seat", "text", "emoji", "phrase", "created_at"]
    list_select_related = ["room", "user"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False
