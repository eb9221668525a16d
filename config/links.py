"""Links the service hands to clients (a room's ``invite_url``, a friend link): absolute on the address
the service is served at."""

from django.conf import settings


def request_base_url(request) -> str | None:
    """``scheme://host[:port]`` the HTTP ``request`` was made to (its Host checked against ALLOWED_HOSTS),
    or ``None`` without a request."""
    return request.build_absolute_uri("/").rstrip("/") if request is not None else None


def public_link(path: str, base_url: str | None = None) -> str:
    """``path`` (``"/join/ABC234"``) on ``PUBLIC_URL`` when set, else on ``base_url`` (the address the
    request or socket came to, see :func:`request_base_url`), else the path alone."""
    return f"{settings.PUBLIC_URL or base_url or ''}{path}"
