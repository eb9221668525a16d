"""Serializers of the Accounts API (API.md "Accounts")."""

from rest_framework import serializers

from accounts import hooks
from accounts.models import DISPLAY_NAME_MAX
from config.textpolicy import PolicyTextField


# A plain Serializer with its fields spelled out, not a ModelSerializer: this shape is built inside every
# ``room`` message and most answers, and a ModelSerializer derives its fields from the model afresh at every
# use (about 0.5 ms each; bench/README.md "Room messages"). The same holds for rooms.serializers' Seat and Room.
class UserSerializer(serializers.Serializer):
    """``user``: ``{id, username, display_name, is_guest}``."""

    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True,
                                     help_text="Unique regardless of case; a guest has a generated `guest-…` one.")
    display_name = serializers.CharField(read_only=True)
    is_guest = serializers.BooleanField(read_only=True)


class DisplayNameField(PolicyTextField):
    """A display name under the text policy (``config.textpolicy``): NFC, trimmed, 1–32 grapheme clusters,
    no control, format, bidi, private-use or unassigned characters, not blank, at most 3 combining marks per
    character, not ending in `` #<number>`` (the suffix that tells look-alike names apart in a room)."""

    def __init__(self, **kwargs):
        super().__init__(max_length=DISPLAY_NAME_MAX, reserved_suffix=True, **kwargs)


class GuestSerializer(serializers.Serializer):
    """Body of ``POST /api/auth/guest``."""

    display_name = DisplayNameField()


class RegisterSerializer(serializers.Serializer):
    """Body of ``POST /api/auth/register``."""

    username = serializers.RegexField(r"^[\w.@+-]+\Z", max_length=150, min_length=3,
                                      error_messages={"invalid": "Letters, digits and @/./+/-/_ only."})
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)
    display_name = DisplayNameField()

    def validate_username(self, value: str) -> str:
        if value.lower().startswith("guest-"):
            raise serializers.ValidationError("Usernames starting with 'guest-' are reserved.")
        return value


class LoginSerializer(serializers.Serializer):
    """Body of ``POST /api/auth/login``."""

    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


class AuthAnswerSerializer(serializers.Serializer):
    """``{user, token}``."""

    user = UserSerializer()
    token = serializers.CharField()


class RatingSummarySerializer(serializers.Serializer):
    """One game's rating: ``{rating, games}``."""

    rating = serializers.IntegerField()
    games = serializers.IntegerField()


class MeSerializer(UserSerializer):
    """``GET /api/me``: ``user`` + ``ratings: {"chinchirorin": {rating, games}, "chinchon": {...}}``."""

    ratings = serializers.SerializerMethodField()

    def get_ratings(self, user) -> dict[str, dict[str, int]]:
        return hooks.ratings_for(user)
