"""Tokens never reach the logs."""

import logging

from config.logfilters import RedactTokens


def test_tokens_in_access_log_lines_are_redacted():
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/ws/rooms/ABC234/?token=0123abcd&x=1", "1.1", 101), None)
    assert RedactTokens().filter(record) is True
    assert record.getMessage() == '127.0.0.1:5 - "GET /ws/rooms/ABC234/?token=***&x=1 HTTP/1.1" 101'


def test_token_in_a_plain_message_is_redacted():
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, "path /ws/?TOKEN=secret failed", (), None)
    RedactTokens().filter(record)
    assert record.getMessage() == "path /ws/?TOKEN=*** failed"
