"""Reads of accounts (no writes)."""

from django.db import connection
from rest_framework.authtoken.models import Token

from config.compiled import CompiledQuery, Param

TOKEN_KEY_MAX = 64

_KEY = Param("key", 1)
# Every authenticated request and every socket action reads its token: on PostgreSQL the SQL is compiled
# once per process (config.compiled).
_TOKEN_READ = CompiledQuery(lambda: Token.objects.filter(key=str(_KEY)).select_related("user"), [_KEY])


def token_key_valid(key) -> bool:
    """Whether ``key`` can be a token's key: text without NUL (PostgreSQL refuses it) of at most
    ``TOKEN_KEY_MAX`` characters. Any other key is no token's, and is answered without a query."""
    return isinstance(key, str) and "\x00" not in key and len(key) <= TOKEN_KEY_MAX


def token_get(key: str) -> Token | None:
    """The token ``key`` with its user loaded (one query), or ``None`` for a key no token has (a key with a
    NUL, which PostgreSQL refuses in text, or longer than ``TOKEN_KEY_MAX``: ``None`` without a query)."""
    if not token_key_valid(key):
        return None
    if connection.vendor == "postgresql":
        rows = _TOKEN_READ.run(key=key)
        return rows[0] if rows else None
    return Token.objects.select_related("user").filter(key=key).first()
