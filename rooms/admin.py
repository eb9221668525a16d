"""Admin of rooms and chat. Room status and seats are read-only (they follow the games); moderators act
through the services: close a room, kick a seat (``rooms.moderate_room``), hide a chat message
(``rooms.hide_chatmessage``). Each action asks a reason and writes an audit row."""

from django import forms
from django.contrib import admin
from django.urls import path, reverse
from django.utils.html import format_html

from config.audit import audit_record
from moderation.admin_tools import ReadOnlyAdmin, ReadOnlyInline, ReasonForm, action_page
from rooms import services
from rooms.models import ChatMessage, Room, RoomKick, RoomStatus, Seat, VoiceSession


class SeatInline(ReadOnlyInline):
    """A room's seats (read only: kick a player with the "Kick a seat" action)."""

    model = Seat
    fields = ["index", "user_link", "cpu", "cpu_level", "left", "connections"]
    readonly_fields = fields
    ordering = ["index"]

    @admin.display(description="user")
    def user_link(self, seat):
        if seat.user_id is None:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:accounts_user_change", args=[seat.user_id]),
                           seat.user)


class ChatInline(ReadOnlyInline):
    """The room's chat (hidden messages marked); hide one from its own page."""

    model = ChatMessage
    fk_name = "room"
    fields = ["created_at", "user", "seat", "body", "hidden_at"]
    readonly_fields = fields
    show_change_link = True
    ordering = ["-id"]

    @admin.display(description="message")
    def body(self, message):
        return message_body(message)


def message_body(message: ChatMessage) -> str:
    """The message as shown: its text, emoji or phrase id."""
    if message.text is not None:
        return message.text
    return message.emoji or f"[{message.phrase}]"


class KickForm(ReasonForm):
    """Which seat to empty, and why."""

    seat = forms.TypedChoiceField(coerce=int, choices=())

    def __init__(self, *args, room: Room, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = [(s.index, f"seat {s.index}: {s.user}")
                                       for s in room.seats.select_related("user").order_by("index") if s.user_id]
        self.order_fields(["seat", "reason"])


@admin.register(Room)
class RoomAdmin(ReadOnlyAdmin):
    """Rooms: search by code or host, filter by game, status, ranked; read-only, with the moderation
    actions "Close room" and "Kick a seat"."""

    list_display = ["code", "game_name", "status", "host", "ranked", "seat_count", "game", "version",
                    "created_at", "last_activity"]
    list_filter = ["status", "game_name", "ranked", "cpu_level", "cpu_speed"]
    search_fields = ["code", "host__username", "host__display_name"]
    list_select_related = ["host"]
    inlines = [SeatInline, ChatInline]
    date_hierarchy = "created_at"
    change_form_template = "moderation/change_form.html"

    def get_urls(self):
        urls = [
            path("<int:pk>/close/", self.admin_site.admin_view(self.close_view), name="rooms_room_close"),
            path("<int:pk>/kick/", self.admin_site.admin_view(self.kick_view), name="rooms_room_kick"),
        ]
        return urls + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        room = self.get_object(request, object_id)
        tools = []
        if room is not None and room.status != RoomStatus.CLOSED and request.user.has_perm("rooms.moderate_room"):
            tools = [{"url": reverse("admin:rooms_room_kick", args=[room.pk]), "label": "Kick a seat"},
                     {"url": reverse("admin:rooms_room_close", args=[room.pk]), "label": "Close room"}]
        context = {"moderation_tools": tools, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context=context)

    def close_view(self, request, pk):
        room = self.get_object(request, str(pk))
        if room is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.room_close(room_id=room.pk, by=request.user, reason=data["reason"])
            return f"Room {room.code} closed."

        return action_page(self, request, obj=room, permission="rooms.moderate_room", title="Close room",
                           perform=perform, intro="The game playing in it (if any) is aborted, unrated; its "
                           "players are told and their sockets closed (4404).")

    def kick_view(self, request, pk):
        room = self.get_object(request, str(pk))
        if room is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.room_kick(room_id=room.pk, seat=data["seat"], by=request.user, reason=data["reason"])
            return f"Seat {data['seat']} of room {room.code} kicked."

        return action_page(self, request, obj=room, permission="rooms.moderate_room", title="Kick a seat",
                           perform=perform, form_class=KickForm, form_kwargs={"room": room},
                           intro="During a game the CPU plays the seat until the end; the player may not "
                           "come back to this room.")


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    """Chat moderation: newest first with the text, search by text, user or room code; hide a message
    (gone from the room's history and from connected screens)."""

    list_display = ["id", "created_at", "room", "user", "seat", "body", "hidden"]
    list_display_links = ["id", "created_at"]
    list_filter = [("hidden_at", admin.EmptyFieldListFilter), "created_at",
                   ("emoji", admin.EmptyFieldListFilter), ("phrase", admin.EmptyFieldListFilter)]
    search_fields = ["text", "user__username", "user__display_name", "room__code"]
    list_select_related = ["room", "user"]
    date_hierarchy = "created_at"
    ordering = ["-id"]
    change_form_template = "moderation/change_form.html"

    @admin.display(description="message")
    def body(self, message):
        return message_body(message)

    @admin.display(description="hidden", boolean=True)
    def hidden(self, message):
        return message.hidden_at is not None

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def delete_model(self, request, obj):
        """A superuser's deletion, in the audit trail like every moderation action."""
        audit_record(actor=request.user, action="chat_delete", target=obj, kind="delete", text=message_body(obj))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for message in queryset:
            audit_record(actor=request.user, action="chat_delete", target=message, kind="delete",
                         text=message_body(message))
        super().delete_queryset(request, queryset)

    def get_urls(self):
        return [path("<int:pk>/hide/", self.admin_site.admin_view(self.hide_view),
                     name="rooms_chatmessage_hide")] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        message = self.get_object(request, object_id)
        tools = []
        if message is not None and message.hidden_at is None and request.user.has_perm("rooms.hide_chatmessage"):
            tools = [{"url": reverse("admin:rooms_chatmessage_hide", args=[message.pk]), "label": "Hide message"}]
        context = {"moderation_tools": tools, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context=context)

    def hide_view(self, request, pk):
        message = self.get_object(request, str(pk))
        if message is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            services.chat_message_hide(message_id=message.pk, by=request.user, reason=data["reason"])
            return f"Message {message.pk} hidden."

        return action_page(self, request, obj=message, permission="rooms.hide_chatmessage", title="Hide message",
                           perform=perform, intro=f"“{message_body(message)}” by {message.user}: it leaves the "
                           "room's history and the players' screens.")


@admin.register(RoomKick)
class RoomKickAdmin(ReadOnlyAdmin):
    """Who was kicked from which room, by whom and why."""

    list_display = ["room", "seat", "user", "by", "reason", "created_at"]
    search_fields = ["room__code", "user__username", "user__display_name"]
    list_select_related = ["room", "user", "by"]


@admin.register(VoiceSession)
class VoiceSessionAdmin(ReadOnlyAdmin):
    """Who joined the voice of which room, from which seat, when, and when and why they left (no audio is
    ever recorded: it never passes the server)."""

    list_display = ["room", "seat", "user", "joined_at", "left_at", "left_reason"]
    list_filter = ["left_reason"]
    search_fields = ["room__code", "user__username", "user__display_name"]
    list_select_related = ["room", "user"]
    date_hierarchy = "joined_at"
