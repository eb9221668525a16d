"""Checks production settings run on their values (config/settings/production.py)."""

import json

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


ICE_URL_SCHEMES = ("stun:", "stuns:", "turn:", "turns:")


def parse_ice_servers(text: str) -> list[dict]:
    """``VOICE_ICE_SERVERS``: a JSON list of WebRTC ``RTCIceServer`` objects, ``[{"urls": "stun:host:3478"
    | [...], "username"?: str, "credential"?: str}]`` (``"[]"`` or empty: none, host candidates only).
    Raises ``ImproperlyConfigured`` naming what is wrong."""
    if not text.strip():
        return []
    try:
        servers = json.loads(text)
    except ValueError as exc:
        raise ImproperlyConfigured(f"VOICE_ICE_SERVERS is not JSON: {exc}") from exc
    if not isinstance(servers, list):
        raise ImproperlyConfigured("VOICE_ICE_SERVERS must be a JSON list of {urls, username?, credential?}.")
    out = []
    for i, server in enumerate(servers):
        if not isinstance(server, dict) or set(server) - {"urls", "username", "credential"}:
            raise ImproperlyConfigured(f"VOICE_ICE_SERVERS[{i}] must be an object with urls, username?, credential?.")
        urls = server.get("urls")
        urls = [urls] if isinstance(urls, str) else urls
        if not urls or not isinstance(urls, list) or not all(
                isinstance(u, str) and u.startswith(ICE_URL_SCHEMES) for u in urls):
            raise ImproperlyConfigured(f"VOICE_ICE_SERVERS[{i}].urls: stun:, stuns:, turn: or turns: URLs.")
        if not all(isinstance(server.get(k, ""), str) for k in ("username", "credential")):
            raise ImproperlyConfigured(f"VOICE_ICE_SERVERS[{i}]: username and credential are strings.")
        out.append(server)
    return out
