"""Times in the API: UTC ISO 8601 with milliseconds and ``Z`` (API.md)."""

from datetime import UTC, datetime

from rest_framework import serializers


def iso_ms(value: datetime | None) -> str | None:
    """``2026-11-29T14:02:54.123Z`` for an aware datetime (converted to UTC); ``None`` stays ``None``."""
    if value is None:
        return None
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


class DateTimeMsField(serializers.DateTimeField):
    """A read-only DRF field that renders :func:`iso_ms`."""

    def to_representation(self, value):
        return iso_ms(value)
