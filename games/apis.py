"""The games API (API.md "Games"): view, action, autoplay, log. One API class per operation; every
change goes through :mod:`games.services`. Errors in the API.md shape (``config.errors.ApiError``)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import ApiError
from config.schema import errors
from games import hooks, selectors, services
from games.models import Game
from games.record import game_record
from games.serializers import (
    ActionRequestSerializer,
    AutoplayRequestSerializer,
    GameViewSerializer,
    LogPageSerializer,
    LogQuerySerializer,
)

GAME_ID = OpenApiParameter("game_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The game's id.")


def _get_seated(game_id: int, user):
    """404 ``not_found`` for an unknown game, 403 ``not_a_player`` for a caller not seated."""
    game = selectors.game_get(game_id=game_id)
    if game is None:
        raise ApiError("not_found", "No such game.", 404)
    seat = selectors.game_seat_of(game=game, user=user)
    if seat is None:
        raise ApiError("not_a_player", "You are not a player in this game.", 403)
    return game, seat


def _get_seated_or_watching(game_id: int, user):
    """``(game, seat)`` for a seated caller, ``(game, None)`` for a spectator (the game's room lets users
    watch and no ranked game is in progress); 404 ``not_found``, else 403 ``not_a_player``."""
    try:
        return _get_seated(game_id, user)
    except ApiError as exc:
        if exc.error_code == "not_a_player" and hooks.watch.watchable(game_id=game_id):
            return selectors.game_get(game_id=game_id), None
        raise


class GameDetailApi(APIView):
    """The caller's view of a game: a seated player's, or the spectator view (``you: null``; no hand, no
    stock, no face-down card, no actions) for a signed-in user when the game's room lets users watch."""

    @extend_schema(parameters=[GAME_ID], responses={200: GameViewSerializer, **errors(401, 403, 404)},
                   operation_id="games_view")
    def get(self, request, game_id: int):
        game, seat = _get_seated_or_watching(game_id, request.user)
        if seat is not None:
            services.game_note_seen(game_id=game.pk, user=request.user)
        return Response(selectors.game_view(game=game, seat=seat))


_MISSING = object()


class GameActionApi(APIView):
    """Send an action: ``{type, seq, ..., action_id?}`` -> the caller's new view. A resent ``action_id``
    with the same body returns the first answer."""

    @extend_schema(parameters=[GAME_ID], request=ActionRequestSerializer,
                   responses={200: GameViewSerializer, **errors(
                       400, 409, s400="invalid_action / illegal_action / parse_error",
                       s409="stale_seq (with the current seq and your view) / not_your_turn / game_over / "
                            "action_id_reused / insufficient_coins (a paid re-entry the wallet cannot pay)")},
                   operation_id="games_action")
    def post(self, request, game_id: int):
        # The service answers 404 not_found / 403 not_a_player before the body's shape (API.md order).
        data = request.data
        if isinstance(data, dict):
            seq = data.get("seq", _MISSING)
            action_id = data.get("action_id")
            action = {k: v for k, v in data.items() if k not in ("seq", "action_id")}
        else:
            seq, action_id, action = _MISSING, None, data
        view = services.game_apply_action(game_id=game_id, actor=request.user,
                                          expected_seq=None if seq is _MISSING else seq, action=action,
                                          action_id=action_id)
        services.game_note_seen(game_id=view["id"], user=request.user, write=False)  # the row: in the action
        return Response(view)


class GameHeartbeatApi(APIView):
    """Presence for a client without a socket: the caller's seat counts as present for 60 s (as any of
    its requests for the game: view, log, action); only after that does the away grace start. Send one
    every 20-30 s while the game is on screen."""

    @extend_schema(parameters=[GAME_ID], request=None, responses={204: None, **errors(401, 403, 404)},
                   operation_id="games_heartbeat")
    def post(self, request, game_id: int):
        game, _seat = _get_seated(game_id, request.user)
        services.game_note_seen(game_id=game.pk, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameAutoplayApi(APIView):
    """``{on: true}`` hands the caller's seat to the CPU (the engine's default moves after the CPU speed
    delay); ``{on: false}`` takes it back."""

    @extend_schema(parameters=[GAME_ID], request=AutoplayRequestSerializer,
                   responses={200: GameViewSerializer, **errors(409, s409="game_over")},
                   operation_id="games_autoplay")
    def post(self, request, game_id: int):
        _get_seated(game_id, request.user)
        ser = AutoplayRequestSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        return Response(services.game_set_autoplay(game_id=game_id, user=request.user, on=ser.validated_data["on"]))


class GameLogApi(APIView):
    """The events with ``seq > after`` the caller may see, about 100 a page, never splitting a seq; a
    spectator (see :class:`GameDetailApi`) sees the public events only."""

    @extend_schema(parameters=[GAME_ID, OpenApiParameter("after", OpenApiTypes.INT, OpenApiParameter.QUERY,
                                                         description="Events with seq > after (default -1).")],
                   responses={200: LogPageSerializer, **errors(400, 401, 403, 404)}, operation_id="games_log")
    def get(self, request, game_id: int):
        game, seat = _get_seated_or_watching(game_id, request.user)
        q = LogQuerySerializer(data=request.query_params)
        q.is_valid(raise_exception=True)
        if seat is not None:
            services.game_note_seen(game_id=game.pk, user=request.user)
        return Response(selectors.game_log(game=game, seat=seat, after=q.validated_data["after"]))


class GameRecordApi(APIView):
    """Download a finished game's public record as JSON (``games.record``): for its players (and, as the
    game's view, for spectators its room lets watch). 409 ``not_finished`` while the game is on."""

    @extend_schema(parameters=[GAME_ID], responses={200: OpenApiTypes.OBJECT, **errors(
        401, 403, 404, 409, s409="not_finished (the game is on)")}, operation_id="games_record")
    def get(self, request, game_id: int):
        game, _seat = _get_seated_or_watching(game_id, request.user)
        if game.status == Game.PLAYING:
            raise ApiError("not_finished", "The record is there once the game has ended.", 409)
        response = Response(game_record(game))
        response["Content-Disposition"] = f'attachment; filename="chinchi-game-{game.pk}.json"'
        return response
