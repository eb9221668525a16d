"""The reports throttle: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["report"]`` (``THROTTLE_REPORT``,
default ``10/hour``) per user."""

from rest_framework.throttling import UserRateThrottle


class ReportThrottle(UserRateThrottle):
    """At most ``n`` reports per period per signed-in user."""

    scope = "report"
