"""django-axes restricted to the admin's login form.

The API login (``POST /api/auth/login``) has its own DRF throttle and answers tokens; axes must neither
lock it nor record it. :class:`AdminLoginAxesBackend` checks a lockout only when Django passes a request
(the test client's ``login()`` and management commands pass none), and with ``AXES_ONLY_ADMIN_SITE`` only
for admin paths; :class:`AdminLoginAxesHandler` records failures and resets only for admin paths.
"""

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler


class AdminLoginAxesBackend(AxesStandaloneBackend):
    """Axes' lockout check, skipped for ``authenticate()`` calls without a request."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class AdminLoginAxesHandler(AxesDatabaseHandler):
    """Axes' database handler that ignores logins outside the admin (the API's, a socket's)."""

    def _admin(self, request) -> bool:
        return request is not None and self.is_admin_request(request)

    def user_login_failed(self, sender, credentials, request=None, **kwargs):
        if self._admin(request):
            return super().user_login_failed(sender, credentials, request, **kwargs)
        return None

    def user_logged_in(self, sender, request, user, **kwargs):
        if self._admin(request):
            return super().user_logged_in(sender, request, user, **kwargs)
        return None

    def user_logged_out(self, sender, request, user, **kwargs):
        if self._admin(request):
            return super().user_logged_out(sender, request, user, **kwargs)
        return None
