"""Web Push with VAPID (RFC 8291 payload encryption, RFC 8292 VAPID), through ``pywebpush``.

Keys: ``VAPID_PRIVATE_KEY`` (the application server's P-256 private key: PEM, or the base64url raw 32
bytes) and ``VAPID_SUBJECT`` (``mailto:`` or ``https:`` contact sent to push services). When
``VAPID_PRIVATE_KEY`` is empty (development) a key is generated once into ``VAPID_KEY_FILE`` and read
from there afterwards (subscriptions made with it stay valid across restarts). The public key
(``GET /api/push/key``) is the uncompressed point, base64url: the page's ``applicationServerKey``.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.cache import cache
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from notify.models import PushSubscription

log = logging.getLogger(__name__)

PUSH_TTL_SECONDS = 3600  # a push service keeps an undelivered message this long
PUSH_TIMEOUT_SECONDS = 10


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@lru_cache(maxsize=1)
def vapid() -> Vapid02:
    """The server's VAPID key (see the module's docstring)."""
    key = (settings.VAPID_PRIVATE_KEY or "").strip()
    if key:
        return Vapid02.from_pem(key.encode()) if key.startswith("-----") else Vapid02.from_string(private_key=key)
    path = Path(settings.VAPID_KEY_FILE)
    if path.exists():
        return Vapid02.from_file(str(path))
    v = Vapid02()
    v.generate_keys()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(v.private_pem())
    log.warning("VAPID_PRIVATE_KEY is not set: generated a development key in %s", path)
    return v


def public_key() -> str:
    """The VAPID public key, base64url of the uncompressed P-256 point (65 bytes)."""
    return _b64url(vapid().public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))


def push_key(user_id: int) -> str:
    """The cache mark of a user with a push subscription (``notify.services.deliver`` reads it)."""
    return f"push:{user_id}"


def push_forget_if_none(user_id: int) -> None:
    """Drop ``user_id``'s ``push:<id>`` mark when no subscription of theirs is left."""
    if not PushSubscription.objects.filter(user_id=user_id).exists():
        cache.delete(push_key(user_id))


def send(subscription: PushSubscription, payload: dict) -> bool:
    """Encrypt ``payload`` (JSON, aes128gcm) to ``subscription`` and post it to its push service. True if
    accepted; a subscription the service no longer knows (404/410) is deleted; other failures are logged.
    Never raises."""
    try:
        webpush(subscription.info(), data=json.dumps(payload), vapid_private_key=vapid(),
                vapid_claims={"sub": settings.VAPID_SUBJECT}, ttl=PUSH_TTL_SECONDS, timeout=PUSH_TIMEOUT_SECONDS)
        return True
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in (404, 410):
            PushSubscription.objects.filter(pk=subscription.pk).delete()
            push_forget_if_none(subscription.user_id)
        else:
            log.warning("web push to %s failed: %s", subscription.endpoint[:60], exc)
    except Exception:  # noqa: BLE001 - a push service unreachable: the socket and the page remain
        log.warning("web push to %s failed", subscription.endpoint[:60], exc_info=True)
    return False


def push_to_user(user_id: int, payload: dict) -> int:
    """Send ``payload`` to every push subscription of ``user_id``; the count accepted."""
    return sum(send(sub, payload) for sub in PushSubscription.objects.filter(user_id=user_id))
