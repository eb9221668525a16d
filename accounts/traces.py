"""Where users come from, for finding alternate accounts (docs/moderation.md "Alternate accounts").

A :class:`~accounts.models.Trace` is kept for each guest sign-up, registration, login and socket, with the
client's address and the device id the web page keeps in its storage (sent as the ``X-Device-Id`` header
or the socket's ``device`` query parameter; 8–64 letters, digits, ``-`` or ``_``, anything else is
ignored). This is personal data: it is kept ``TRACE_DAYS`` days (setting, default 30) and deleted by the
periodic task ``accounts.traces_purge``.

A banned guest, or a guest suspended until some time, makes its device refuse new guests for as long:
``POST /api/auth/guest`` answers ``403 device_blocked`` (with ``until``, null for a ban).
"""

from __future__ import annotations

import re
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts.models import Sanction, Trace
from accounts.sanctions import ip_block_for
from config.errors import ApiError
from config.timefmt import iso_ms

DEVICE_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
SOCKET_EVERY = timedelta(hours=1)  # one socket trace per user, address and device an hour at most


def clean_device(device) -> str:
    """``device`` when it is a valid device id, else ``""``."""
    return device if isinstance(device, str) and DEVICE_RE.match(device) else ""


def trace_record(*, user, kind: str, address: str | None, device: str = "") -> Trace | None:
    """Keep where ``user`` came from; a socket's is kept once an hour per address and device."""
    device = clean_device(device)
    if not address and not device:
        return None
    now = timezone.now()
    if kind == Trace.SOCKET and Trace.objects.filter(user=user, kind=kind, address=address, device=device,
                                                     created_at__gte=now - SOCKET_EVERY).exists():
        return None
    return Trace.objects.create(user=user, kind=kind, address=address or None, device=device, created_at=now)


def traces_purge(now=None) -> int:
    """Delete traces older than ``TRACE_DAYS`` days. Returns how many."""
    now = now or timezone.now()
    return Trace.objects.filter(created_at__lt=now - timedelta(days=settings.TRACE_DAYS)).delete()[0]


def device_check(device) -> None:
    """Raise 403 ``device_blocked`` when a guest seen on ``device`` is banned or suspended now (``until``:
    the suspension's end, null for a ban)."""
    device = clean_device(device)
    if not device:
        return
    guests = Trace.objects.filter(device=device, user__is_guest=True).values("user_id")
    rows = Sanction.objects.in_force().filter(user_id__in=guests, kind__in=[Sanction.BAN, Sanction.SUSPEND])
    if not rows.exists():
        return
    until = None if rows.filter(until__isnull=True).exists() else max(rows.values_list("until", flat=True))
    raise ApiError("device_blocked", "A guest of this device is banned or suspended: no new guest from it.", 403,
                   extra={"until": iso_ms(until)})


def accounts_sharing(user, now=None) -> list[dict]:
    """Other accounts seen from an address or a device ``user`` was seen from (within ``TRACE_DAYS``):
    ``[{"user", "addresses": [...], "devices": [...]}]``, most shared first."""
    now = now or timezone.now()
    mine = Trace.objects.filter(user=user, created_at__gte=now - timedelta(days=settings.TRACE_DAYS))
    addresses = set(mine.exclude(address=None).values_list("address", flat=True))
    devices = set(mine.exclude(device="").values_list("device", flat=True))
    if not addresses and not devices:
        return []
    others = (Trace.objects.filter(Q(address__in=addresses) | Q(device__in=devices))
              .filter(created_at__gte=now - timedelta(days=settings.TRACE_DAYS)).exclude(user=user)
              .select_related("user"))
    out: dict[int, dict] = {}
    for trace in others:
        row = out.setdefault(trace.user_id, {"user": trace.user, "addresses": set(), "devices": set()})
        if trace.address in addresses:
            row["addresses"].add(trace.address)
        if trace.device in devices:
            row["devices"].add(trace.device)
    rows = [{"user": r["user"], "addresses": sorted(r["addresses"]), "devices": sorted(r["devices"])}
            for r in out.values()]
    return sorted(rows, key=lambda r: (-(len(r["addresses"]) + len(r["devices"])), r["user"].pk))


CLOSE_ADDRESS_BLOCKED = 4411


def socket_address(scope) -> str | None:
    """A socket's client address: the peer's, or the one the trusted proxies (``NUM_PROXIES``) forwarded
    in ``X-Forwarded-For``, as the REST throttles and IP blocks read it."""
    peer = (scope.get("client") or [None])[0]
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
    forwarded = dict(scope.get("headers") or []).get(b"x-forwarded-for")
    if not proxies or not forwarded:
        return peer
    entries = forwarded.decode("latin-1").split(",")
    return entries[-min(proxies, len(entries))].strip() or peer


def socket_admit(*, user, address: str | None, device: str = "") -> dict | None:
    """On a socket's connect: ``{"code": "address_blocked", "detail", "until"}`` when ``address`` lies in
    an IP block in force (the socket is closed with :data:`CLOSE_ADDRESS_BLOCKED`), else ``None`` with the
    trace kept."""
    block = ip_block_for(address)
    if block is not None:
        return {"code": "address_blocked", "detail": "Connections from your network are blocked.",
                "until": iso_ms(block.until)}
    trace_record(user=user, kind=Trace.SOCKET, address=address, device=device)
    return None
