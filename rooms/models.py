"""Rooms: a table with a shareable code, its seats and its chat (API.md "Rooms").

A :class:`Room` holds the settings of the games played in it (``game_name``, ``seat_count``, the raw
``rules`` settings as the host gave them, timers, ranked, CPU level and speed) and points at its current
or last game (``game``). Each room has ``seat_count`` :class:`Seat` rows (index 0..N-1): empty, a human
(``user``) or a CPU. :class:`ChatMessage` rows are the room's chat.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Game

# Six characters from an alphabet without look-alikes: no 0/O, no 1/I/L.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6

GAME_CHOICES = Game.GAME_CHOICES
CPU_LEVELS = ("easy", "normal", "hard")
CPU_SPEEDS = ("fast", "normal", "slow")
TURN_SECONDS = (None, 30, 60)
SEATS_AUTO = "auto"  # ``seats: "auto"``: the table follows the party (README "Rooms: seats auto")
DEFAULT_SEATS = SEATS_AUTO  # seats of a room created without ``seats``: the party sets the table


class RoomStatus(models.TextChoices):
    """``open`` (gathering), ``playing`` (a game is on), ``finished`` (its last game ended), ``closed``."""

    OPEN = "open", "Open"
    PLAYING = "playing", "Playing"
    FINISHED = "finished", "Finished"
    CLOSED = "closed", "Closed"


class Room(models.Model):
    """A room: its code is unique among rooms not closed (a closed room's code may be reused).

    ``rules`` are the settings as given (validated by the engine against ``seat_count`` on every change);
    the API shows them resolved. ``version`` goes up by one on every change the ``room`` message shows.
    ``last_activity`` is the time of the last change (rooms idle for 24 h close).
    """

    code = models.CharField(max_length=CODE_LENGTH, db_index=True)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="hosted_rooms")
    game_name = models.CharField(max_length=16, choices=GAME_CHOICES)
    seat_count = models.PositiveSmallIntegerField()
    # seats "auto": the room offers the rules' most seats while gathering; a start seats the humans and
    # CPUs present (at least the fewest the rules allow) and the empty seats go until the game ends.
    seats_auto = models.BooleanField(default=False)
    # the host lets signed-in users with the code watch (the spectator view only); never while a ranked
    # game is in progress
    spectators_allowed = models.BooleanField(default=False)
    # the host lets the seated players talk over peer-to-peer voice (rooms.voice); on by default, and
    # still nobody's microphone is used until they join voice
    voice_allowed = models.BooleanField(default=True)
    rules = models.JSONField(default=dict, blank=True)
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True)
    ranked = models.BooleanField(default=False)
    cpu_level = models.CharField(max_length=8, default="normal", choices=[(v, v) for v in CPU_LEVELS])
    cpu_speed = models.CharField(max_length=8, default="normal", choices=[(v, v) for v in CPU_SPEEDS])
    status = models.CharField(max_length=10, choices=RoomStatus.choices, default=RoomStatus.OPEN,
                              db_index=True)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["code"], condition=~Q(status="closed"),
                                    name="room_code_unique_not_closed"),
        ]
        permissions = [("moderate_room", "Can close rooms and kick seats")]

    def __str__(self) -> str:
        return f"{self.code} ({self.game_name}, {self.status})"

    @property
    def group(self) -> str:
        """The live-delivery group of the room's sockets: ``room-<code>`` (room, chat, presence, and game
        broadcasts holding every seat's payload, each socket forwarding its own)."""
        return f"room-{self.code}"


class Seat(models.Model):
    """Seat ``index`` of a room: empty (no user, not CPU), a human (``user``) or a CPU (``cpu_level``).

    ``left``: the player left during a game; the seat is played for until the game ends, then emptied.
    ``connections``: sockets open for this seat now (several per seat are allowed).
    """

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="seats")
    cpu = models.BooleanField(default=False)
    cpu_level = models.CharField(max_length=8, null=True, blank=True)  # noqa: DJ001 - null: not a CPU
    left = models.BooleanField(default=False)
    connections = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["room_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["room", "index"], name="seat_unique_room_index"),
            models.UniqueConstraint(fields=["room", "user"], condition=Q(user__isnull=False),
                                    name="seat_unique_room_user"),
        ]

    def __str__(self) -> str:
        who = "CPU" if self.cpu else (self.user_id or "empty")
        return f"{self.room_id}#{self.index} {who}"

    @property
    def is_empty(self) -> bool:
        """No human and no CPU."""
        return self.user_id is None and not self.cpu


class Spectator(models.Model):
    """A user watching a room over its socket (``connections``: its spectator sockets open now); the row
    goes when the last one closes. Shown as the room's ``spectators``."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="spectators")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    connections = models.PositiveIntegerField(default=0)
    since = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["since", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "user"], name="spectator_unique_room_user")]

    def __str__(self) -> str:
        return f"{self.room_id} watched by {self.user_id}"


class ChatMessage(models.Model):
    """One chat message: exactly one of ``text`` (1–200 grapheme clusters), ``emoji`` or ``phrase`` (a
    catalogue id), by ``user`` sitting in ``seat``. A moderator may hide it (``hidden_at``, ``hidden_by``,
    ``hidden_reason``): it is then gone from the room's history but kept for the record."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="messages")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    seat = models.PositiveSmallIntegerField()
    # 200 grapheme clusters (config.textpolicy), each at most 4 code points on average
    text = models.CharField(max_length=800, null=True, blank=True)  # noqa: DJ001 - exactly one is set
    emoji = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001 - exactly one is set
    phrase = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001 - exactly one is set
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    hidden_reason = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["room", "-id"], name="chat_room_id_desc")]
        permissions = [("hide_chatmessage", "Can hide chat messages")]

    def __str__(self) -> str:
        body = self.text if self.text is not None else (self.emoji or self.phrase)
        return f"{self.room_id} {self.user_id}: {body}"


class RoomKick(models.Model):
    """A moderator removed ``user`` from seat ``seat`` of ``room``: the CPU plays the seat until the game
    ends and the user may not join (or open a socket in) that room again (403 ``kicked``)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="kicks")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="room_kicks")
    seat = models.PositiveSmallIntegerField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                           related_name="+")
    reason = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["room", "user"], name="roomkick_unique_room_user")]

    def __str__(self) -> str:
        return f"{self.user_id} kicked from {self.room_id} seat {self.seat}"


class VoiceSession(models.Model):
    """The moderators' record of voice (``rooms.voice``): ``user`` joined the voice of ``room`` from seat
    ``seat`` at ``joined_at`` and left at ``left_at`` (null: in voice now, or its server went away) for
    ``left_reason``. Only who and when: no audio passes the server or is recorded."""

    LEFT_REASONS = [("left", "left"), ("closed", "socket closed"), ("voice_off", "voice turned off"),
                    ("muted", "muted"), ("sanction", "suspended or banned"),
                    ("seat", "seat lost or moved"), ("replaced", "joined from another socket")]

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="voice_sessions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="voice_sessions")
    seat = models.PositiveSmallIntegerField()
    joined_at = models.DateTimeField(auto_now_add=True, db_index=True)
    left_at = models.DateTimeField(null=True, blank=True)
    left_reason = models.CharField(max_length=16, blank=True, default="", choices=LEFT_REASONS)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.user_id} in voice of {self.room_id} seat {self.seat}"
