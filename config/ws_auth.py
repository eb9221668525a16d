"""WebSocket authentication: ``?token=<key>`` or the session cookie (API.md "WebSocket").

A token-authenticated socket is accepted with or without an Origin header (phone apps send none); a
cookie-authenticated socket must come from an allowed origin (ALLOWED_HOSTS / CSRF_TRUSTED_ORIGINS),
against cross-site WebSocket hijacking. The scope gets ``user``, ``auth`` (``"token"``, ``"session"``
or ``None``) and, for a token socket, ``token_key``: the consumer checks on every message that the token
still exists (not revoked by logout) and that the user's standing allows play (banned and suspended users
are authenticated here, and refused by the consumer with their own close code).
"""

from urllib.parse import parse_qs, urlparse

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser


@database_sync_to_async
def user_for_token(key: str):
    """The user owning token ``key`` (whatever their standing), or ``AnonymousUser``."""
    from rest_framework.authtoken.models import Token

    if "\x00" in key or len(key) > 64:  # PostgreSQL refuses NUL in text: no such token either way
        return AnonymousUser()
    try:
        token = Token.objects.select_related("user").get(key=key)
    except (Token.DoesNotExist, ValueError):
        return AnonymousUser()
    return token.user


def allowed_origins() -> list[str]:
    """Origins a cookie-authenticated socket may come from."""
    hosts = [h for h in settings.ALLOWED_HOSTS]
    hosts += [urlparse(o).netloc or o for o in settings.CSRF_TRUSTED_ORIGINS]
    return hosts or ["localhost"]


class TokenAuthMiddleware:
    """Authenticate by ``?token=``; otherwise fall back to the session (cookie) with origin checking."""

    def __init__(self, inner):
        self.inner = inner
        self.session_app = AuthMiddlewareStack(OriginValidator(_MarkSession(inner), allowed_origins()))

    async def __call__(self, scope, receive, send):
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        key = (query.get("token") or [None])[0]
        if key:
            user = await user_for_token(key)
            auth = "token" if user.is_authenticated else None
            scope = dict(scope, user=user, auth=auth, token_key=key if auth else None)
            return await self.inner(scope, receive, send)
        return await self.session_app(scope, receive, send)


class _MarkSession:
    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        user = scope.get("user")
        auth = "session" if user is not None and user.is_authenticated else None
        return await self.inner(dict(scope, auth=auth), receive, send)


def WebsocketAuthStack(inner):  # noqa: N802 (a middleware stack, named like Channels' own)
    """The socket auth stack for the router ``inner``."""
    return TokenAuthMiddleware(inner)
