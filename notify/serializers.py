"""Bodies and answers of the notify API (docs/party.md)."""

import base64
import binascii
from urllib.parse import urlparse

from django.conf import settings
from django.utils.translation import gettext_lazy
from rest_framework import serializers

MAX_ID = 2**63 - 1


def _b64url_bytes(value: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise serializers.ValidationError(gettext_lazy("Not base64url.")) from exc


class InviteSerializer(serializers.Serializer):
    """Body of ``POST /api/rooms/{code}/invite``: ``{user_id}`` (a friend of the caller)."""

    user_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class InvitedSerializer(serializers.Serializer):
    """``{invited: {id, display_name}, room}``."""

    invited = serializers.DictField()
    room = serializers.CharField()


class PushKeysSerializer(serializers.Serializer):
    """``keys`` of a browser's ``PushSubscription.toJSON()``: ``p256dh`` (65-byte P-256 point), ``auth``
    (16 bytes), both base64url."""

    p256dh = serializers.CharField(max_length=200)
    auth = serializers.CharField(max_length=100)

    def validate_p256dh(self, value):
        raw = _b64url_bytes(value)
        if len(raw) != 65 or raw[0] != 4:
            raise serializers.ValidationError(gettext_lazy("Not an uncompressed P-256 public key."))
        return value

    def validate_auth(self, value):
        if len(_b64url_bytes(value)) != 16:
            raise serializers.ValidationError(gettext_lazy("Not a 16-byte secret."))
        return value


class PushSubscriptionSerializer(serializers.Serializer):
    """Body of ``POST /api/push/subscriptions``: a browser's ``PushSubscription.toJSON()``, ``{endpoint,
    keys: {p256dh, auth}}`` (other keys, such as ``expirationTime``, are ignored). ``endpoint``: an
    ``https`` URL on a push service host (``PUSH_ENDPOINT_HOSTS``)."""

    endpoint = serializers.URLField(max_length=1000)
    keys = PushKeysSerializer()

    def validate_endpoint(self, value):
        url = urlparse(value)
        host = (url.hostname or "").lower()
        hosts = [h.lower() for h in settings.PUSH_ENDPOINT_HOSTS]
        if url.scheme not in settings.PUSH_ENDPOINT_SCHEMES or not any(
                host == h or host.endswith("." + h) for h in hosts):
            raise serializers.ValidationError(gettext_lazy("Not a push service's address."))
        return value


class PushEndpointSerializer(serializers.Serializer):
    """Body of ``DELETE /api/push/subscriptions``: ``{endpoint}``."""

    endpoint = serializers.CharField(max_length=1000)


class PushKeySerializer(serializers.Serializer):
    """``GET /api/push/key``: ``{public_key}``, the VAPID public key (base64url, 65 bytes): the page's
    ``applicationServerKey``."""

    public_key = serializers.CharField()
