"""Wallets and their append-only ledger (in-game coins only: never bought, sold or cashed out).

Invariants, kept by :mod:`coins.services` (the only writer) and by the database:

- ``Wallet.balance >= 0`` (a CHECK constraint) and ``LedgerEntry.balance_after >= 0``;
- ``Wallet.balance`` == the sum of its ledger's ``amount`` s: every movement is one ledger row written
  together with the balance under ``SELECT ... FOR UPDATE`` on the wallet row;
- a movement that must happen once (a stake, a payout, a refund, a grant, a claim) carries a ``key``
  unique per wallet, so a retried or concurrent second attempt writes nothing.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Wallet(models.Model):
    """A user's coins (guests too; an upgrade keeps the same user, so the same wallet).

    ``balance``: coins, never below 0. Permission ``coins.adjust_wallet``: may grant or remove coins in
    the admin (moderators; superusers have every permission).
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="wallet")
    balance = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["user_id"]
        constraints = [models.CheckConstraint(condition=Q(balance__gte=0), name="wallet_balance_not_negative")]
        permissions = [("adjust_wallet", "Can grant or remove coins")]

    def __str__(self) -> str:
        return f"wallet of {self.user_id}: {self.balance} coins"


class LedgerEntry(models.Model):
    """One movement of coins (append-only: never changed or deleted).

    - ``amount``: coins, positive in, negative out; ``balance_after``: the wallet's balance after it.
    - ``reason``: one of :attr:`Reason`; ``game``: the game of a stake, re-entry, pot, refund;
      ``challenge``: the challenge id of a claim (with its period in ``key``).
    - ``key``: unique per wallet when set (``stake:<game>``, ``pot:<game>``, ``refund:<game>``,
      ``reentry:<game>:<n>``, ``daily:<date>``, ``challenge:<id>:<period>``, ``start``, ``void:<game>``):
      idempotency. ``void``: a moderator voided ``game``; its coin effects on this wallet reversed.
    - ``note``: a moderator's reason (``reason`` ``adjustment``); ``created_by``: that moderator.
    """

    class Reason(models.TextChoices):
        START_GRANT = "start_grant", "Start grant"
        DAILY_GRANT = "daily_grant", "Daily grant"
        STAKE = "stake", "Stake into the pot"
        REENTRY = "reentry", "Re-entry into the pot"
        POT = "pot", "Pot won"
        REFUND = "refund", "Stake refunded"
        CHALLENGE = "challenge", "Challenge reward"
        ADJUSTMENT = "adjustment", "Moderator adjustment"
        VOID = "void", "Game voided by a moderator"

    wallet = models.ForeignKey(Wallet, on_delete=models.CASCADE, related_name="entries")
    amount = models.IntegerField()
    balance_after = models.PositiveIntegerField()
    reason = models.CharField(max_length=16, choices=Reason.choices)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    challenge = models.CharField(max_length=40, blank=True, default="")
    key = models.CharField(max_length=80, null=True, blank=True)  # noqa: DJ001 - unique when set
    note = models.CharField(max_length=200, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "ledger entries"
        constraints = [
            models.UniqueConstraint(fields=["wallet", "key"], condition=Q(key__isnull=False),
                                    name="ledger_unique_key"),
            models.CheckConstraint(condition=Q(balance_after__gte=0), name="ledger_balance_not_negative"),
            models.CheckConstraint(condition=~Q(amount=0), name="ledger_amount_not_zero"),
        ]
        indexes = [models.Index(fields=["wallet", "-id"], name="ledger_wallet_id"),
                   models.Index(fields=["game"], name="ledger_game"),
                   models.Index(fields=["created_at"], name="ledger_created_at")]  # coins.metrics

    def __str__(self) -> str:
        return f"{self.wallet_id} {self.amount:+d} ({self.reason})"
