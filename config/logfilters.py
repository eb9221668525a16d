"""Logging filters."""

import logging
import re

_TOKEN = re.compile(r"(token=)[^&\s\"]+", re.IGNORECASE)


class RedactTokens(logging.Filter):
    """Replace ``token=<key>`` in a record's message and arguments with ``token=***``: a socket URL carries
    the client's token in its query string, and access logs must not keep it. Also drops uvicorn's
    ``color_message`` (the same message with ANSI colour escapes and unredacted arguments), which a JSON
    formatter would print as a field of its own."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.__dict__.pop("color_message", None)
        if isinstance(record.msg, str):
            record.msg = _TOKEN.sub(r"\1***", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_TOKEN.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args)
        return True
