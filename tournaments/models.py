"""Tournaments: an organiser's competition among invited players, played in rounds of rooms.

:class:`Tournament` holds the settings (game, rules, format, rounds, seats per table, turn time, rated,
start time) and its state; :class:`TournamentPlayer` the entrants; :class:`TournamentTable` each round's
tables (a room and its game, or a bye) and their final places.
"""

from django.conf import settings
from django.db import models

from games.models import Game
from rooms.models import CODE_LENGTH, CPU_SPEEDS


class TournamentStatus(models.TextChoices):
    """``open`` (taking entrants until ``starts_at``), ``running``, ``finished``, ``cancelled``."""

    OPEN = "open", "Open"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    CANCELLED = "cancelled", "Cancelled"


class TournamentFormat(models.TextChoices):
    SWISS = "swiss", "Swiss"
    ROUND_ROBIN = "round_robin", "Round robin"


class Tournament(models.Model):
    """A tournament. ``rules``: ``{"preset"}`` (Chinchón) or ``{"style"}`` (Chinchirorin) or ``{}``.
    ``rounds``: Swiss as asked; round robin set at the start from the entrants. ``round``: the round in
    play (0 before the start). ``version`` goes up by one on every change the socket shows."""

    code = models.CharField(max_length=CODE_LENGTH, unique=True)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="organised_tournaments")
    name = models.CharField(max_length=60, blank=True, default="")
    game_name = models.CharField(max_length=16, choices=Game.GAME_CHOICES)
    rules = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=12, choices=TournamentFormat.choices)
    rounds = models.PositiveSmallIntegerField(default=0)
    seats = models.PositiveSmallIntegerField(default=2)
    max_players = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveSmallIntegerField(default=60)
    rated = models.BooleanField(default=False)
    cpu_speed = models.CharField(max_length=8, default="normal", choices=[(v, v) for v in CPU_SPEEDS])
    starts_at = models.DateTimeField(db_index=True)
    status = models.CharField(max_length=10, choices=TournamentStatus.choices, default=TournamentStatus.OPEN,
                              db_index=True)
    round = models.PositiveSmallIntegerField(default=0)
    ended_reason = models.CharField(max_length=32, blank=True, default="")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        permissions = [("moderate_tournament", "Can cancel tournaments and remove players")]

    def __str__(self) -> str:
        return f"{self.code} ({self.game_name}, {self.format}, {self.status})"

    @property
    def group(self) -> str:
        """The channel-layer group of the tournament's sockets: ``tournament-<code>``."""
        return f"tournament-{self.code}"


class TournamentPlayer(models.Model):
    """An entrant; ``seed`` is the join order (1 first). ``withdrawn``: left, removed by a moderator, or
    sanctioned after the start: not paired again (its results stay)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries")
    seed = models.PositiveSmallIntegerField()
    withdrawn = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "seed"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="tournamentplayer_unique_user")]

    def __str__(self) -> str:
        return f"{self.tournament_id} #{self.seed} {self.user_id}"


class TournamentTable(models.Model):
    """Table ``index`` of round ``round``: ``players`` (user ids in seat order), its ``room`` and ``game``
    (none for a bye), ``places`` (per seat, once ended; null for an aborted game)."""

    PLAYING, ENDED, BYE = "playing", "ended", "bye"
    STATUS_CHOICES = [(PLAYING, PLAYING), (ENDED, ENDED), (BYE, BYE)]

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveSmallIntegerField()
    index = models.PositiveSmallIntegerField()
    players = models.JSONField(default=list)
    room = models.ForeignKey("rooms.Room", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=8, choices=STATUS_CHOICES, default=PLAYING)
    places = models.JSONField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "round", "index"]
        constraints = [models.UniqueConstraint(fields=["tournament", "round", "index"],
                                               name="tournamenttable_unique_index")]
        indexes = [models.Index(fields=["game"], name="tournamenttable_game")]

    def __str__(self) -> str:
        return f"{self.tournament_id} round {self.round} table {self.index} ({self.status})"
