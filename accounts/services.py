"""Account services: guest creation, registration (a guest upgrades in place), login, logout.

Each returns the user and its token key; errors are :class:`config.errors.ApiError` or DRF validation
errors in the API.md shape.
"""

import secrets

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from rest_framework import serializers
from rest_framework.authtoken.models import Token

from accounts.models import User
from config.errors import ApiError


def _token_for(user: User) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


@transaction.atomic
def user_create_guest(*, display_name: str) -> tuple[User, str]:
    """Create a guest: a generated ``guest-…`` username, no usable password. Returns (user, token key)."""
    user = User(username=f"guest-{secrets.token_hex(6)}", display_name=display_name, is_guest=True)
    user.set_unusable_password()
    user.save()
    return user, _token_for(user)


@transaction.atomic
def user_register(*, username: str, password: str, display_name: str, guest: User | None = None) -> tuple[User, str]:
    """Register ``username``; a guest caller (``guest``) is upgraded in place and keeps its id and token.

    Raises 400 ``invalid`` for a caller already registered (``guest`` not a guest), a taken username or a
    password the validators refuse (AUTH_PASSWORD_VALIDATORS).
    """
    if guest is not None and not guest.is_guest:
        raise ApiError("invalid", "Already registered; log out to register another account.", 400)
    if User.objects.filter(username__iexact=username).exclude(pk=getattr(guest, "pk", None)).exists():
        raise serializers.ValidationError({"username": ["That username is taken."]})
    user = guest if guest is not None else User(is_guest=False)
    user.username = username
    user.display_name = display_name
    try:
        validate_password(password, user)
    except DjangoValidationError as exc:
        raise serializers.ValidationError({"password": list(exc.messages)}) from exc
    user.set_password(password)
    user.is_guest = False
    user.save()
    return user, _token_for(user)


def user_login(*, username: str, password: str, request=None) -> tuple[User, str]:
    """Check the credentials; returns (user, token key). Raises 400 ``invalid`` on bad credentials."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ApiError("invalid", "Wrong username or password.", 400,
                       fields={"non_field_errors": ["Wrong username or password."]})
    return user, _token_for(user)


def user_logout(*, user: User) -> None:
    """Revoke the user's token: every client using it must sign in again."""
    Token.objects.filter(user=user).delete()
