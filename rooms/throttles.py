"""The chat throttle: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["chat"]`` (default ``5/10s``) per user; the
room look-up throttles of ``/api/rooms/{code}…``: per user and per address (README "Security").

DRF's own rate parser only knows ``n/<unit>``; :class:`ChatThrottle` also reads a multiplied period such
as ``5/10s`` or ``20/2m``. The chat service calls :func:`chat_throttle_check` for REST and WebSocket
messages alike, after the permission checks, so refused requests do not count.
"""

import re

from rest_framework import exceptions
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from config.throttling import SlidingWindowThrottleMixin

_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([a-z]+)\s*$")


def parse_rate(rate: str | None) -> tuple[int | None, int | None]:
    """``"5/10s"`` -> ``(5, 10)`` (requests, seconds); ``"30/min"`` -> ``(30, 60)``; ``None`` -> no limit.

    Raises ``ValueError`` for a rate it cannot read.
    """
    if rate is None:
        return (None, None)
    match = _RATE.match(rate.lower())
    if not match:
        raise ValueError(f"bad throttle rate {rate!r}")
    num, mult, unit = match.groups()
    if unit not in _UNITS and unit[0] in _UNITS:
        unit = unit[0]
    if unit not in _UNITS:
        raise ValueError(f"bad throttle rate {rate!r}")
    return int(num), int(mult or 1) * _UNITS[unit]


class _SettingsRateThrottle(SlidingWindowThrottleMixin, SimpleRateThrottle):
    """A throttle whose rate is read from the settings on each instantiation (``n/<period>``, periods such
    as ``10s`` or ``2m`` too); requests sent at once are counted exactly, without a lock
    (:mod:`config.throttling`)."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def parse_rate(self, rate):
        return parse_rate(rate)


class _PerUser:
    """Keyed by the signed-in user (not throttled without one)."""

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": user.pk}


class ChatThrottle(_PerUser, _SettingsRateThrottle):
    """At most ``n`` chat messages per ``period`` seconds per user (``THROTTLE_CHAT``)."""

    scope = "chat"


class RoomCreateThrottle(_PerUser, _SettingsRateThrottle):
    """``THROTTLE_ROOM_CREATE`` (default ``60/hour``) rooms created per user (``POST /api/rooms``): each
    room lives a day and holds a code, and nothing else capped them (one guest made 30 in a few seconds)."""

    scope = "room_create"


class _UserOnly:
    def __init__(self, user):
        self.user = user


def chat_throttle_check(user) -> None:
    """Count one chat message by ``user``; raises DRF ``Throttled`` (429 ``throttled``, ``Retry-After``
    in whole seconds) when the user already sent the allowed number in the period."""
    throttle = ChatThrottle()
    if not throttle.allow_request(_UserOnly(user), None):
        wait = throttle.wait()
        raise exceptions.Throttled(wait=max(1, int(wait + 0.999)) if wait is not None else None,
                                   detail="Too many chat messages; wait a moment.")


class _RoomLookupBase(_SettingsRateThrottle):
    """Room-code look-ups. On the views' look-up methods (``lookup_methods``: ``GET /api/rooms/{code}``,
    ``POST /api/rooms/{code}/join``) every request counts, look-ups sent at once counted exactly
    (:mod:`config.throttling`); on the other ``/api/rooms/{code}…`` methods
    only the misses count (a 403 or 404, recorded by :class:`RoomCodeThrottled` after the answer), so a
    code cannot be tried there either while players using their own room are never slowed down."""

    def allow_request(self, request, view):
        if request.method in getattr(view, "lookup_methods", ()):
            return super().allow_request(request, view)
        return self.peek(request, view)  # misses only: refuse once the budget is spent, count nothing now

    def record(self, request, view) -> None:
        """Count one miss of ``request``."""
        self.count(request, view)


class RoomLookupUserThrottle(_PerUser, _RoomLookupBase):
    """``THROTTLE_ROOM_LOOKUP`` (default ``30/min``) room-code look-ups per signed-in user."""

    scope = "room_lookup"


class RoomLookupAddressThrottle(_RoomLookupBase):
    """``THROTTLE_ROOM_LOOKUP_ADDRESS`` (default ``120/min``) room-code look-ups per client address (the
    peer, or the one ``NUM_PROXIES`` trusted proxies forwarded): many guests from one address share it."""

    scope = "room_lookup_address"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class RoomCodeThrottled:
    """Mixin of the views under ``/api/rooms/{code}``: the two room look-up throttles; ``lookup_methods``
    (the methods whose every request counts); other methods' 403 and 404 answers count as misses."""

    throttle_classes = [RoomLookupUserThrottle, RoomLookupAddressThrottle]
    lookup_methods: tuple[str, ...] = ()

    def finalize_response(self, request, response, *args, **kwargs):
        if request.method not in self.lookup_methods and response.status_code in (403, 404):
            for throttle in self.get_throttles():
                throttle.record(request, self)
        return super().finalize_response(request, response, *args, **kwargs)
