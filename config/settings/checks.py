"""Checks production settings run on their values (config/settings/production.py)."""

from django.core.exceptions import ImproperlyConfigured

DEVELOPMENT_KEYS = {
    "insecure-development-key-change-me",  # base.py's default
    "test-secret-key",  # config/settings/test.py
    "change-me-to-a-long-random-string",  # .env.example
}
SECRET_KEY_MIN_LENGTH = 32


def check_secret_key(key: str) -> None:
    """Raise ``ImproperlyConfigured`` if ``key`` is empty or a development key (see the module docstring)."""
    if not key:
        raise ImproperlyConfigured("SECRET_KEY is required in production (e.g. python -c "
                                   "'import secrets; print(secrets.token_urlsafe(50))').")
    if (key in DEVELOPMENT_KEYS or key.startswith("django-insecure-") or len(key) < SECRET_KEY_MIN_LENGTH
            or len(set(key)) < 5):
        raise ImproperlyConfigured("SECRET_KEY is a development key (a known placeholder, or shorter than "
                                   f"{SECRET_KEY_MIN_LENGTH} characters): set a long random one in production.")
