"""The reports throttle: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["report"]`` (``THROTTLE_REPORT``,
default ``10/hour``) per user."""

from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle

from config.throttling import SlidingWindowThrottleMixin


class ReportThrottle(SlidingWindowThrottleMixin, UserRateThrottle):
    """At most ``n`` reports per period per signed-in user (the rate is read on each request); reports
    sent at once counted exactly, without a lock (:mod:`config.throttling`)."""

    scope = "report"

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
