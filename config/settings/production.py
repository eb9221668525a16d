"""Production settings: a real SECRET_KEY is required and DEBUG must be off; secure cookies.

Refuses to start (``ImproperlyConfigured``) with no SECRET_KEY, with a development key (the local default,
the test key, ``.env.example``'s placeholder, any ``django-insecure-`` key, or one shorter than 32
characters or with fewer than 5 distinct characters), or with ``DEBUG=true``.
"""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR, env
from config.settings.checks import check_secret_key

SECRET_KEY = env("SECRET_KEY", default="")
check_secret_key(SECRET_KEY)
DEBUG = env.bool("DEBUG", default=False)
if DEBUG:
    raise ImproperlyConfigured("DEBUG=true is refused with config.settings.production (it shows settings and "
                               "tracebacks to anyone): unset DEBUG or use config.settings.local.")
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
STATIC_ROOT = env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
