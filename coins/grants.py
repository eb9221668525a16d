"""The brake on moderators' coin adjustments (docs/moderation.md "Coin grants").

A staff user who is not a superuser may move at most ``COIN_GRANT_MAX`` coins (either way) in one
adjustment and ``COIN_GRANT_DAILY_MAX`` coins in all (the sum of the amounts' absolute values) in one UTC
day; larger ones are a superuser's. Ranks apply (:mod:`accounts.ranks`): a moderator adjusts players only,
nobody their own wallet. The system (``by`` None) is not braked.

Errors (:class:`config.errors.ApiError`, 403): ``grant_over_cap`` (with ``limit``), ``grant_daily_cap``
(with ``limit`` and ``used``), ``own_account``, ``rank_forbidden``.
"""

from __future__ import annotations

from datetime import UTC, datetime, time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.db.models.functions import Abs
from django.utils import timezone
from django.utils.translation import gettext

from accounts.ranks import rank_check
from coins.models import LedgerEntry
from config.errors import ApiError


def grant_used_today(*, by, now: datetime | None = None) -> int:
    """Coins ``by`` moved by adjustments since the start of ``now``'s UTC day (absolute values summed)."""
    now = now or timezone.now()
    start = datetime.combine(now.astimezone(UTC).date(), time.min, tzinfo=UTC)
    used = (LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADJUSTMENT, created_by=by, created_at__gte=start)
            .aggregate(n=Sum(Abs("amount")))["n"])
    return int(used or 0)


def grant_check(*, by, user_id: int, amount: int) -> None:
    """Inside the adjustment's transaction: refuse ``by`` moving ``amount`` coins on ``user_id``'s wallet
    (the errors above). Locks ``by``'s user row so that one moderator's grants are counted one after the
    other."""
    if by is None:
        return
    user_model = get_user_model()
    rank_check(actor=by, target=user_model.objects.get(pk=user_id))
    if by.is_superuser:
        return
    cap, daily = settings.COIN_GRANT_MAX, settings.COIN_GRANT_DAILY_MAX
    if abs(amount) > cap:
        raise ApiError("grant_over_cap", gettext(
            "At most {cap} coins in one adjustment; a superuser can make larger ones.").format(cap=cap),
                       403, extra={"limit": cap})
    user_model.objects.select_for_update(no_key=True).filter(pk=by.pk).first()
    used = grant_used_today(by=by)
    if used + abs(amount) > daily:
        raise ApiError("grant_daily_cap", gettext(
            "At most {daily} coins a day in adjustments ({used} moved today); a superuser can make more."
        ).format(daily=daily, used=used), 403, extra={"limit": daily, "used": used})
