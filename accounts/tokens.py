"""API tokens stored hashed, with an idle expiry for registered players (docs/moderation.md "Tokens").

A token is 40 random hex characters (160 bits) handed to the client once; the database keeps only its
SHA-256 (:class:`accounts.models.ApiToken`), so nobody — a superuser in the admin, a database dump —
can read one back. A plain hash is enough: the key is random, not a password.

A registered player's token unused for ``TOKEN_IDLE_DAYS`` days (setting, default 30) is over: it answers
401 like a revoked one and is deleted. A guest's token has no idle end: it lives as long as the guest.
Each use moves ``last_used_at`` forward, written at most once per ``TOKEN_TOUCH_SECONDS`` (default 3600)
so the request path does not write on every call.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import ApiToken

KEY_BYTES = 20  # 40 hex characters


def token_digest(key: str) -> str:
    """The stored form of ``key``: its SHA-256, 64 hex characters."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def token_issue(user) -> str:
    """A new token of ``user`` (its other tokens stay valid); returns the key, which is not stored."""
    key = secrets.token_hex(KEY_BYTES)
    ApiToken.objects.create(digest=token_digest(key), user=user)
    return key


def token_expired(token: ApiToken, now: datetime | None = None) -> bool:
    """A registered player's token idle for longer than ``TOKEN_IDLE_DAYS`` (a guest's never is)."""
    if token.user.is_guest:
        return False
    now = now or timezone.now()
    return token.last_used_at < now - timedelta(days=settings.TOKEN_IDLE_DAYS)


def token_seen(token: ApiToken, now: datetime | None = None) -> ApiToken | None:
    """``token`` (with its user) as just used: ``None`` (and the row deleted) when it is over, else the
    token with ``last_used_at`` moved to now when it was older than ``TOKEN_TOUCH_SECONDS``."""
    now = now or timezone.now()
    if token_expired(token, now):
        ApiToken.objects.filter(pk=token.pk).delete()
        return None
    if token.last_used_at < now - timedelta(seconds=settings.TOKEN_TOUCH_SECONDS):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def tokens_revoke(user) -> int:
    """Delete every token of ``user`` (logout). Returns how many."""
    return ApiToken.objects.filter(user=user).delete()[0]
