"""Game name -> engine module."""

from importlib import import_module
from types import ModuleType

GAMES = ("chinchirorin", "chinchon")


def get_engine(name: str) -> ModuleType:
    """Return the engine module for ``name``; raises ``KeyError`` for an unknown game."""
    if name not in GAMES:
        raise KeyError(name)
    return import_module(f"games.engine.{name}")
