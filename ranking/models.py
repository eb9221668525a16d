"""Ratings per user per game."""

from django.conf import settings
from django.db import models

from games.models import Game

START_RATING = 1500


class Rating(models.Model):
    """A user's rating in one game: an integer from 1500, and how many rated games of it they played."""

    GAME_CHOICES = Game.GAME_CHOICES

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    rating = models.IntegerField(default=START_RATING)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_unique_user_game")]
        permissions = [("adjust_rating", "Can adjust ratings")]
        indexes = [models.Index(fields=["game", "-rating"], name="rating_game_rating")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game} {self.rating}"


GAME_CHOICES = Rating.GAME_CHOICES


class Friendship(models.Model):
    """Two users who are friends, stored once: ``user_low.id < user_high.id``.

    ``source``: ``invite`` (one joined a room of the other's by its code) or ``request`` (an accepted
    friend request). Removing a friend deletes the row. Guests may have friends (see services).
    """

    class Source(models.TextChoices):
        INVITE = "invite", "Invite"
        REQUEST = "request", "Request"

    user_low = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_high = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=8, choices=Source.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["user_low", "user_high"], name="friendship_unique_pair"),
            models.CheckConstraint(condition=models.Q(user_low__lt=models.F("user_high")),
                                   name="friendship_ordered_pair"),
        ]
        indexes = [models.Index(fields=["user_high"], name="friendship_user_high")]

    def __str__(self) -> str:
        return f"{self.user_low_id} <-> {self.user_high_id} ({self.source})"


class FriendRequest(models.Model):
    """A pending friend request from ``from_user`` to ``to_user``; accepted it becomes a
    :class:`Friendship` and is deleted, declined or cancelled it is deleted."""

    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="friend_requests_sent")
    to_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="friend_requests_received")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["from_user", "to_user"], name="friendrequest_unique_pair"),
            models.CheckConstraint(condition=~models.Q(from_user=models.F("to_user")),
                                   name="friendrequest_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.from_user_id} -> {self.to_user_id}"


class QueueEntry(models.Model):
    """A user's place in the ranked queue among friends (one entry per user at most).

    ``preset`` (chinchón) / ``style`` (chinchirorin): the rules asked for ("" for the default); entries
    match only entries of the same game, seats, preset and style.
    ``status``: ``waiting`` until matched (then ``matched`` with ``room_code``). A waiting entry past
    ``expires_at`` is expired: never matched, shown as ``expired``, deleted by the cleanup task.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting"
        MATCHED = "matched", "Matched"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entry")
    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    seats = models.PositiveSmallIntegerField()
    # the rules asked for: chinchón's preset, chinchirorin's style (entries match only the same ones)
    preset = models.CharField(max_length=16, blank=True, default="")
    style = models.CharField(max_length=16, blank=True, default="")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    room_code = models.CharField(max_length=8, blank=True, default="")
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name_plural = "queue entries"
        indexes = [models.Index(fields=["game", "seats", "status"], name="queue_game_seats_status")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game}/{self.seats} {self.status}"


class RatingChange(models.Model):
    """The rating change of one player from one rated game: applied exactly once (``unique(game, user)``);
    or a moderator's adjustment (``game`` null, ``reason``, ``adjusted_by``; ``seat``/``place`` null, ``k`` 0).

    ``before``/``after``/``change`` in rating points (``after = before + change``); ``k``: the K used;
    ``place``: the seat's place in the final standing; ``game_name``: the game's engine name.
    """

    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    game_name = models.CharField(max_length=16, choices=GAME_CHOICES)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    before = models.IntegerField()
    after = models.IntegerField()
    change = models.IntegerField()
    k = models.PositiveSmallIntegerField(default=0)
    reason = models.CharField(max_length=200, blank=True, default="")
    adjusted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="ratingchange_unique_game_user")]
        indexes = [models.Index(fields=["user", "game_name", "id"], name="ratingchange_user_game")]

    def __str__(self) -> str:
        return f"game {self.game_id} user {self.user_id}: {self.before} -> {self.after} ({self.change:+d})"


class GameRecord(models.Model):
    """One human seat's statistics from one finished (not aborted) game; written once (``unique(game,
    user)``) by the same task that rates the game.

    ``outcome``: ``win`` (sole first place), ``draw`` (a shared first place) or ``loss``. ``rated``: the
    game was rated. ``xp``: experience earned (DESIGN.md / seed 003: 26 a game, 43 a win, 3 a hand
    finished, 1 a card discarded; 0 for a resigned or played-for seat unless it was eliminated, and 0 when
    the game does not count for the seat). ``counts`` / ``win_counts``: the game / the win counts for XP,
    challenges and achievements (:mod:`ranking.eligibility`; a voided game counts for nothing). The
    counters come from the game's log: chinchirorin hands rolled (``pinzoro``, ``arashi``, ``shigoro``,
    ``hifumi``), chinchón closes (``minus_ten``: all seven melded, seven-runs with a wild included;
    ``chinchon``: a seven-run without a wild that won the game), ``hands_finished``, ``cards_discarded``.
    """

    class Outcome(models.TextChoices):
        WIN = "win", "Win"
        DRAW = "draw", "Draw"
        LOSS = "loss", "Loss"

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="game_records")
    game_name = models.CharField(max_length=16, choices=GAME_CHOICES)
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField()
    seats = models.PositiveSmallIntegerField()
    outcome = models.CharField(max_length=4, choices=Outcome.choices)
    ranked = models.BooleanField(default=False)
    rated = models.BooleanField(default=False)
    resigned = models.BooleanField(default=False)
    played_for = models.BooleanField(default=False)
    eliminated = models.BooleanField(default=False)
    counts = models.BooleanField(default=True)
    win_counts = models.BooleanField(default=False)
    xp = models.PositiveIntegerField(default=0)
    hands_finished = models.PositiveIntegerField(default=0)
    cards_discarded = models.PositiveIntegerField(default=0)
    pinzoro = models.PositiveIntegerField(default=0)
    arashi = models.PositiveIntegerField(default=0)
    shigoro = models.PositiveIntegerField(default=0)
    hifumi = models.PositiveIntegerField(default=0)
    minus_ten = models.PositiveIntegerField(default=0)
    chinchon = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="gamerecord_unique_game_user")]
        indexes = [models.Index(fields=["user", "game_name"], name="gamerecord_user_game")]

    def __str__(self) -> str:
        return f"game {self.game_id} user {self.user_id}: {self.outcome} (+{self.xp} XP)"


class AchievementAward(models.Model):
    """An achievement of the catalogue (:mod:`ranking.achievements`) awarded to a user, once
    (``unique(user, achievement)``); ``game``/``seat``: where it was earned."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="achievements")
    achievement = models.CharField(max_length=32)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    awarded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["awarded_at", "id"]
        constraints = [models.UniqueConstraint(fields=["user", "achievement"], name="award_unique_user_achievement")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.achievement}"


class XpGrant(models.Model):
    """Experience granted outside a game's own XP (an achievement, a challenge): ``amount`` XP to ``user``
    for ``reason`` (``achievement``, ``challenge``...) and ``ref`` (what it was for: the achievement's id),
    once per ``(user, reason, ref)``. A user's XP is the sum of its ``GameRecord.xp`` and its grants. A
    negative ``amount`` takes XP back (reason ``void``, ref ``<game id>``: a moderator voided that game)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="xp_grants")
    amount = models.IntegerField()
    reason = models.CharField(max_length=32)
    ref = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["user", "reason", "ref"], name="xpgrant_unique_user_reason_ref")]

    def __str__(self) -> str:
        return f"{self.user_id} +{self.amount} XP ({self.reason} {self.ref})"


class FriendCode(models.Model):
    """A user's friend code (made on first use): anyone holding it (or its link ``PUBLIC_URL/friend/<code>``)
    becomes the user's friend with ``POST /api/friends {code}``. Renewing it makes the old one stop working."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_code")
    code = models.CharField(max_length=16, unique=True)
    created_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.code}"


class SeatCredit(models.Model):
    """What one human seat of a finished game earned the right to (:mod:`ranking.eligibility`), judged once
    when the game finished, read by the pot, XP, achievements and challenges.

    ``decisions``: its own decisions; ``quit``: it resigned, left or was played for; ``played``: it did not
    quit or made ``MIN_DECISIONS`` decisions first; ``counts`` / ``win_counts``: the game / its win counts;
    ``established``: the player was established then; ``cpu_opponent``: a CPU seat was at the table;
    ``credited``: the user ids of its real human opponents; ``leaned_on_new``: one of those was new to the
    site (a limited daily allowance).
    """

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seat_credits")
    seat = models.PositiveSmallIntegerField()
    decisions = models.PositiveIntegerField(default=0)
    quit = models.BooleanField(default=False)
    played = models.BooleanField(default=True)
    counts = models.BooleanField(default=False)
    win_counts = models.BooleanField(default=False)
    established = models.BooleanField(default=False)
    cpu_opponent = models.BooleanField(default=False)
    credited = models.JSONField(default=list)
    leaned_on_new = models.BooleanField(default=False)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="seatcredit_unique_game_user")]
        indexes = [models.Index(fields=["user", "created_at"], name="seatcredit_user_at")]

    def __str__(self) -> str:
        return f"game {self.game_id} user {self.user_id}: counts={self.counts} win={self.win_counts}"
