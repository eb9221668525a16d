"""Standing and sanctions: mute (chat only), suspend (for a period), ban (for good), IP/CIDR blocks.

Every sanction goes through one of these services — the admin, the API and tests alike — and each writes
its record: the :class:`~accounts.models.Sanction` (or :class:`~accounts.models.IpBlock`) row itself (who,
when, what, why, until; who lifted it, when and why) and, through django-auditlog with the moderator as
actor, a log entry for that row and for the user's standing fields.

The user's current standing is denormalised onto ``User`` (``banned_at``, ``suspended_until``,
``muted_until``) so that :func:`user_standing` and :func:`user_mute_status` read no extra row. A mute or
a suspension ends by itself when its ``until`` passes: both selectors compare with the clock, so nothing
has to run on time for it to end.

Effects, after the transaction commits:

- ban / suspend: every open socket of the user gets ``{"type": "user.revoked", "close_code": 4409 |
  4410, "code", "detail"}`` through the channel-layer group ``user-<id>`` and is closed with that code;
  :data:`accounts.signals.user_out` is sent in the transaction: rooms hand each seat the user holds to
  the CPU as when a player leaves (played for during a game, freed before one) and the ranked queue drops
  the user's entry. Every request
  with the user's token answers ``403 banned`` / ``403 suspended`` (``accounts.authentication``).
- mute: chat (REST and socket) answers ``403 muted`` with ``until``.
- logout (``accounts.services.user_logout``) closes the sockets with 4401.

Errors: :class:`django.core.exceptions.ValidationError` keyed by field (``reason`` blank, ``until``
missing or not in the future, ``network`` not an address or CIDR network); :class:`ApiError` 403
``own_account`` / ``rank_forbidden`` (:mod:`accounts.ranks`) and 409 ``sanction_in_force`` (a longer
sanction of the same kind is in force and ``replaces`` does not name it, :func:`sanction_conflict`).
"""

from __future__ import annotations

import contextlib
import ipaddress
from datetime import datetime

from auditlog.context import set_actor
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import IpBlock, Sanction, User
from accounts.ranks import rank_check
from accounts.signals import user_out
from config.errors import ApiError
from config.groups import group_send
from config.timefmt import iso_ms

# WebSocket close codes (README "Security"; API.md "WebSocket").
CLOSE_SIGNED_OUT = 4401
CLOSE_BANNED = 4409
CLOSE_SUSPENDED = 4410
CLOSE_CODES = {"banned": CLOSE_BANNED, "suspended": CLOSE_SUSPENDED}  # user_standing code -> close code

REASON_MAX = 500


def user_group(user_id: int) -> str:
    """The channel-layer group of every socket of one user: ``user-<id>``."""
    return f"user-{user_id}"


# ----------------------------------------------------------------------------------------- selectors
def user_standing(user, now: datetime | None = None) -> dict | None:
    """``None`` when ``user`` may play; else why not: ``{"code": "banned", "detail"}`` (banned, or
    deactivated by hand) or ``{"code": "suspended", "detail", "until"}`` (``until``: ISO 8601 ms Z).
    Reads only the user's own fields: no query."""
    if user.banned_at is not None or not user.is_active:
        return {"code": "banned", "detail": "This account is banned."}
    now = now or timezone.now()
    if user.suspended_until is not None and user.suspended_until > now:
        until = iso_ms(user.suspended_until)
        return {"code": "suspended", "detail": f"This account is suspended until {until}.", "until": until}
    return None


def user_mute_status(user, now: datetime | None = None) -> dict | None:
    """``None`` when ``user`` may chat; else ``{"code": "muted", "detail", "until"}``. No query."""
    now = now or timezone.now()
    if user.muted_until is not None and user.muted_until > now:
        until = iso_ms(user.muted_until)
        return {"code": "muted", "detail": f"You are muted until {until}.", "until": until}
    return None


_REFUSAL_KIND = {"banned": Sanction.BAN, "suspended": Sanction.SUSPEND, "muted": Sanction.MUTE}


def standing_error(refusal: dict, user=None) -> ApiError:
    """The 403 :class:`ApiError` of a :func:`user_standing` / :func:`user_mute_status` answer (body
    ``{"code", "detail", "until"?}``). With ``user``, the sanction in force behind it is read (one query)
    and named: ``reason`` and ``sanction_id`` (what ``POST /api/appeals`` takes) are added, and the
    reason ends ``detail``."""
    extra = {"until": refusal["until"]} if "until" in refusal else {}
    detail = refusal["detail"]
    kind = _REFUSAL_KIND.get(refusal["code"])
    row = None if user is None or kind is None else (
        Sanction.objects.in_force().filter(user_id=user.pk, kind=kind).order_by("-created_at", "-id").first())
    if row is not None:
        extra.update(reason=row.reason, sanction_id=row.pk)
        detail = f"{detail} Reason: {row.reason}"
    return ApiError(refusal["code"], detail, 403, extra=extra or None)


def user_check_standing(user) -> None:
    """Raise the 403 ``banned`` / ``suspended`` :class:`ApiError` (with the sanction's ``reason`` and
    ``sanction_id``, :func:`standing_error`) when ``user`` may not play now."""
    refusal = user_standing(user)
    if refusal is not None:
        raise standing_error(refusal, user)


def ip_block_for(address: str | None, now: datetime | None = None) -> IpBlock | None:
    """The block in force covering ``address`` (a textual IP), or ``None``. One query."""
    if not address:
        return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    for block in IpBlock.objects.in_force(now):
        try:
            if ip in ipaddress.ip_network(block.network, strict=False):
                return block
        except ValueError:  # pragma: no cover - stored normalised by ip_block
            continue
    return None


def ip_check(address: str | None,
             detail: str = gettext_noop("New accounts cannot be created from your network.")) -> None:
    """Raise 403 ``address_blocked`` (with ``until``, null for a block with no end) when ``address`` lies
    in a block in force: no guest, no account, no login and no socket from there."""
    block = ip_block_for(address)
    if block is not None:
        raise ApiError("address_blocked", detail, 403, extra={"until": iso_ms(block.until)})


# ------------------------------------------------------------------------------------------ helpers
def _clean_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": ["Give a reason."]})
    if len(reason) > REASON_MAX:
        raise ValidationError({"reason": [f"At most {REASON_MAX} characters."]})
    return reason


def _check_until(until: datetime | None, now: datetime) -> datetime:
    if until is None:
        raise ValidationError({"until": ["Give an end time."]})
    if timezone.is_naive(until):
        raise ValidationError({"until": ["Give a time with its time zone."]})
    if until <= now:
        raise ValidationError({"until": ["The end time must be in the future."]})
    return until


def _actor(by):
    """django-auditlog's actor for the log entries written inside (none for a system action)."""
    if by is None:
        return contextlib.nullcontext()
    return set_actor(by)


def _locked(user) -> User:
    """The user's row, locked ``FOR NO KEY UPDATE`` (a sanction changes no key). Not ``FOR UPDATE``: a
    transaction holding a room or game that inserted a row pointing at the user (a chat message, a log
    row) checks that foreign key at its commit with a ``KEY SHARE`` lock on the user's row, which ``FOR
    UPDATE`` refuses, while the sanction waits for that room or game to leave it: a deadlock
    (``tests/accounts/test_sanctions.py``)."""
    return User.objects.select_for_update(no_key=True).get(pk=user.pk)


def _put_out(target: User, close_code: int, now: datetime | None = None) -> None:
    """Close ``target``'s sockets with ``close_code`` after the commit (the standing's ``error`` first)
    and announce :data:`accounts.signals.user_out` (rooms hand the seats to the CPU, the ranked queue
    drops the user): what a suspension, a ban and a deactivation do."""
    user_sockets_close_on_commit(target.pk, close_code, user_standing(target, now))
    user_out.send(sender=User, user=target)


def user_sockets_close_on_commit(user_id: int, close_code: int, refusal: dict | None) -> None:
    """After the commit, close every socket of the user with ``close_code`` (group ``user-<id>``),
    sending ``refusal`` first as an ``error`` message when given. Registered before the seats are left,
    so the sockets get this before the ``room`` broadcasts of the leave."""
    message = {"type": "user.revoked", "close_code": close_code}
    if refusal is not None:
        message.update(code=refusal["code"], detail=refusal["detail"])
        if "until" in refusal:
            message["until"] = refusal["until"]
    transaction.on_commit(lambda: group_send(user_group(user_id), message))


def _lift_in_force(user: User, kind: str, by, reason: str, now: datetime, action: str | None = None) -> int:
    """Lift ``user``'s sanctions of ``kind`` in force, each saved on its own so django-auditlog writes its
    row (``action``: ``<kind>_lift`` unless given). Returns how many."""
    rows = list(Sanction.objects.in_force(now).filter(user=user, kind=kind).select_for_update())
    for row in rows:
        row.lifted_at, row.lifted_by, row.lift_reason = now, by, reason[:REASON_MAX]
        row.audit_action = action
        row.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
    return len(rows)


def _lasts_longer(row: Sanction, until: datetime | None) -> bool:
    """``row`` (in force) ends after ``until`` (``None``: for good)."""
    if row.until is None:
        return until is not None
    return until is not None and row.until > until


def sanction_conflict(*, user, kind: str, until: datetime | None, replaces: int | None,
                      now: datetime | None = None) -> ApiError | None:
    """The 409 ``sanction_in_force`` error when ``user`` has a sanction of ``kind`` in force lasting longer
    than ``until`` (``None``: for good) and ``replaces`` does not name it (its id); else ``None``. The
    error's ``fields.replaces`` names it and ``sanction`` gives ``{"id", "kind", "until", "reason"}``."""
    for row in Sanction.objects.in_force(now).filter(user=user, kind=kind):
        if _lasts_longer(row, until) and replaces != row.pk:
            ends = iso_ms(row.until) if row.until else "never"
            message = (f"Sanction #{row.pk} ({row.kind}, ends {ends}, reason: {row.reason}) lasts longer. "
                       f"To replace it, confirm with its number {row.pk}.")
            return ApiError("sanction_in_force", message, 409, fields={"replaces": [message]},
                            extra={"sanction": {"id": row.pk, "kind": row.kind, "until": iso_ms(row.until),
                                                "reason": row.reason}})
    return None


def _sanction(user: User, kind: str, by, reason: str, until: datetime | None, now: datetime,
              replaces: int | None = None) -> Sanction:
    conflict = sanction_conflict(user=user, kind=kind, until=until, replaces=replaces, now=now)
    if conflict is not None:
        raise conflict
    _lift_in_force(user, kind, by, "Replaced by a new sanction of the same kind.", now, action=f"{kind}_replace")
    return Sanction.objects.create(user=user, kind=kind, reason=reason, until=until, created_by=by,
                                   created_at=now)


def _impose(user, by, kind: str, reason: str, until: datetime | None, now: datetime, fields: dict,
            close_code: int | None = None, replaces: int | None = None) -> Sanction:
    """Record the sanction (ranks checked, :func:`accounts.ranks.rank_check`; a longer one in force is
    replaced only when ``replaces`` names it), set the user's standing ``fields`` (on ``user`` too); with
    ``close_code``, close the user's sockets after the commit and hand the seats to the CPU."""
    rank_check(actor=by, target=user)
    with _actor(by):
        target = _locked(user)
        sanction = _sanction(target, kind, by, reason, until, now, replaces)
        for name, value in fields.items():
            setattr(target, name, value)
            setattr(user, name, value)
        target.save(update_fields=list(fields))
        if close_code is not None:
            _put_out(target, close_code, now)
    return sanction


# ------------------------------------------------------------------------------------------ services
@transaction.atomic
def user_mute(*, user, by, reason: str, until: datetime, replaces: int | None = None) -> Sanction:
    """Mute ``user`` until ``until`` (aware datetime, in the future): no chat, over REST or socket
    (``403 muted`` with ``until``); playing is not affected. A mute in force is replaced. ``by``: the
    moderator (``None``: the system). Returns the new :class:`Sanction`. Raises ``ValidationError``
    (``reason``, ``until``)."""
    now = timezone.now()
    reason, until = _clean_reason(reason), _check_until(until, now)
    return _impose(user, by, Sanction.MUTE, reason, until, now, {"muted_until": until}, replaces=replaces)


@transaction.atomic
def user_deactivated(*, user) -> None:
    """The effects of a ban for an account switched off by hand (``is_active`` unticked in the admin,
    after which :func:`user_standing` answers ``banned``): its open sockets close with 4409 after the
    commit, its seats go to the CPU and its ranked-queue entry is dropped, as :func:`user_ban` does. No
    sanction is recorded (ticking the box again restores the account). Call it once the row is saved; a
    no-op for an active user."""
    target = _locked(user)
    if not target.is_active:
        _put_out(target, CLOSE_BANNED)


def user_standing_now(user_id: int, *, lock: bool = False) -> dict | None:
    """:func:`user_standing` of the user's row as stored now, in one query (``None`` for a user no longer
    stored: its token and seats went with it, and the callers find nothing to count). ``lock``: read the
    row ``FOR NO KEY UPDATE`` (inside a transaction), as :func:`_locked` does, so that a sanction being
    imposed, which locks the row first, is waited for and then seen."""
    rows = User.objects.filter(pk=user_id).only("banned_at", "is_active", "suspended_until")
    row = (rows.select_for_update(no_key=True) if lock else rows).first()
    return None if row is None else user_standing(row)


@transaction.atomic
def user_suspend(*, user, by, reason: str, until: datetime, replaces: int | None = None) -> Sanction:
    """Suspend ``user`` until ``until`` (aware, in the future): every request with the user's token
    answers ``403 suspended`` with ``until``; open sockets close with 4410; seats go to the CPU; the
    ranked-queue entry is dropped. A suspension in force is replaced. Returns the :class:`Sanction`.
    Raises ``ValidationError`` (``reason``, ``until``)."""
    now = timezone.now()
    reason, until = _clean_reason(reason), _check_until(until, now)
    return _impose(user, by, Sanction.SUSPEND, reason, until, now, {"suspended_until": until}, CLOSE_SUSPENDED,
                   replaces)


@transaction.atomic
def user_ban(*, user, by, reason: str, replaces: int | None = None) -> Sanction:
    """Ban ``user`` for good: ``banned_at`` set and ``is_active`` off (no login, off the leaderboards);
    every request with the user's token answers ``403 banned``; open sockets close with 4409; seats go to
    the CPU; the ranked-queue entry is dropped. Returns the :class:`Sanction` (``until`` null). Raises
    ``ValidationError`` (``reason``)."""
    now = timezone.now()
    reason = _clean_reason(reason)
    return _impose(user, by, Sanction.BAN, reason, None, now, {"banned_at": now, "is_active": False}, CLOSE_BANNED,
                   replaces)


def _lift(user, by, reason: str, kind: str, fields: dict) -> int:
    rank_check(actor=by, target=user)
    now = timezone.now()
    with _actor(by):
        target = _locked(user)
        lifted = _lift_in_force(target, kind, by, (reason or "").strip(), now)
        for name, value in fields.items():
            setattr(target, name, value)
            setattr(user, name, value)
        target.save(update_fields=list(fields))
    return lifted


@transaction.atomic
def user_mute_lift(*, user, by, reason: str = "") -> int:
    """End ``user``'s mute now (the record keeps who lifted it, when and why). Returns how many sanctions
    in force were lifted (0: none was)."""
    return _lift(user, by, reason, Sanction.MUTE, {"muted_until": None})


@transaction.atomic
def user_suspend_lift(*, user, by, reason: str = "") -> int:
    """End ``user``'s suspension now. Returns how many sanctions in force were lifted."""
    return _lift(user, by, reason, Sanction.SUSPEND, {"suspended_until": None})


@transaction.atomic
def user_ban_lift(*, user, by, reason: str = "") -> int:
    """Lift ``user``'s ban (``banned_at`` cleared, active again). Returns how many bans were lifted."""
    return _lift(user, by, reason, Sanction.BAN, {"banned_at": None, "is_active": True})


def clean_network(network: str) -> str:
    """``network`` (an address or CIDR) normalised (``"203.0.113.7/24"`` -> ``"203.0.113.0/24"``); raises
    ``ValidationError`` keyed ``network`` (not a network, or wider than ``IP_BLOCK_MIN_PREFIX_V4`` /
    ``IP_BLOCK_MIN_PREFIX_V6``: /16 and /48 by default)."""
    try:
        net = ipaddress.ip_network(str(network).strip(), strict=False)
    except ValueError as exc:
        raise ValidationError({"network": ["An IP address or a CIDR network such as 203.0.113.0/24."]}) from exc
    widest = settings.IP_BLOCK_MIN_PREFIX_V4 if net.version == 4 else settings.IP_BLOCK_MIN_PREFIX_V6
    if net.prefixlen < widest:
        raise ValidationError({"network": [f"Too wide: at most a /{widest} network for IPv{net.version}."]})
    return str(net)


@transaction.atomic
def ip_block(*, network: str, by, reason: str, until: datetime | None = None) -> IpBlock:
    """Block ``network`` (an address or CIDR, IPv4 or IPv6; stored normalised) from creating guests and
    registering accounts until ``until`` (``None``: until lifted): those requests answer ``403
    address_blocked`` with ``until``. Raises ``ValidationError`` (``network``, ``reason``, ``until`` in
    the past)."""
    now = timezone.now()
    network, reason = clean_network(network), _clean_reason(reason)
    if until is not None:
        _check_until(until, now)
    with _actor(by):
        return IpBlock.objects.create(network=network, reason=reason, until=until, created_by=by, created_at=now)


@transaction.atomic
def ip_block_lift(*, block: IpBlock, by) -> bool:
    """Lift ``block`` now. Returns False when it was no longer in force."""
    with _actor(by):
        row = IpBlock.objects.select_for_update().get(pk=block.pk)
        if not row.in_force():
            return False
        row.lifted_at, row.lifted_by = timezone.now(), by
        row.save(update_fields=["lifted_at", "lifted_by"])
    block.lifted_at, block.lifted_by = row.lifted_at, by
    return True
