"""Reads of accounts (no writes)."""

from django.db import connection

from accounts.models import ApiToken
from accounts.tokens import token_digest, token_seen
from config.compiled import CompiledQuery, Param

TOKEN_KEY_MAX = 64

_KEY = Param("key", 1)
# Every authenticated request and every socket action reads its token: on PostgreSQL the SQL is compiled
# once per process (config.compiled).
_TOKEN_READ = CompiledQuery(lambda: ApiToken.objects.filter(digest=str(_KEY)).select_related("user"), [_KEY])


def token_key_valid(key) -> bool:
    """Whether ``key`` can be a token's key: text without NUL (PostgreSQL refuses it) of at most
    ``TOKEN_KEY_MAX`` characters. Any other key is no token's, and is answered without a query."""
    return isinstance(key, str) and "\x00" not in key and len(key) <= TOKEN_KEY_MAX


def token_get(key: str) -> ApiToken | None:
    """The token whose key is ``key`` (looked up by its digest, ``accounts.tokens``) with its user loaded
    (one query), or ``None`` for a key no token has or a token idle past its end (``accounts.tokens``; a
    key with a NUL, which PostgreSQL refuses in text, or longer than ``TOKEN_KEY_MAX``: ``None`` without a
    query)."""
    if not token_key_valid(key):
        return None
    digest = token_digest(key)
    if connection.vendor == "postgresql":
        rows = _TOKEN_READ.run(key=digest)
        token = rows[0] if rows else None
    else:
        token = ApiToken.objects.select_related("user").filter(digest=digest).first()
    return None if token is None else token_seen(token)
