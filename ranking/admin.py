"""Admin of ranking: ratings and rating changes (read-only; a superuser with ``ranking.adjust_rating``
adjusts a rating through ``ranking.services.rating_adjust``, which writes a rating change row with its
reason), friendships and requests, the queue, game records and achievement awards."""

from django import forms
from django.contrib import admin
from django.urls import path, reverse

from moderation.admin_tools import ReadOnlyAdmin, ReasonForm, action_page
from ranking import services
from ranking.models import (
    AchievementAward,
    FriendRequest,
    Friendship,
    GameRecord,
    QueueEntry,
    Rating,
    RatingChange,
)


class AdjustForm(ReasonForm):
    """Rating points to add (negative: remove), and why."""

    amount = forms.IntegerField(min_value=-services.ADJUST_MAX, max_value=services.ADJUST_MAX,
                                help_text=f"Rating points, ±1..{services.ADJUST_MAX} (negative lowers it).")

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError("Adjust by at least one point.")
        return amount


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    """Ratings, read-only; "Adjust rating" on a rating's page for those with ``ranking.adjust_rating``."""

    list_display = ["user", "game", "rating", "games", "updated_at"]
    list_filter = ["game"]
    search_fields = ["user__username", "user__display_name"]
    ordering = ["game", "-rating"]
    list_select_related = ["user"]
    change_form_template = "moderation/change_form.html"

    def get_urls(self):
        return [path("<int:pk>/adjust/", self.admin_site.admin_view(self.adjust_view),
                     name="ranking_rating_adjust")] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        tools = []
        if request.user.has_perm("ranking.adjust_rating") and str(object_id).isdigit():
            tools = [{"url": reverse("admin:ranking_rating_adjust", args=[object_id]), "label": "Adjust rating"}]
        context = {"moderation_tools": tools, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context=context)

    def adjust_view(self, request, pk):
        rating = self.get_object(request, str(pk))
        if rating is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, str(pk))

        def perform(data):
            change = services.rating_adjust(user=rating.user, game=rating.game, amount=data["amount"],
                                            reason=data["reason"], by=request.user)
            return f"{rating.user}: {rating.game} rating {change.before} → {change.after}."

        return action_page(self, request, obj=rating, permission="ranking.adjust_rating", title="Adjust rating",
                           perform=perform, form_class=AdjustForm,
                           intro=f"{rating.user}: {rating.game} rating {rating.rating}. The change shows in "
                           "the player's rating history with its reason.")


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "game_name", "seat", "place", "before", "after", "change", "k", "reason",
                    "adjusted_by", "created_at"]
    list_filter = ["game_name", "k", ("game", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "user__display_name", "game__id"]
    list_select_related = ["user", "adjusted_by"]
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
