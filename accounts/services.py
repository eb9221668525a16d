"""Account services: guest creation, registration (a guest upgrades in place), login, logout.

Each returns the user and its token key; errors are :class:`config.errors.ApiError` or DRF validation
errors in the API.md shape. Registration is race-safe on PostgreSQL: the username is unique regardless
of case by a database constraint (``accounts_user_username_ci_unique``), a guest's row is locked for its
upgrade, and an ``IntegrityError`` from a concurrent request answers the same 400 as the sequential case.
"""

import secrets

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop
from rest_framework import serializers

from accounts.models import Trace, User
from accounts.sanctions import CLOSE_SIGNED_OUT, ip_check, user_check_standing, user_sockets_close_on_commit
from accounts.tokens import token_issue, tokens_revoke
from accounts.traces import device_check, trace_record
from config.errors import ApiError

USERNAME_TAKEN = "That username is taken."


def _token_for(user: User) -> str:
    return token_issue(user)


@transaction.atomic
def user_create_guest(*, display_name: str, address: str | None = None, device: str = "") -> tuple[User, str]:
    """Create a guest: a generated ``guest-…`` username, no usable password. Returns (user, token key).

    ``address``: the client's IP; raises 403 ``address_blocked`` when it lies in an IP block in force.
    ``device``: the page's device id; raises 403 ``device_blocked`` when a guest of that device is banned
    or suspended (``accounts.traces``). Both are kept as a trace."""
    ip_check(address)
    device_check(device)
    user = User(username=f"guest-{secrets.token_hex(6)}", display_name=display_name, is_guest=True)
    user.set_unusable_password()
    user.save()
    trace_record(user=user, kind=Trace.GUEST, address=address, device=device)
    return user, _token_for(user)


def _taken() -> serializers.ValidationError:
    return serializers.ValidationError({"username": [USERNAME_TAKEN]})


@transaction.atomic
def user_register(*, username: str, password: str, display_name: str, guest: User | None = None,
                  address: str | None = None, guest_token: str | None = None,
                  device: str = "") -> tuple[User, str]:
    """Register ``username``; a guest caller (``guest``) is upgraded in place and keeps its id and token
    (``guest_token``, the key it sent; answered again; a new token when it came by its session).

    The guest's row is locked (``select_for_update``) for the upgrade, so one guest registering twice at
    once gets one account and one 400. Raises 403 ``address_blocked`` (``address`` in an IP block), 400
    ``invalid`` for a caller already registered, a username taken in any case (``Case123`` vs
    ``case123``; also when a concurrent request took it first: the constraint's ``IntegrityError`` is that
    same 400) or a password the validators refuse (AUTH_PASSWORD_VALIDATORS).
    """
    ip_check(address)
    if guest is not None:
        guest = User.objects.select_for_update().filter(pk=guest.pk).first()
        if guest is None or not guest.is_guest:
            raise ApiError("invalid", "Already registered; log out to register another account.", 400)
    if User.objects.filter(username__iexact=username).exclude(pk=getattr(guest, "pk", None)).exists():
        raise _taken()
    user = guest if guest is not None else User(is_guest=False)
    user.username = username
    user.display_name = display_name
    try:
        validate_password(password, user)
    except DjangoValidationError as exc:
        raise serializers.ValidationError({"password": list(exc.messages)}) from exc
    user.set_password(password)
    user.is_guest = False
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as exc:  # a concurrent registration took the username first
        raise _taken() from exc
    trace_record(user=user, kind=Trace.REGISTER, address=address, device=device)
    return user, guest_token if guest is not None and guest_token else _token_for(user)


def user_login(*, username: str, password: str, request=None, address: str | None = None,
               device: str = "") -> tuple[User, str]:
    """Check the credentials; returns (user, token key). Raises 403 ``address_blocked`` (``address`` in an
    IP block in force), 400 ``invalid`` on bad credentials, 403 ``banned`` / ``suspended`` (with
    ``until``) for the right credentials of a sanctioned user. The address and device are kept as a
    trace (``accounts.traces``)."""
    ip_check(address, gettext_noop("Logins from your network are blocked."))
    # Usernames are unique whatever their case (a database constraint): log in by the stored spelling.
    stored = User.objects.filter(username__iexact=username).values_list("username", flat=True).first()
    username = stored or username
    user = authenticate(request, username=username, password=password)
    if user is None:
        inactive = User.objects.filter(username=username, is_active=False).first()
        if inactive is not None and inactive.check_password(password):
            user_check_standing(inactive)
        raise ApiError("invalid", "Wrong username or password.", 400,
                       fields={"non_field_errors": ["Wrong username or password."]})
    user_check_standing(user)
    trace_record(user=user, kind=Trace.LOGIN, address=address, device=device)
    return user, _token_for(user)


@transaction.atomic
def user_logout(*, user: User) -> None:
    """Revoke the user's tokens: every client using one must sign in again, and every open socket of the
    user is closed with 4401 (group ``user-<id>``) once this commits."""
    tokens_revoke(user)
    user_sockets_close_on_commit(user.pk, CLOSE_SIGNED_OUT, None)
