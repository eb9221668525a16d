"""Production settings: a real SECRET_KEY is required and DEBUG must be off; secure cookies.

``INSECURE_COOKIES=true`` (a trial on a LAN over plain HTTP, never on the internet) drops the Secure flag
from the session and CSRF cookies (``SESSION_COOKIE_SECURE`` / ``CSRF_COOKIE_SECURE`` set each alone);
while either cookie is not Secure, every process logs a WARNING at start (``STARTUP_WARNINGS``,
``config.apps``). docs/operations-deploy.md "TLS".

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
INSECURE_COOKIES = env.bool("INSECURE_COOKIES", default=False)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not INSECURE_COOKIES)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not INSECURE_COOKIES)
STARTUP_WARNINGS = [
    f"{name} is off: the cookie travels over plain HTTP, where anyone on the network can read it. For a "
    "trial on a LAN only; serve over HTTPS (the compose proxy) and unset INSECURE_COOKIES."
    for name, secure in (("SESSION_COOKIE_SECURE", SESSION_COOKIE_SECURE), ("CSRF_COOKIE_SECURE", CSRF_COOKIE_SECURE))
    if not secure
]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
STATIC_ROOT = env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
