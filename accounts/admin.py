"""Admin for users: search, filters, the guest flag, muting and banning."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Users with their display name, guest flag and moderation switches (mute; ban = inactive)."""

    list_display = ["id", "username", "display_name", "is_guest", "is_muted", "is_active", "is_staff", "date_joined"]
    list_filter = ["is_guest", "is_muted", "is_active", "is_staff", "is_superuser"]
    search_fields = ["username", "display_name", "email"]
    ordering = ["-date_joined"]
    fieldsets = BaseUserAdmin.fieldsets + (("Player", {"fields": ("display_name", "is_guest", "is_muted")}),)
    add_fieldsets = BaseUserAdmin.add_fieldsets + (("Player", {"fields": ("display_name",)}),)
    actions = ["mute", "unmute", "ban", "unban"]

    @admin.action(description="Mute selected users (no chat)")
    def mute(self, request, queryset):
        queryset.update(is_muted=True)

    @admin.action(description="Unmute selected users")
    def unmute(self, request, queryset):
        queryset.update(is_muted=False)

    @admin.action(description="Ban selected users (deactivate)")
    def ban(self, request, queryset):
        queryset.update(is_active=False)

    @admin.action(description="Unban selected users")
    def unban(self, request, queryset):
        queryset.update(is_active=True)
