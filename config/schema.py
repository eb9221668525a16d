"""OpenAPI documentation of the API.md error shape, for ``extend_schema(responses=...)``.

``errors(400, 401, 404)`` gives ``{status: OpenApiResponse(ErrorSerializer, description)}`` to merge into
an operation's responses, so every error answer an endpoint gives is in the schema.

:class:`ApiAutoSchema` (``DEFAULT_SCHEMA_CLASS``) adds by itself the errors the framework answers whatever
the view does: 401 (a bad token, on every operation), 403 (a banned or suspended user's token; CSRF for a
session), 400 ``invalid``/``parse_error`` where there is a body or a query, 404 where the path has
parameters, 413/415 where there is a body, 429 where the view throttles, 503 ``unavailable`` (a database or
Redis outage, or a server process whose request slots stayed full). A view documents its own
(409s, a specific 403 or 400) with :func:`errors`; what it declares is kept.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """API.md "Errors": ``{"code", "detail", "fields"?}`` (a ``stale_seq`` adds ``seq`` and ``view``; a
    ``throttled`` adds ``retry_after``)."""

    code = serializers.CharField(help_text="A code of API.md's error table (the same in every language).")
    detail = serializers.CharField(help_text="Human text, in the request's language (Accept-Language).")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                   help_text="Per-field messages, e.g. {\"rules.pinzoro_multiplier\": [...]}.")


ACCEPT_LANGUAGE = OpenApiParameter(
    "Accept-Language", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="en, es or ja: the language of the texts (labels, descriptions, details); ids and codes "
                "are the same in every language.")

_DESCRIPTIONS = {
    400: "invalid / parse_error (bad field or malformed JSON)",
    401: "not_authenticated / authentication_failed",
    403: "not allowed for the caller (code names why)",
    404: "not_found",
    409: "conflict with the current state (code names it)",
    413: "too_large",
    415: "unsupported_media_type",
    429: "throttled (Retry-After)",
    503: "unavailable: the database or Redis is briefly unreachable, or the server is saturated (Retry-After)",
}


def errors(*statuses: int, **described: str) -> dict:
    """``{status: OpenApiResponse(ErrorSerializer)}`` for each of ``statuses``; ``described`` overrides a
    description by status (``s409="already_started / room_full"``)."""
    out = {}
    for status in statuses:
        text = described.get(f"s{status}", _DESCRIPTIONS.get(status, "error"))
        out[status] = OpenApiResponse(ErrorSerializer, description=text)
    return out


BODY_METHODS = ("POST", "PUT", "PATCH")


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema plus the framework's own error answers (see the module docstring)."""

    def _framework_errors(self) -> list[int]:
        out = [401, 403, 503]
        has_query = any(p.get("in") == "query" for p in self._get_parameters())
        if self.method in BODY_METHODS:
            out += [400, 413, 415]
        elif has_query:
            out.append(400)
        if "{" in self.path:
            out.append(404)
        throttles = getattr(self.view, "throttle_classes", None) or []
        try:
            throttles = self.view.get_throttles() or throttles
        except Exception:  # a view choosing by request details: its declared classes
            pass
        if throttles:
            out.append(429)
        return sorted(set(out))

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in self._framework_errors():
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=_DESCRIPTIONS[status]), str(status),
                    direction=direction)
        return responses
