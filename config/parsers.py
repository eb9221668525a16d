"""Client JSON, parsed strictly (HTTP bodies and WebSocket messages alike).

Python's ``json`` accepts what cannot be stored or answered: lone surrogates (``"\\ud800"``: PostgreSQL
and the UTF-8 response encoder both fail on them), numbers beyond a float (``1e999`` becomes ``inf``)
and nesting deep enough to exhaust the interpreter's stack (``RecursionError``). :func:`loads_strict`
refuses all three with ``ValueError``, so they are a 400 ``parse_error`` like any malformed JSON.
"""

import codecs
import json
import math
from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import parsers
from rest_framework.exceptions import ParseError


def _constant(name: str):
    raise ValueError(f"Out of range float values are not JSON compliant: {name!r}")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"Number out of range: {text[:32]!r}")
    return value


def check_text(data: Any) -> Any:
    """``data`` if every string in it (keys included) is valid Unicode; else ``ValueError``.
    Iterative: a value nested as deep as the decoder allowed does not exhaust the stack here."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError("Invalid Unicode (a lone surrogate) in a string.") from exc
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return data


def loads_strict(text: str | bytes | bytearray) -> Any:
    """Parse client JSON; ``ValueError`` (with a message for the client) for anything malformed, non-finite
    numbers, lone surrogates or nesting too deep."""
    try:
        data = json.loads(text, parse_constant=_constant, parse_float=_float)
    except RecursionError as exc:
        raise ValueError("Nested too deeply.") from exc
    return check_text(data)


class StrictJSONParser(parsers.JSONParser):
    """DRF's JSON parser with :func:`loads_strict`: every refusal is a 400 ``parse_error``."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.getreader(encoding)(stream).read()
            return loads_strict(text)
        except ValueError as exc:  # UnicodeDecodeError included
            raise ParseError(f"{gettext('Malformed request.')} {exc}") from exc
