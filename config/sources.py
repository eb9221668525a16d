"""Readers the apps provide to config's health check and metrics, registered from their
``AppConfig.ready()`` (config sits below every app and imports none of them).

Known names (each a function of no argument):

- ``sweep_heartbeat_at`` -> ``datetime | None``: when the timers' sweeper last ran (games);
- ``games_in_progress`` -> ``{game kind: count}``: games playing now, every kind present (games).

:func:`read` raises ``LookupError`` for a reader nobody provided; callers report that as down/empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_READERS: dict[str, Callable[[], Any]] = {}


def provide(name: str, reader: Callable[[], Any]) -> None:
    """Register ``reader`` under ``name`` (a second call replaces it)."""
    _READERS[name] = reader


def read(name: str) -> Any:
    """What the reader registered under ``name`` returns; ``LookupError`` if there is none."""
    try:
        reader = _READERS[name]
    except KeyError:
        raise LookupError(f"no reader provided for {name!r}") from None
    return reader()
