"""Production settings: SECRET_KEY is required; secure cookies; DEBUG off unless set."""

from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR, env

SECRET_KEY = env("SECRET_KEY")  # no default: production refuses to start without one
DEBUG = env.bool("DEBUG", default=False)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
STATIC_ROOT = env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
