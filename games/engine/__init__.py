"""The pure rules library: standard library only, no Django, Celery or Channels.

Each game is a module exposing the functions of :class:`games.engine.base.GameEngine`; the registry
(:mod:`games.engine.registry`) maps a game name to it.
"""
