"""Readers that upper apps provide to accounts' views, registered from their ``AppConfig.ready()``
(accounts sits below them and imports none of them).

- ``ratings(user) -> {"<game>": {"rating", "games"}}``: the user's rating per game, shown by
  ``GET /api/me`` (ranking provides it). With nothing registered: ``{}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_ratings: list[Callable[[Any], dict]] = []


def provide_ratings(reader: Callable[[Any], dict]) -> None:
    """Register the ratings reader (a second call replaces it)."""
    _ratings[:] = [reader]


def ratings_for(user) -> dict:
    """The registered reader's answer for ``user``, or ``{}``."""
    return _ratings[0](user) if _ratings else {}
