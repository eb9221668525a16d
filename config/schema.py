"""OpenAPI documentation of the API.md error shape, for ``extend_schema(responses=...)``.

``errors(400, 401, 404)`` gives ``{status: OpenApiResponse(ErrorSerializer, description)}`` to merge into
an operation's responses, so every error answer an endpoint gives is in the schema.
"""

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
}


def errors(*statuses: int, **described: str) -> dict:
    """``{status: OpenApiResponse(ErrorSerializer)}`` for each of ``statuses``; ``described`` overrides a
    description by status (``s409="already_started / room_full"``)."""
    out = {}
    for status in statuses:
        text = described.get(f"s{status}", _DESCRIPTIONS.get(status, "error"))
        out[status] = OpenApiResponse(ErrorSerializer, description=text)
    return out
