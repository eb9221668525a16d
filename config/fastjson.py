"""JSON text on the action path, through orjson (C; a seat's ``game`` message of about 2 KB encodes in
4 µs against 30 µs with the standard library's ``json``, whose encoder came out above building the
seats' views in a profile of the server: bench/README.md "Server").

The text is the same JSON value as ``json.dumps`` gives for what these paths carry (strings, integers,
floats, booleans, null, lists and dicts; object keys in the same order; non-string keys made strings, as
``json`` does), written compactly and in UTF-8 (``json`` escapes non-ASCII as ``\\uXXXX`` and puts a
space after ``,`` and ``:``): any JSON parser reads the same data. Differences for other values: a NaN or
infinite float becomes ``null`` (``json`` writes ``NaN``, which no JSON parser and no ``jsonb`` column
takes); a UUID or an Enum is encoded (``json`` raises). A datetime or a dataclass is passed to ``json``,
which raises ``TypeError`` as before, as it does for anything orjson refuses that ``json`` cannot encode
either (an integer beyond 64 bits it does encode). A circular reference raises ``ValueError``."""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def dumps_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON bytes (see the module). Raises ``TypeError`` for a value neither orjson nor
    ``json.dumps`` can encode, ``ValueError`` for a circular reference."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(value).encode()


def dumps(value: Any) -> str:
    """``value`` as JSON text (:func:`dumps_bytes`, decoded); raises as it does."""
    return dumps_bytes(value).decode()
