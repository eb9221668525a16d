"""Player reports and ranked-play integrity flags.

A :class:`Report` is a player's complaint about a user, a chat message or a game, with a reason from
:class:`Report.Reason` and an optional note; a reporter reports a given target once
(``unique(reporter, target_key)``). Moderators assign it (``assigned_to``) and resolve it with an
:class:`Report.Outcome`, which for mute/suspend/ban calls the sanction services.

An :class:`IntegrityFlag` is raised by :func:`moderation.services.integrity_check_game` when a finished
ranked game completes a suspicious pattern (README "Ranked-play integrity flags"); a moderator reviews it.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

NOTE_MAX = 500


class Report(models.Model):
    """One player's report. ``kind`` says what is reported and which of ``user``/``chat_message``/
    ``game`` is set; ``reported_user`` is the person concerned (the user, or the message's author; null
    for a game); ``target_key`` is ``"<kind>:<id>"`` (what "the same target" means). ``content`` keeps a
    copy of a reported message's text, so hiding or deleting it later loses nothing."""

    class Kind(models.TextChoices):
        USER = "user", "User"
        CHAT_MESSAGE = "chat_message", "Chat message"
        GAME = "game", "Game"

    class Reason(models.TextChoices):
        CHEATING = "cheating", "Cheating"
        COLLUSION = "collusion", "Collusion or rating manipulation"
        HARASSMENT = "harassment", "Harassment or insults"
        HATE = "hate", "Hate speech"
        SPAM = "spam", "Spam or advertising"
        INAPPROPRIATE_NAME = "inappropriate_name", "Inappropriate name"
        STALLING = "stalling", "Stalling or abandoning games"
        OTHER = "other", "Other"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RESOLVED = "resolved", "Resolved"

    class Outcome(models.TextChoices):
        DISMISS = "dismiss", "Dismiss"
        WARN = "warn", "Warn"
        MUTE = "mute", "Mute"
        SUSPEND = "suspend", "Suspend"
        BAN = "ban", "Ban"

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target_key = models.CharField(max_length=40, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    chat_message = models.ForeignKey("rooms.ChatMessage", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="reports")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reported_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="reports_received")
    content = models.CharField(max_length=800, blank=True, default="")  # a chat text: 200 graphemes, ≤ 800 points
    reason = models.CharField(max_length=24, choices=Reason.choices)
    note = models.CharField(max_length=NOTE_MAX * 4, blank=True, default="")  # NOTE_MAX graphemes
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    assigned_to = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="reports_assigned")
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True, default="")
    outcome_note = models.CharField(max_length=500, blank=True, default="")
    sanction = models.ForeignKey("accounts.Sanction", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["reporter", "target_key"], name="report_once_per_target"),
        ]
        indexes = [models.Index(fields=["status", "target_key"], name="report_status_target")]
        permissions = [("resolve_report", "Can assign and resolve reports")]

    def __str__(self) -> str:
        return f"report #{self.pk} {self.target_key} ({self.reason}, {self.status})"


class IntegrityFlag(models.Model):
    """A pattern in ranked results a moderator should look at.

    ``kind``: ``pair_farming`` (the same two players met in many ranked games in a short time, one nearly
    always ahead), ``single_opponent_climb`` (a new account whose rating rose almost only against one
    opponent), and for coins and XP (docs/economy.md) ``pot_farming`` (a wallet that grew from the stakes
    of the same account again and again), ``stake_feeder`` (an account that only ever lost its stake, nearly
    always to the same player: ``other`` is that account, ``user`` the winner) and ``quit_farming`` (wins
    against opponents that quit before ``MIN_DECISIONS`` decisions, again and again). ``user`` is the account that gained, ``other`` the opponent; ``evidence`` the figures and
    games that raised it (``{"games": [{"game_id", "finished_at", "winner", "change"}], ...}``). One open
    flag per kind, game and pair: later games update its evidence.
    """

    class Kind(models.TextChoices):
        PAIR_FARMING = "pair_farming", "Same pair, one-sided results"
        SINGLE_OPPONENT_CLIMB = "single_opponent_climb", "New account climbing against one opponent"
        POT_FARMING = "pot_farming", "Pots won again and again from the same account"
        STAKE_FEEDER = "stake_feeder", "An account that only ever loses its stake to one player"
        QUIT_FARMING = "quit_farming", "Wins against opponents who quit at once"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLEARED = "cleared", "Cleared (nothing wrong)"
        CONFIRMED = "confirmed", "Confirmed (acted on)"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    game_name = models.CharField(max_length=16)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="integrity_flags")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    evidence = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    review_note = models.CharField(max_length=500, blank=True, default="")
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "game_name", "user", "other"], condition=Q(status="open"),
                                    name="integrityflag_one_open"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.user_id} vs {self.other_id} ({self.game_name})"


class Notice(models.Model):
    """Something a player is told and sees at their next visit (``GET /api/me/notices``) even with no
    socket open: a moderator's ``warning``, ``report_acted`` (a report they made was acted on; the outcome
    for the reported player is not named) or ``appeal_decided``. ``seen_at``: when the player's client
    marked it seen."""

    class Kind(models.TextChoices):
        WARNING = "warning", "Warning"
        REPORT_ACTED = "report_acted", "Report acted on"
        APPEAL_DECIDED = "appeal_decided", "Appeal decided"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    text = models.CharField(max_length=1000)
    created_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["user", "seen_at"], name="notice_user_unseen")]

    def __str__(self) -> str:
        return f"{self.kind} to user {self.user_id}"


APPEAL_MAX = 1000


class Appeal(models.Model):
    """A player's appeal against one of their sanctions (one per sanction), in the admin's appeal queue.
    A moderator ``grants`` it (the sanction is lifted with the decision as its reason) or ``rejects`` it;
    the player is told either way (a :class:`Notice`)."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        GRANTED = "granted", "Granted (sanction lifted)"
        REJECTED = "rejected", "Rejected"

    sanction = models.OneToOneField("accounts.Sanction", on_delete=models.CASCADE, related_name="appeal")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="appeals")
    text = models.CharField(max_length=APPEAL_MAX * 4)  # APPEAL_MAX graphemes
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"appeal #{self.pk} against sanction {self.sanction_id}"


class UserNote(models.Model):
    """A moderator's note about a user, shown on the user's admin page (``moderation.services.note_add``,
    one audit row each); never shown to the player."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_notes")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    text = models.CharField(max_length=1000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"note #{self.pk} on user {self.user_id}"


class GameVoid(models.Model):
    """A finished game a moderator voided (:func:`moderation.voids.game_void`): once per game.

    ``summary``: what was reversed, ``{"ratings": [{user, change}], "coins": [{user, amount, shortfall}],
    "xp": [{user, amount}]}`` (``amount``: what moved now; ``shortfall``: coins the wallet no longer held).
    Permission ``moderation.void_game``.
    """

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.CharField(max_length=200)
    summary = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        permissions = [("void_game", "Can void a finished game")]

    def __str__(self) -> str:
        return f"game {self.game_id} voided"
