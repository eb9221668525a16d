"""A browser's Web Push subscription (docs/party.md "Web Push")."""

from django.conf import settings
from django.db import models


class PushSubscription(models.Model):
    """One push subscription of one user's browser: the push service's ``endpoint`` and the browser's keys
    (``p256dh``: its P-256 public key, ``auth``: its 16-byte secret; both base64url). An endpoint belongs
    to one user: subscribing it again moves it to the caller. Deleted when the push service answers 404
    or 410 (the browser dropped it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"push subscription {self.pk} of user {self.user_id}"

    def info(self) -> dict:
        """The ``subscription_info`` pywebpush takes."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
