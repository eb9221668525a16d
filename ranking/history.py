"""A player's finished games (``GET /api/me/games``, docs/party.md "Your games"), newest first.

Each row: ``{id, game, ranked, status (finished|aborted), finished_at, seats: [{seat, display_name,
cpu, user_id}], you (the caller's seat), place (null for an aborted game), result (win: sole first place |
draw: shared first place | loss | null when aborted), rating_change (the caller's rating points from
this game, null when it was not rated or not rated yet), xp (null until recorded), record_url}``.
Pages by game id: ``before`` (the last ``id`` of the previous page), ``limit`` 1..50 (20); the answer is
``{games, next_before}`` (``null``: no more).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.links import public_link, request_base_url
from config.schema import errors
from config.timefmt import iso_ms
from games.models import Game, GamePlayer
from ranking.models import GameRecord, RatingChange

PAGE_DEFAULT, PAGE_MAX = 20, 50


def _result(standing: list[dict], seat: int) -> tuple[int | None, str | None]:
    places = {row["seat"]: row["place"] for row in standing}
    place = places.get(seat)
    if place is None:
        return None, None
    if place != 1:
        return place, "loss"
    return place, "win" if list(places.values()).count(1) == 1 else "draw"


def my_games(*, user, before: int | None = None, limit: int = PAGE_DEFAULT, base_url: str | None = None) -> dict:
    """The page of ``user``'s finished or aborted games with id < ``before`` (see the module docstring)."""
    mine = GamePlayer.objects.filter(user=user, cpu=False, game__status__in=[Game.FINISHED, Game.ABORTED])
    if before is not None:
        mine = mine.filter(game_id__lt=before)
    rows = list(mine.select_related("game").order_by("-game_id")[:limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    ids = [r.game_id for r in rows]
    seats: dict[int, list[dict]] = {i: [] for i in ids}
    for p in GamePlayer.objects.filter(game_id__in=ids).select_related("user").order_by("game_id", "seat"):
        seats[p.game_id].append({"seat": p.seat, "cpu": p.cpu, "user_id": None if p.cpu else p.user_id,
                                 "display_name": (p.user.display_name if p.user is not None else f"CPU {p.seat + 1}")})
    changes = dict(RatingChange.objects.filter(user=user, game_id__in=ids, adjusted_by__isnull=True)
                   .values_list("game_id", "change"))
    xp = dict(GameRecord.objects.filter(user=user, game_id__in=ids).values_list("game_id", "xp"))
    games = []
    for r in rows:
        g = r.game
        place, result = (None, None) if g.status == Game.ABORTED else _result((g.result or {}).get("standing", []),
                                                                              r.seat)
        games.append({"id": g.pk, "game": g.game, "ranked": g.ranked, "status": g.status,
                      "finished_at": iso_ms(g.finished_at), "seats": seats[g.pk], "you": r.seat, "place": place,
                      "result": result, "rating_change": changes.get(g.pk), "xp": xp.get(g.pk),
                      "record_url": public_link(f"/api/games/{g.pk}/record", base_url)})
    return {"games": games, "next_before": rows[-1].game_id if more else None}


class MyGamesQuerySerializer(serializers.Serializer):
    """Query of ``GET /api/me/games``."""

    before = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=PAGE_MAX, default=PAGE_DEFAULT)


class MyGameSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    display_name = serializers.CharField()
    cpu = serializers.BooleanField()
    user_id = serializers.IntegerField(allow_null=True)


class MyGameSerializer(serializers.Serializer):
    """One finished game of the caller (see :mod:`ranking.history`)."""

    id = serializers.IntegerField()
    game = serializers.CharField()
    ranked = serializers.BooleanField()
    status = serializers.ChoiceField(choices=["finished", "aborted"])
    finished_at = serializers.CharField(allow_null=True)
    seats = MyGameSeatSerializer(many=True)
    you = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    result = serializers.ChoiceField(choices=["win", "draw", "loss"], allow_null=True)
    rating_change = serializers.IntegerField(allow_null=True)
    xp = serializers.IntegerField(allow_null=True)
    record_url = serializers.CharField(help_text="GET it for the game's public record as JSON.")


class MyGamesSerializer(serializers.Serializer):
    games = MyGameSerializer(many=True)
    next_before = serializers.IntegerField(allow_null=True)


class MyGamesApi(APIView):
    """The caller's finished games, newest first, with result, rating change and a link to the record."""

    @extend_schema(parameters=[MyGamesQuerySerializer], responses={200: MyGamesSerializer, **errors(400, 401)},
                   operation_id="me_games")
    def get(self, request):
        q = MyGamesQuerySerializer(data=request.query_params)
        q.is_valid(raise_exception=True)
        return Response(my_games(user=request.user, base_url=request_base_url(request), **q.validated_data))
