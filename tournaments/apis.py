"""The Tournaments API (docs/tournaments.md): one view per operation, each calling one service and
answering the ``tournament`` shape."""

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.links import request_base_url
from config.schema import errors
from rooms.throttles import RoomCodeThrottled, RoomCreateThrottle
from tournaments import services
from tournaments.serializers import TournamentCreateSerializer, TournamentListSerializer, TournamentSerializer
from tournaments.tasks import start_tournament


def _answer(request, t, code: int = status.HTTP_200_OK) -> Response:
    """The ``tournament`` shape as the service's transaction committed it (``t.saved_data``), else read
    now; ``invite_url`` on the request's address."""
    base_url = request_base_url(request)
    data = getattr(t, "saved_data", None)
    if data is None:
        return Response(services.tournament_view(t, base_url), status=code)
    return Response({**data, "invite_url": services.tournament_view_link(t.code, base_url)}, status=code)


class TournamentListCreateApi(APIView):
    """List the caller's tournaments and its friends' open ones; create one (registered players)."""

    throttle_classes = [RoomCreateThrottle]

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(responses={200: TournamentListSerializer}, operation_id="tournaments_list")
    def get(self, request):
        base_url = request_base_url(request)
        return Response({"tournaments": [services.tournament_view(t, base_url)
                                         for t in services.tournaments_for_user(request.user)]})

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentSerializer, **errors(
        400, 403, s403="registration_required / banned / suspended")}, operation_id="tournaments_create")
    def post(self, request):
        ser = TournamentCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        t = services.tournament_create(user=request.user, **ser.validated_data)
        transaction.on_commit(lambda: start_tournament.apply_async(args=[t.pk], eta=t.starts_at))
        return _answer(request, t, status.HTTP_201_CREATED)


class TournamentDetailApi(RoomCodeThrottled, APIView):
    """Look at a tournament: any signed-in user holding its code."""

    lookup_methods = ("GET",)

    @extend_schema(responses={200: TournamentSerializer}, operation_id="tournaments_get")
    def get(self, request, code: str):
        return _answer(request, services.tournament_get(code=code))


class TournamentJoinApi(RoomCodeThrottled, APIView):
    """Enter (idempotent) while it is open; the code is the invitation."""

    lookup_methods = ("POST",)

    @extend_schema(request=None, responses={200: TournamentSerializer, **errors(
        403, 409, s403="registration_required (rated) / banned / suspended",
        s409="already_started / tournament_over / tournament_full")}, operation_id="tournaments_join")
    def post(self, request, code: str):
        return _answer(request, services.tournament_join(code=code, user=request.user))


class TournamentLeaveApi(RoomCodeThrottled, APIView):
    """Leave before the start, or withdraw once running (not paired again)."""

    @extend_schema(request=None, responses={200: TournamentSerializer, **errors(
        403, 409, s403="not_a_player", s409="tournament_over")}, operation_id="tournaments_leave")
    def post(self, request, code: str):
        return _answer(request, services.tournament_leave(code=code, user=request.user))


class TournamentCancelApi(RoomCodeThrottled, APIView):
    """The organiser cancels before the start."""

    @extend_schema(request=None, responses={200: TournamentSerializer, **errors(
        403, 409, s403="not_organiser", s409="already_started / tournament_over")},
        operation_id="tournaments_cancel")
    def post(self, request, code: str):
        return _answer(request, services.tournament_cancel(code=code, user=request.user))


class TournamentPlayerApi(RoomCodeThrottled, APIView):
    """The organiser removes an entrant before the start."""

    @extend_schema(request=None, responses={200: TournamentSerializer, **errors(
        400, 403, 409, s400="invalid (player: your own entry)", s403="not_organiser",
        s409="already_started / tournament_over")}, operation_id="tournaments_player_remove")
    def delete(self, request, code: str, player_id: int):
        return _answer(request, services.tournament_remove_player(code=code, user=request.user,
                                                                  player_id=player_id))
