"""The custom User model (from the first migration) and the sanctions record (``Sanction``, ``IpBlock``)."""

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from config.textpolicy import lookalike_key

DISPLAY_NAME_MAX = 32


def user_name_key(username: str, display_name: str) -> str:
    """``User.name_key``: the look-alike keys of the username and the display name, one a line."""
    return f"{lookalike_key(username or '')}\n{lookalike_key(display_name or '')}"


class User(AbstractUser):
    """A player. A guest (``is_guest``) has only a display name and a token; registering upgrades it in
    place (same id), so its games stay its own.

    ``display_name``: shown at the table, 1–32 grapheme clusters (``config.textpolicy``).

    Standing, denormalised from the sanctions (``accounts.sanctions``) so checking it costs no query on the
    request path: ``banned_at`` (banned for good since; also ``is_active = False``), ``suspended_until``
    (suspended until then; over once the time has passed), ``muted_until`` (no chat until then). Only the
    services of ``accounts.sanctions`` write these fields.
    """

    display_name = models.CharField(max_length=DISPLAY_NAME_MAX * 4)
    is_guest = models.BooleanField(default=False, db_index=True)
    banned_at = models.DateTimeField(null=True, blank=True, editable=False,
                                     help_text="Banned for good since (accounts.sanctions.user_ban).")
    suspended_until = models.DateTimeField(null=True, blank=True, editable=False,
                                           help_text="Suspended until (accounts.sanctions.user_suspend).")
    muted_until = models.DateTimeField(null=True, blank=True, editable=False,
                                       help_text="No chat until (accounts.sanctions.user_mute).")
    name_key = models.CharField(max_length=1200, blank=True, default="", editable=False,
                                help_text="Look-alike search key of the username and display name "
                                          "(config.textpolicy.lookalike_key), kept by save().")

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique",
                                    violation_error_message="That username is taken."),
        ]

    def __str__(self) -> str:
        return f"{self.display_name} ({self.username})"

    def save(self, *args, **kwargs):
        """Save, keeping ``name_key`` (the look-alike search key of both names) in step."""
        self.name_key = user_name_key(self.username, self.display_name)
        fields = kwargs.get("update_fields")
        if fields is not None and ({"username", "display_name"} & set(fields)):
            kwargs["update_fields"] = {*fields, "name_key"}
        super().save(*args, **kwargs)

    def get_additional_data(self) -> dict:
        """The audit row's ``additional_data`` when staff edit an account (django-auditlog)."""
        return {"action": "user_edit"}


class InForceQuerySet(models.QuerySet):
    """Rows with ``until`` and ``lifted_at``: sanctions and IP blocks."""

    def in_force(self, now=None):
        """Rows not lifted whose end time (if any) is still ahead."""
        now = now or timezone.now()
        return self.filter(lifted_at__isnull=True).filter(models.Q(until__isnull=True) | models.Q(until__gt=now))


class InForceMixin:
    """``in_force()`` of one row with ``until`` and ``lifted_at``."""

    def in_force(self, now=None) -> bool:
        """Not lifted and not past its end time."""
        now = now or timezone.now()
        return self.lifted_at is None and (self.until is None or self.until > now)


class Sanction(InForceMixin, models.Model):
    """One sanction and its record: who (``created_by``), when (``created_at``), what (``kind``), why
    (``reason``), until when (``until``; ``None`` for a ban, which is for good); and, once lifted early,
    ``lifted_at``/``lifted_by``/``lift_reason``. A mute or suspension whose ``until`` has passed is over
    without any write (``in_force`` reads the time). Rows are written only by ``accounts.sanctions``."""

    MUTE, SUSPEND, BAN = "mute", "suspend", "ban"
    KIND_CHOICES = [(MUTE, "Mute (no chat)"), (SUSPEND, "Suspend (for a period)"), (BAN, "Ban (for good)")]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sanctions")
    kind = models.CharField(max_length=8, choices=KIND_CHOICES)
    reason = models.CharField(max_length=500)
    until = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="sanctions_given")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="sanctions_lifted")
    lift_reason = models.CharField(max_length=500, blank=True, default="")

    objects = InForceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "kind", "lifted_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of user {self.user_id}"

    def get_additional_data(self) -> dict:
        """The audit row's ``additional_data`` (django-auditlog calls this on every save): ``action``
        (``mute``/``suspend``/``ban``, ``<kind>_lift``, ``<kind>_replace`` or what the saving service set in
        ``audit_action``) and ``reason`` (the lift's reason once lifted), with ``user_id`` and ``until``."""
        lifted = self.lifted_at is not None
        action = getattr(self, "audit_action", None) or (f"{self.kind}_lift" if lifted else self.kind)
        until = self.until.isoformat() if self.until else None
        return {"action": action, "reason": self.lift_reason if lifted else self.reason, "user_id": self.user_id,
                "until": until}


class IpBlock(InForceMixin, models.Model):
    """An address or network (CIDR, IPv4 or IPv6, stored normalised: ``"203.0.113.0/24"``) from which no
    guest may be created and no account registered, until ``until`` (``None``: until lifted)."""

    network = models.CharField(max_length=64, help_text="An address or a CIDR network, e.g. 203.0.113.0/24.")
    reason = models.CharField(max_length=500)
    until = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="ip_blocks_given")
    created_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="ip_blocks_lifted")

    objects = InForceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.network

    def get_additional_data(self) -> dict:
        """The audit row's ``additional_data``: ``action`` ``ip_block`` or ``ip_block_lift``, ``reason``."""
        return {"action": "ip_block_lift" if self.lifted_at else "ip_block", "reason": self.reason,
                "until": self.until.isoformat() if self.until else None}


class ApiToken(models.Model):
    """An API token, stored hashed (``accounts.tokens``): ``digest`` is the SHA-256 (hex) of the key the
    client holds, which is shown once (the answer of guest, register and login) and never stored. A user
    may hold several (one per device signed in). ``last_used_at`` moves as the token is used (at most
    once per ``TOKEN_TOUCH_SECONDS``); a registered player's token unused for ``TOKEN_IDLE_DAYS`` is over.
    """

    digest = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"token of user {self.user_id} (created {self.created_at:%Y-%m-%d})"


class Trace(models.Model):
    """Where a user came from (personal data, kept ``TRACE_DAYS`` days, then purged: ``accounts.traces``):
    the network ``address`` and the page's ``device`` id (empty when not sent) of a sign-up (``guest``,
    ``register``), a ``login`` or a ``socket``. Moderators see which accounts share an address or a
    device; a banned or suspended guest's device is refused new guests."""

    GUEST, REGISTER, LOGIN, SOCKET = "guest", "register", "login", "socket"
    KIND_CHOICES = [(GUEST, "Guest sign-up"), (REGISTER, "Registration"), (LOGIN, "Login"), (SOCKET, "Socket")]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="traces")
    kind = models.CharField(max_length=8, choices=KIND_CHOICES)
    address = models.GenericIPAddressField(null=True, blank=True)
    device = models.CharField(max_length=64, blank=True, default="", db_index=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["address"], name="trace_address")]

    def __str__(self) -> str:
        return f"{self.kind} of user {self.user_id} from {self.address}"
