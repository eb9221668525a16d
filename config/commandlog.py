"""A management command's output as log lines: under ``LOG_FORMAT=json`` a command's ``stdout`` and
``stderr`` become :class:`LoggerStream` s, so what it prints is one JSON object a line like every other
line of the service (``config/management/commands/migrate.py``)."""

import logging

from django.conf import settings


class LoggerStream:
    """A text stream that logs each complete line it is written (``logger`` at ``level``; blank lines
    skipped). A partial line waits for the rest (migrate prints "Applying x..." then " OK"); ``flush``
    keeps it waiting, ``close`` logs it."""

    def __init__(self, logger: logging.Logger, level: int):
        self.logger = logger
        self.level = level
        self._partial = ""

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            if line.strip():
                self.logger.log(self.level, line.rstrip())
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        if self._partial.strip():
            self.logger.log(self.level, self._partial.rstrip())
        self._partial = ""


def command_streams(name: str) -> dict:
    """``execute()`` options that send a command's output to the ``chinchi.command.<name>`` logger
    (stdout at INFO, stderr at ERROR, no colours), or ``{}`` unless ``settings.LOG_FORMAT`` is ``json``."""
    if getattr(settings, "LOG_FORMAT", "plain") != "json":
        return {}
    logger = logging.getLogger(f"chinchi.command.{name}")
    return {"stdout": LoggerStream(logger, logging.INFO), "stderr": LoggerStream(logger, logging.ERROR),
            "no_color": True}
