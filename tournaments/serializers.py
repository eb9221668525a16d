"""Shapes of the Tournaments API (docs/tournaments.md): the request body of a creation and the
``tournament`` shape answered by every endpoint and sent over the socket."""

from fractions import Fraction

from rest_framework import serializers

from config.links import public_link
from config.timefmt import iso_ms
from games.models import Game
from rooms.models import CPU_SPEEDS
from tournaments import pairing
from tournaments.models import Tournament, TournamentFormat, TournamentTable


class TournamentCreateSerializer(serializers.Serializer):
    """``POST /api/tournaments``."""

    name = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    game = serializers.ChoiceField(choices=[g for g, _ in Game.GAME_CHOICES])
    preset = serializers.CharField(max_length=32, required=False, allow_blank=True, default="",
                                   help_text="Chinchón only: standard, traditional, wild_ace.")
    style = serializers.CharField(max_length=32, required=False, allow_blank=True, default="",
                                  help_text="Chinchirorin only: streamer, common.")
    format = serializers.ChoiceField(choices=TournamentFormat.values)
    rounds = serializers.IntegerField(required=False, min_value=1, max_value=12,
                                      help_text="Swiss: 1–12 (required). Round robin: set at the start.")
    seats = serializers.IntegerField(min_value=2, max_value=8, default=2,
                                     help_text="Seats per table: 2–4 Chinchón, 2–8 Chinchirorin; round robin 2.")
    max_players = serializers.IntegerField(required=False, min_value=2, max_value=64,
                                           help_text="Default and most: 8 round robin, 64 Swiss.")
    turn_seconds = serializers.ChoiceField(choices=[30, 60], default=60)
    rated = serializers.BooleanField(default=False)
    cpu_speed = serializers.ChoiceField(choices=list(CPU_SPEEDS), default="normal",
                                        help_text="How fast the CPU plays for an absent player.")
    starts_at = serializers.DateTimeField(help_text="ISO 8601; in the future, at most 30 days ahead.")


class ModerationSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200)


def _person(user) -> dict:
    return {"id": user.pk, "display_name": user.display_name or user.username}


def _num(value: Fraction) -> float:
    return round(float(value), 3)


def table_results(tables) -> list[pairing.TableResult]:
    """The ended tables and byes as :class:`tournaments.pairing.TableResult` rows."""
    out = []
    for t in tables:
        if t.status == TournamentTable.BYE:
            out.append(pairing.TableResult(t.round, tuple(t.players), None, bye=True))
        elif t.status == TournamentTable.ENDED:
            out.append(pairing.TableResult(t.round, tuple(t.players), tuple(t.places) if t.places else None))
    return out


def tournament_data(t: Tournament, entries: list, tables: list, base_url: str | None = None) -> dict:
    """The ``tournament`` shape (docs/tournaments.md): settings, entrants, standings and every table.
    ``entries``: the :class:`TournamentPlayer` rows, users loaded; ``tables``: the table rows, rooms loaded."""
    people = {e.user_id: _person(e.user) for e in entries}
    rows = pairing.standings(t.format, {e.user_id: e.seed for e in entries}, table_results(tables),
                             withdrawn=[e.user_id for e in entries if e.withdrawn])
    tables_out = []
    for tb in tables:
        points = (pairing.table_points(tb.places) if tb.places else None) if tb.status == TournamentTable.ENDED \
            else None
        seats = []
        for i, uid in enumerate(tb.players):
            seat = {"player": people.get(uid, {"id": uid, "display_name": ""}), "place": None, "points": None}
            if tb.status == TournamentTable.BYE:
                seat["points"] = 1.0
            elif tb.status == TournamentTable.ENDED:
                seat["place"] = tb.places[i] if tb.places else None
                seat["points"] = _num(points[i]) if points else 0.5
            seats.append(seat)
        tables_out.append({"round": tb.round, "index": tb.index, "status": tb.status,
                           "room": tb.room.code if tb.room_id and tb.room else None,
                           "game_id": tb.game_id, "seats": seats})
    return {
        "code": t.code,
        "name": t.name,
        "invite_url": public_link(f"/tournament/{t.code}", base_url),
        "game": t.game_name,
        "rules": t.rules,
        "format": t.format,
        "rounds": t.rounds,
        "round": t.round,
        "seats": t.seats,
        "max_players": t.max_players,
        "turn_seconds": t.turn_seconds,
        "rated": t.rated,
        "cpu_speed": t.cpu_speed,
        "starts_at": iso_ms(t.starts_at),
        "status": t.status,
        "ended_reason": t.ended_reason,
        "organiser": _person(t.organiser),
        "version": t.version,
        "players": [{**people[e.user_id], "seed": e.seed, "withdrawn": e.withdrawn} for e in entries],
        "standings": [{"rank": r.rank, "player": people[r.player], "score": _num(r.score),
                       "tiebreak": _num(r.tiebreak), "wins": r.wins, "games": r.games, "byes": r.byes,
                       "withdrawn": r.withdrawn} for r in rows],
        "tables": tables_out,
    }


class _PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


class _EntrantSerializer(_PersonSerializer):
    seed = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class _StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = _PersonSerializer()
    score = serializers.FloatField()
    tiebreak = serializers.FloatField(help_text="Swiss: Buchholz; round robin: head-to-head among the tied.")
    wins = serializers.IntegerField()
    games = serializers.IntegerField()
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class _SeatSerializer(serializers.Serializer):
    player = _PersonSerializer()
    place = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField(allow_null=True)


class _TableSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    index = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["playing", "ended", "bye"])
    room = serializers.CharField(allow_null=True, help_text="The table's room code (null for a bye).")
    game_id = serializers.IntegerField(allow_null=True)
    seats = _SeatSerializer(many=True)


class TournamentSerializer(serializers.Serializer):
    """The ``tournament`` shape (for the schema; answers are built by :func:`tournament_data`)."""

    code = serializers.CharField()
    name = serializers.CharField()
    invite_url = serializers.CharField()
    game = serializers.CharField()
    rules = serializers.DictField()
    format = serializers.CharField()
    rounds = serializers.IntegerField()
    round = serializers.IntegerField()
    seats = serializers.IntegerField()
    max_players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    rated = serializers.BooleanField()
    cpu_speed = serializers.CharField()
    starts_at = serializers.DateTimeField()
    status = serializers.ChoiceField(choices=["open", "running", "finished", "cancelled"])
    ended_reason = serializers.CharField()
    organiser = _PersonSerializer()
    version = serializers.IntegerField()
    players = _EntrantSerializer(many=True)
    standings = _StandingSerializer(many=True)
    tables = _TableSerializer(many=True)


class TournamentListSerializer(serializers.Serializer):
    tournaments = TournamentSerializer(many=True)
