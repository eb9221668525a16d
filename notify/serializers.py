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


class PushSubscriptionSerializer(serializers.Serializer):
    """Body of ``POST /api/push/subscriptions``: a browser's ``PushSubscription.toJSON()``, ``{endpoint,
    keys: {p256dh, auth}}`` (other keys, such as ``expirationTime``, are ignored). ``endpoint``: an
    ``https`` URL on a push service host (``PUSH_ENDPOINT_HOSTS``)."""

    endpoint = serializers.URLField(max_length=1000)
    keys = serializers.JSONField(help_text="`p256dh`: the browser's P-256 public key (65 bytes), `auth`: its "
                                           "16-byte secret; both base64url.")

    def validate_keys(self, value):
        p256dh, auth = (value.get("p256dh"), value.get("auth")) if isinstance(value, dict) else (None, None)
        if not isinstance(p256dh, str) or not isinstance(auth, str) or not p256dh or not auth or len(p256dh) > 200 \
                or len(auth) > 100:
            raise serializers.ValidationError(gettext_lazy("Both p256dh and auth are required."))
        raw = _b64url_bytes(p256dh)
        if len(raw) != 65 or raw[0] != 4:
            raise serializers.ValidationError(gettext_lazy("p256dh: not an uncompressed P-256 public key."))
        if len(_b64url_bytes(auth)) != 16:
            raise serializers.ValidationError(gettext_lazy("auth: not a 16-byte secret."))
        return {"p256dh": p256dh, "auth": auth}

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
