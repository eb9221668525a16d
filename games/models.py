"""Games: the persisted truth of every game (DESIGN.md "One write path", "Time and absence").

Every change goes through :mod:`games.services` under a row lock on :class:`Game`; nothing else writes
these tables (the admin's "abort" action calls the service too).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop


class Game(models.Model):
    """One game of one engine.

    - ``game``: the engine name (``"chinchirorin"`` / ``"chinchon"``); ``rules``: every setting resolved
      (the engine's ``rules_to_dict``); ``state``: the engine's ``to_dict`` (never shown raw: views come from
      the engine's ``view_for``).
    - ``seq``: 0 at the start, +1 for every applied transition (player, timeout, away, CPU, abort).
    - ``status``: ``playing`` / ``finished`` / ``aborted``; ``result``: the engine outcome once finished,
      ``{"standing": [], "reason": "aborted"}`` once aborted, else null.
    - ``window``: the engine's decision-window counter as of ``seq``; ``window_opened_at``: when it
      changed last; ``deadline``: when the open window expires (null: no timer), set when ``window``
      changes and moved only by outage renewal; ``bot_due_at``: when CPU / played-for seats act in the
      open window (``window_opened_at`` + the CPU speed delay), null when no such seat is awaited.
    - ``seed``: 32 secret bytes; never serialized before the end (the view shows its sha256).
    - ``turn_seconds``: null / 30 / 60; ``cpu_speed``: fast / normal / slow; ``ranked``.
    - ``group``: the live-delivery group (``"room-ABC234"``): the broadcasts (every seat's view in one
      message, see ``games.events``) and presence go to it. Empty: no broadcasts.
    - ``human_acted``: a human player applied at least one action (timeouts and CPU moves do not count).
    """

    PLAYING, FINISHED, ABORTED = "playing", "finished", "aborted"
    STATUS_CHOICES = [(PLAYING, "playing"), (FINISHED, "finished"), (ABORTED, "aborted")]
    GAME_CHOICES = [("chinchirorin", gettext_noop("Chinchirorin")), ("chinchon", gettext_noop("Chinchón"))]
    SPEED_CHOICES = [("fast", "fast"), ("normal", "normal"), ("slow", "slow")]

    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    rules = models.JSONField(default=dict)
    state = models.JSONField(default=dict)
    seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default=PLAYING)
    window = models.IntegerField(default=0)
    window_opened_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    bot_due_at = models.DateTimeField(null=True, blank=True)
    seed = models.BinaryField(max_length=32, editable=False)
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True)
    cpu_speed = models.CharField(max_length=8, choices=SPEED_CHOICES, default="normal")
    ranked = models.BooleanField(default=False)
    group = models.CharField(max_length=64, blank=True, default="")
    # The game service's clock when it started (the first window opened then), not the insert's moment.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    human_acted = models.BooleanField(default=False)

    class Meta:
        ordering = ["-id"]
        permissions = [("abort_game", "Can abort games")]
        indexes = [
            models.Index(fields=["status", "deadline"], name="game_status_deadline"),
            models.Index(fields=["status", "bot_due_at"], name="game_status_bot_due"),
            models.Index(fields=["group"], name="game_group"),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.pk} ({self.status}, seq {self.seq})"


class GamePlayer(models.Model):
    """A seat of a game: a user's (``user``) or a CPU's (``cpu``, ``cpu_level``).

    Presence (DESIGN.md "Time and absence"): ``connected`` (a socket is open), ``disconnected_at`` (when
    the last one closed; null if none ever closed or one is open), ``away`` (grace period passed, or three
    ``timeouts_in_row``), ``autoplay`` (handed to the CPU by the player), ``left`` (left the room
    mid-game). A human seat with any of away/autoplay/left is *played for* with the engine's default.
    ``kicked``: a moderator removed the player (``left`` too): the seat is played for and the user may no
    longer act, see or take it back (403 ``not_a_player``).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="game_seats")
    cpu = models.BooleanField(default=False)
    cpu_level = models.CharField(max_length=8, null=True, blank=True)  # noqa: DJ001 - null for humans
    connected = models.BooleanField(default=False)
    disconnected_at = models.DateTimeField(null=True, blank=True)
    away = models.BooleanField(default=False)
    autoplay = models.BooleanField(default=False)
    left = models.BooleanField(default=False)
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    kicked = models.BooleanField(default=False)

    class Meta:
        ordering = ["game_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="gameplayer_unique_seat")]
        indexes = [models.Index(fields=["user", "game"], name="gameplayer_user_game")]

    def __str__(self) -> str:
        who = f"CPU {self.cpu_level}" if self.cpu else f"user {self.user_id}"
        return f"game {self.game_id} seat {self.seat} ({who})"

    @property
    def played_for(self) -> bool:
        """A human seat the CPU plays with the engine's default (away, autoplay or left)."""
        return not self.cpu and (self.away or self.autoplay or self.left)


class GameAction(models.Model):
    """The append-only log: one row per transition, ``seq`` being the seq it produced.

    Row ``seq == 0`` holds the events of the start (``seat`` null, ``by`` ``system``); an abort is a row
    with ``seat`` null, ``by`` ``system`` and ``action`` ``{"type": "abort", "reason"}``. ``by``: ``player`` /
    ``timeout`` / ``away`` / ``cpu`` / ``system``. ``events`` keep their audiences (filter with
    ``games.engine.types.events_for``). ``action_id``/``response``: a client's idempotency key (scoped to game
    and user) and the first answer's view, returned when the same body is sent again.
    """

    BY_CHOICES = [("player", "player"), ("timeout", "timeout"), ("away", "away"), ("cpu", "cpu"),
                  ("system", "system")]

    # No index of its own: the unique (game, seq) index serves every look-up by game, and each action's
    # INSERT maintains one index fewer.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions", db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    by = models.CharField(max_length=8, choices=BY_CHOICES)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    action = models.JSONField(default=dict)
    events = models.JSONField(default=list)
    action_id = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001 - unique when set
    response = models.JSONField(null=True, blank=True)
    # When the action was applied: the transition's clock, from which its window's deadline counts (the
    # write comes later in the transaction, by as long as the machine is busy).
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="gameaction_unique_seq"),
            models.UniqueConstraint(fields=["game", "user", "action_id"], condition=Q(action_id__isnull=False),
                                    name="gameaction_unique_action_id"),
        ]

    def __str__(self) -> str:
        # Only the action's type: its other fields may hold a hidden card (a closer's face-down card).
        kind = self.action.get("type") if isinstance(self.action, dict) else None
        return f"game {self.game_id} seq {self.seq} seat {self.seat} by {self.by}: {kind}"


class SweepHeartbeat(models.Model):
    """One row (``pk=1``): when the beat sweeper last ran (``at``). A deadline that passed while this was
    more than 5 s old is renewed instead of enforced (DESIGN.md "Time and absence")."""

    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"sweep heartbeat {self.at.isoformat()}"
