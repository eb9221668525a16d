"""Ratings per user per game."""

from django.conf import settings
from django.db import models

START_RATING = 1500


class Rating(models.Model):
    """A user's rating in one game: an integer from 1500, and how many rated games of it they played."""

    GAME_CHOICES = [("chinchirorin", "Chinchirorin"), ("chinchon", "Chinchón")]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    rating = models.IntegerField(default=START_RATING)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_unique_user_game")]
        indexes = [models.Index(fields=["game", "-rating"], name="rating_game_rating")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game} {self.rating}"
