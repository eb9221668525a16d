"""The API.md error shape for every error: ``{"code", "detail", "fields"?}`` (+ extra keys).

:class:`ApiError` carries a specific code (``not_host``, ``stale_seq``...); :func:`exception_handler`
turns DRF's own exceptions (validation, auth, 404, 405, 415, throttling, malformed JSON) into the same
shape. The ``handler*`` views give the shape to errors raised outside DRF.
"""

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.utils.translation import gettext
from django.views.csrf import csrf_failure as django_csrf_failure
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class ApiError(exceptions.APIException):
    """An error with an API.md code.

    ``code``: the table's code (``"not_host"``); ``status``: HTTP status; ``fields``: per-field messages;
    ``extra``: more top-level keys (``seq``/``view`` of a ``stale_seq``).
    """

    def __init__(self, code: str, detail: str, status: int = 400, fields: dict | None = None,
                 extra: dict | None = None):
        super().__init__(detail=detail, code=code)
        self.status_code = status
        self.error_code = code
        self.fields = fields
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        """The response body of this error; ``detail`` in the active language (the request's), when the
        catalogue has it (details are extracted from the ``ApiError`` calls by ``makemessages``)."""
        out: dict[str, Any] = {"code": self.error_code, "detail": gettext(str(self.detail))}
        if self.fields:
            out["fields"] = self.fields
        out.update(self.extra)
        return out


def invalid_field(field: str, message: str) -> ApiError:
    """A 400 ``invalid`` naming one field: ``{"code": "invalid", "detail": "<field>: <message>", "fields":
    {field: [message]}}``; ``message`` in the active language (a message id of the catalogue)."""
    message = gettext(message)
    return ApiError("invalid", f"{field}: {message}", 400, fields={field: [message]})


_STATUS_CODES = {
    status.HTTP_400_BAD_REQUEST: "invalid",
    status.HTTP_401_UNAUTHORIZED: "not_authenticated",
    status.HTTP_403_FORBIDDEN: "permission_denied",
    status.HTTP_404_NOT_FOUND: "not_found",
    status.HTTP_405_METHOD_NOT_ALLOWED: "method_not_allowed",
    status.HTTP_413_REQUEST_ENTITY_TOO_LARGE: "too_large",
    status.HTTP_415_UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
    status.HTTP_429_TOO_MANY_REQUESTS: "throttled",
}


def _flatten(detail: Any) -> Any:
    """DRF ErrorDetail trees -> plain str/list/dict."""
    if isinstance(detail, dict):
        return {str(k): _flatten(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_flatten(v) for v in detail]
    return str(detail)


def validation_body(detail: Any) -> dict[str, Any]:
    """The body of a 400 ``invalid`` from a serializer's errors (``fields`` per field)."""
    flat = _flatten(detail)
    if isinstance(flat, dict):
        non_field = flat.pop("non_field_errors", None)
        text = "; ".join(non_field) if non_field else "Invalid input."
        if flat:
            first = next(iter(flat.items()))
            msg = first[1][0] if isinstance(first[1], list) and first[1] and isinstance(first[1][0], str) else ""
            text = f"{first[0]}: {msg}" if msg and not non_field else text
        body: dict[str, Any] = {"code": "invalid", "detail": text}
        if flat:
            body["fields"] = flat
        return body
    if isinstance(flat, list):
        return {"code": "invalid", "detail": "; ".join(str(x) for x in flat) or "Invalid input."}
    return {"code": "invalid", "detail": str(flat)}


UNAVAILABLE_RETRY_AFTER = 5  # seconds a client waits before retrying a 503 unavailable


UNAVAILABLE_BODY = {"code": "unavailable", "detail": "The service is briefly unavailable; try again shortly.",
                    "retry_after": UNAVAILABLE_RETRY_AFTER}
UNAVAILABLE_HEADERS = {"Retry-After": str(UNAVAILABLE_RETRY_AFTER)}


def unavailable_response():
    """``503 unavailable`` with ``Retry-After`` as a plain Django response, for an answer given outside a
    DRF view (a request that found no request slot in time: ``config.asgi.SlottedASGIHandler``)."""
    return JsonResponse(UNAVAILABLE_BODY, status=503, headers=dict(UNAVAILABLE_HEADERS))


def _outage(exc: Exception) -> bool:
    """The database (or Redis, for the cache and throttles) could not be reached: an outage, not a bug."""
    return isinstance(exc, (OperationalError, InterfaceError, RedisConnectionError, RedisTimeoutError))


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's EXCEPTION_HANDLER: every error in the API.md shape. A database or Redis outage is ``503
    unavailable`` with ``Retry-After`` (the request changed nothing: its transaction did not commit)."""
    if isinstance(exc, ApiError):
        return Response(exc.body(), status=exc.status_code)
    if _outage(exc):
        return Response(dict(UNAVAILABLE_BODY), status=503, headers=dict(UNAVAILABLE_HEADERS))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = validation_body(exc.detail)
        return response
    if isinstance(exc, exceptions.ParseError):
        code = "parse_error"
    elif isinstance(exc, exceptions.AuthenticationFailed):
        code = "authentication_failed"
    elif isinstance(exc, exceptions.NotAuthenticated):
        code = "not_authenticated"
    else:
        code = _STATUS_CODES.get(response.status_code, getattr(exc, "default_code", "error"))
    detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
    body: dict[str, Any] = {"code": code, "detail": str(_flatten(detail))}
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait + 0.999)
    response.data = body
    return response


def _json_error(code: str, detail: str, status_code: int) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status_code)


def handler400(request, exception=None):
    """Django's 400 outside DRF, in the API shape."""
    return _json_error("invalid", gettext("Malformed request."), 400)


def handler403(request, exception=None):
    """Django's 403 outside DRF (CSRF included), in the API shape."""
    return _json_error("permission_denied", gettext("You do not have permission to perform this action."), 403)


def csrf_failure(request, reason=""):
    """``CSRF_FAILURE_VIEW``: a refused CSRF check under /api/ in the API shape (403 ``permission_denied``);
    elsewhere (the admin) Django's own page."""
    if request.path.startswith("/api/"):
        return _json_error("permission_denied", f"CSRF check failed: {reason}" if reason else "CSRF check failed.",
                           403)
    return django_csrf_failure(request, reason=reason)


def handler404(request, exception=None):
    """Unknown URL, in the API shape."""
    return _json_error("not_found", gettext("Not found."), 404)


def handler500(request):
    """Last resort; a request a client can send must never reach it."""
    return _json_error("server_error", "Internal error.", 500)
