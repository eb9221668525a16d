"""Coin services: the only writers of wallets and the ledger (HackSoft style ``wallet_<verb>(*, ...)``).

**Lock contract.** Every movement locks the wallet rows it touches with ``SELECT ... FOR UPDATE`` in
user-id order (inside ``transaction.atomic``), then writes one :class:`~coins.models.LedgerEntry` per
wallet and the new balance together, so the balance always equals the ledger's sum and never goes below
zero (the CHECK constraints are the last line). Game hooks (:mod:`coins.game_coins`) run inside the
game's own locked transaction: game row first, then wallets; nothing here ever locks a game, so there
is no lock cycle.

Movements that must happen once carry a ``key`` unique per wallet (see :class:`~coins.models.LedgerEntry`);
a repeat finds the row and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from coins import rules
from coins.grants import grant_check
from coins.models import LedgerEntry, Wallet
from coins.rules import daily_key
from coins.selectors import challenge_rows
from config.audit import audit_record
from config.errors import ApiError
from ranking.services import xp_grant

Reason = LedgerEntry.Reason


class InsufficientCoins(ApiError):
    """409 ``insufficient_coins``: a wallet cannot pay. ``extra``: ``{"needed", "balance"}`` and, for
    a game start, ``seats`` (the seats that cannot pay)."""

    def __init__(self, detail: str, **extra):
        super().__init__("insufficient_coins", detail, 409, extra=extra)


def wallet_open(*, user_id: int) -> Wallet:
    """The user's wallet, created with the start grant (``rules.START_GRANT`` coins, reason
    ``start_grant``, key ``start``) when it does not exist yet. Idempotent and safe under concurrency."""
    wallet = Wallet.objects.filter(pk=user_id).first()
    if wallet is not None:
        return wallet
    with transaction.atomic():
        wallet, created = Wallet.objects.get_or_create(pk=user_id)
        if created:
            wallet = Wallet.objects.select_for_update().get(pk=user_id)
            _post(wallet, rules.START_GRANT, Reason.START_GRANT, key="start")
    return wallet


def wallet_of(*, user_id: int) -> Wallet:
    """The user's wallet (opened with its start grant if the user predates it): :func:`wallet_open`."""
    return wallet_open(user_id=user_id)


def lock_wallets(user_ids: Iterable[int]) -> dict[int, Wallet]:
    """Inside an atomic block: ``{user_id: Wallet}`` locked ``FOR UPDATE`` in user-id order (wallets
    missing are opened first, with their start grant)."""
    ids = sorted(set(user_ids))
    for uid in ids:
        wallet_open(user_id=uid)
    return {w.pk: w for w in Wallet.objects.select_for_update().filter(pk__in=ids).order_by("pk")}


def _post(wallet: Wallet, amount: int, reason: str, *, key: str | None = None, game_id: int | None = None,
          challenge: str = "", note: str = "", by=None) -> LedgerEntry | None:
    """Move ``amount`` coins (negative: out) on a wallet LOCKED by the caller: one ledger row and the new
    balance. Returns the row, or ``None`` when ``key`` was already posted on this wallet (nothing done).
    Raises :class:`InsufficientCoins` (nothing done) when the balance would go below zero."""
    if key is not None and LedgerEntry.objects.filter(wallet=wallet, key=key).exists():
        return None
    after = wallet.balance + amount
    if after < 0:
        raise InsufficientCoins(gettext("{needed} coins are needed; the wallet holds {balance}.").format(
                                    needed=abs(amount), balance=wallet.balance),
                                needed=abs(amount), balance=wallet.balance)
    entry = LedgerEntry.objects.create(wallet=wallet, amount=amount, balance_after=after, reason=reason, key=key,
                                       game_id=game_id, challenge=challenge, note=note, created_by=by)
    wallet.balance = after
    wallet.save(update_fields=["balance", "updated_at"])
    return entry


def wallet_move(*, user_id: int, amount: int, reason: str, key: str | None = None, game_id: int | None = None,
                challenge: str = "", note: str = "", by=None) -> LedgerEntry | None:
    """Lock ``user_id``'s wallet and move ``amount`` coins (see :func:`_post`): the row, or ``None`` if
    ``key`` was already posted. Raises :class:`InsufficientCoins`."""
    with transaction.atomic():
        wallet = lock_wallets([user_id])[user_id]
        return _post(wallet, amount, reason, key=key, game_id=game_id, challenge=challenge, note=note, by=by)


def wallet_adjust(*, user_id: int, amount: int, note: str, by) -> LedgerEntry:
    """A moderator grants (``amount`` > 0) or removes (< 0) coins with a reason (``note``, required):
    a ledger row of reason ``adjustment`` naming ``by`` and one audit row (``coin_adjust``). Ranks and caps:
    :mod:`coins.grants`. Raises ``ValueError`` for a zero amount or an empty note, :class:`InsufficientCoins`
    when removing more than the wallet holds, the 403 errors of :func:`coins.grants.grant_check`."""
    note = (note or "").strip()
    if not isinstance(amount, int) or isinstance(amount, bool) or amount == 0:
        raise ValueError("the amount must be a non-zero integer")
    if not note:
        raise ValueError("a reason is required")
    with transaction.atomic():
        grant_check(by=by, user_id=user_id, amount=amount)
        entry = wallet_move(user_id=user_id, amount=amount, reason=Reason.ADJUSTMENT, note=note[:200], by=by)
        audit_record(actor=by, action="coin_adjust", target=entry.wallet, reason=note[:200],
                     changes={"balance": [entry.balance_after - amount, entry.balance_after]}, amount=amount,
                     user_id=user_id, ledger_entry=entry.pk)
    return entry


def wallet_claim_daily(*, user_id: int, now: datetime | None = None) -> LedgerEntry:
    """The daily grant: a wallet holding fewer than ``rules.DAILY_TOP_UP`` coins is topped up to it, once
    per UTC day (reason ``daily_grant``). Raises 409 ``daily_grant_unavailable`` when already claimed
    today or the balance is not below the top-up (nothing done)."""
    now = now or timezone.now()
    key = daily_key(now)
    with transaction.atomic():
        wallet = lock_wallets([user_id])[user_id]
        if LedgerEntry.objects.filter(wallet=wallet, key=key).exists():
            raise ApiError("daily_grant_unavailable",
                           gettext("Today's grant was already claimed; come back tomorrow (UTC)."), 409)
        if wallet.balance >= rules.DAILY_TOP_UP:
            raise ApiError("daily_grant_unavailable",
                           gettext("The daily grant tops up wallets holding fewer than {amount} coins.").format(
                               amount=rules.DAILY_TOP_UP), 409)
        return _post(wallet, rules.DAILY_TOP_UP - wallet.balance, Reason.DAILY_GRANT, key=key)


# ------------------------------------------------------------------------------------------- challenges
def challenge_claim(*, user_id: int, challenge_id: str, now: datetime | None = None) -> tuple[dict, LedgerEntry]:
    """Claim an active, completed challenge's reward once per period: its coins (reason ``challenge``,
    key ``challenge:<id>:<period key>``) and its XP (``ranking.services.xp_grant``, reason ``challenge``,
    ref ``<id>:<period key>``), in one transaction. Returns ``(the challenge's progress row, the ledger
    row)``. Raises 404 ``not_found`` (not a challenge active now), 409 ``challenge_not_completed``, 409
    ``challenge_claimed`` (nothing done)."""
    now = now or timezone.now()
    with transaction.atomic():
        wallet = lock_wallets([user_id])[user_id]  # claims of one user are serialized here
        row = next((r for r in challenge_rows(user_id=user_id, now=now) if r["id"] == challenge_id), None)
        if row is None:
            raise ApiError("not_found", gettext("No such challenge is active now."), 404)
        if row["claimed"]:
            raise ApiError("challenge_claimed", gettext("This challenge's reward was already claimed."), 409)
        if not row["completed"]:
            raise ApiError("challenge_not_completed",
                           gettext("Not completed yet: {progress} of {target}.").format(**row), 409)
        entry = _post(wallet, row["reward"]["coins"], Reason.CHALLENGE, key=row["claim_key"], challenge=challenge_id)
        xp_grant(user_id=user_id, amount=row["reward"]["xp"], reason="challenge", ref=f"{challenge_id}:{row['period_key']}")
    row["claimed"] = True
    return row, entry
