"""DRF authentication that tells a sanctioned user why (API.md "Errors"): a valid token of a banned
user answers ``403 banned``, of a suspended one ``403 suspended`` with ``until``; 401
``authentication_failed`` is kept for tokens that do not exist (never issued, revoked by logout, or a
registered player's token idle past ``TOKEN_IDLE_DAYS``: ``accounts.tokens``).
Checking the standing reads only the user row the token lookup already joins: no extra query."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from accounts import sanctions  # a module import: sanctions -> config.errors -> DRF settings -> here
from accounts.selectors import token_get


class StandingTokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``; 401 for an unknown key, 403 ``banned``/``suspended`` for a valid
    key of a sanctioned user (``check_standing=False``: accepted whatever the standing, for what a
    sanctioned player may still do: ``POST /api/appeals``, their notices)."""

    def __init__(self, check_standing: bool = True):
        super().__init__()
        self.check_standing = check_standing

    def authenticate_credentials(self, key):
        token = token_get(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if self.check_standing:
            sanctions.user_check_standing(token.user)
        token.sent_key = key  # the key as sent (only its digest is stored): register answers it again
        return token.user, token


class StandingSessionAuthentication(authentication.SessionAuthentication):
    """The session cookie (browsers), with the same standing check as the token."""

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is not None:
            sanctions.user_check_standing(result[0])
        return result


class StandingSessionScheme(OpenApiAuthenticationExtension):
    """The OpenAPI security scheme of :class:`StandingSessionAuthentication` (drf-spectacular matches
    subclasses of the token class by itself, not of the session class)."""

    target_class = "accounts.authentication.StandingSessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
