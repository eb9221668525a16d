"""JSON text on the action path, through orjson (C; a game's view of about 1.3 KB encodes about ten times
faster than with the standard library's ``json``, whose C encoder came out above building the seats'
views in a profile of the server: bench/README.md "Server").

The text is the same JSON value as ``json.dumps`` gives (object keys in the same order; non-string keys
made strings, as ``json`` does), written compactly and in UTF-8 (``json`` escapes non-ASCII as
``\\uXXXX`` and puts a space after ``,`` and ``:``): any JSON parser reads the same data. What orjson
refuses (an integer beyond 64 bits, ...) falls back to ``json``, which raises ``TypeError`` for what it
cannot encode either."""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON bytes. Raises ``TypeError`` for a value ``json.dumps`` cannot encode."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(value).encode()


def dumps(value: Any) -> str:
    """``value`` as JSON text (:func:`dumps_bytes`, decoded). Raises ``TypeError`` as ``json.dumps``."""
    return dumps_bytes(value).decode()
