"""WebSocket authentication: ``?token=<key>`` or the session cookie (API.md "WebSocket").

A token-authenticated socket is accepted without an Origin header (phone apps send none) or, from a
browser, from an origin the REST API serves too: the service's own hosts (ALLOWED_HOSTS),
CSRF_TRUSTED_ORIGINS or CORS_ALLOWED_ORIGINS (a page on any other site is refused at the handshake, as
CORS refuses its API calls). A cookie-authenticated socket must come from the service's own hosts or
CSRF_TRUSTED_ORIGINS (cookies never cross sites), against cross-site WebSocket hijacking. The scope gets
``user``, ``auth`` (``"token"``, ``"session"`` or ``None``) and, for a token socket, ``token_key``: the
consumer checks on every message that the token still exists (not revoked by logout) and that the user's
standing allows play (banned and suspended users are authenticated here, and refused by the consumer with
their own close code).
"""

from urllib.parse import parse_qs, urlparse

from channels.auth import AuthMiddlewareStack
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from accounts.selectors import token_get
from config.asyncdb import db_call


@db_call
def user_for_token(key: str):
    """The user owning token ``key`` (whatever their standing), or ``AnonymousUser``."""
    token = token_get(key)
    return AnonymousUser() if token is None else token.user


def allowed_origins() -> list[str]:
    """Origins a cookie-authenticated socket may come from (host patterns, any scheme and port)."""
    hosts = [h for h in settings.ALLOWED_HOSTS]
    hosts += [urlparse(o).netloc or o for o in settings.CSRF_TRUSTED_ORIGINS]
    return hosts or ["localhost"]


def token_origins() -> list[str]:
    """Origins a token-authenticated browser socket may come from: the cookie ones and the CORS ones
    (``scheme://host[:port]``, matched exactly)."""
    return allowed_origins() + list(getattr(settings, "CORS_ALLOWED_ORIGINS", []))


class OriginIfSent(OriginValidator):
    """The origin check of a token socket: no Origin header (an app) passes; a browser's Origin must be
    one of :func:`token_origins` (read at each handshake)."""

    def __init__(self, application):
        super().__init__(application, [])

    def valid_origin(self, parsed_origin):
        return parsed_origin is None or any(
            pattern == "*" or self.match_allowed_origin(parsed_origin, pattern) for pattern in token_origins())


class TokenAuthMiddleware:
    """Authenticate by ``?token=``; otherwise fall back to the session (cookie) with origin checking."""

    def __init__(self, inner):
        self.inner = inner
        self.token_app = OriginIfSent(inner)
        self.session_app = AuthMiddlewareStack(OriginValidator(_MarkSession(inner), allowed_origins()))

    async def __call__(self, scope, receive, send):
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        key = (query.get("token") or [None])[0]
        if key:
            user = await user_for_token(key)
            auth = "token" if user.is_authenticated else None
            scope = dict(scope, user=user, auth=auth, token_key=key if auth else None)
            return await self.token_app(scope, receive, send)
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
