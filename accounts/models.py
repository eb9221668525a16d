"""The custom User model (from the first migration)."""

from django.contrib.auth.models import AbstractUser
from django.db import models

DISPLAY_NAME_MAX = 32


class User(AbstractUser):
    """A player. A guest (``is_guest``) has only a display name and a token; registering upgrades it in
    place (same id), so its games stay its own.

    ``display_name``: shown at the table, 1–32 characters. ``is_muted``: may not chat (set by admins).
    Banning is Django's ``is_active = False``: a banned user's token stops working.
    """

    display_name = models.CharField(max_length=DISPLAY_NAME_MAX)
    is_guest = models.BooleanField(default=False, db_index=True)
    is_muted = models.BooleanField(default=False, help_text="Muted users cannot send chat messages.")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.display_name} ({self.username})"
