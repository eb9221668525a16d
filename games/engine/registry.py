"""Game name -> engine module."""

import functools
from importlib import import_module
from types import ModuleType

GAMES = ("chinchirorin", "chinchon")


@functools.cache
def get_engine(name: str) -> ModuleType:
    """Return the engine module for ``name``; raises ``KeyError`` for an unknown game. Cached: every
    seat's view of every action asks for it (``import_module`` took a lock and a look-up each time)."""
    if name not in GAMES:
        raise KeyError(name)
    return import_module(f"games.engine.{name}")
