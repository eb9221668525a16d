"""Throttles of the Accounts API: guest creation and registration per client address, login per address."""

from rest_framework.throttling import SimpleRateThrottle

from config.throttling import SlidingWindowThrottleMixin


class _AddressThrottle(SlidingWindowThrottleMixin, SimpleRateThrottle):
    """Per client address; concurrent attempts counted exactly, without a lock
    (:mod:`config.throttling`)."""

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class GuestCreateThrottle(_AddressThrottle):
    """``THROTTLE_GUEST`` (default 30/min) guests per client address."""

    scope = "guest"


class RegisterThrottle(_AddressThrottle):
    """``THROTTLE_REGISTER`` registrations per client address."""

    scope = "register"


class LoginThrottle(_AddressThrottle):
    """``THROTTLE_LOGIN`` (default 10/min) login attempts per client address."""

    scope = "login"
