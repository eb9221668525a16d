"""The Rooms API (API.md "Rooms"): one view per operation, each calling one service and answering the
``room`` shape (or chat messages). Errors are raised by the services in the API.md shape."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import ApiError
from config.links import request_base_url
from config.schema import ACCEPT_LANGUAGE, errors
from rooms import selectors, services
from rooms.catalogue import catalogue as games_catalogue
from rooms.chat_catalogue import catalogue
from rooms.serializers import (
    CatalogueSerializer,
    ChatMessageSerializer,
    ChatPostSerializer,
    CpuSeatSerializer,
    GamesCatalogueSerializer,
    RoomCreateSerializer,
    RoomSerializer,
    RoomUpdateSerializer,
    VoiceSerializer,
    invite_url,
    message_data,
    room_data,
)
from rooms.throttles import RoomCodeThrottled, RoomCreateThrottle
from rooms.voice import voice_state


def _room_answer(request, room, code: int = status.HTTP_200_OK) -> Response:
    """``room``'s shape for the caller (``invite_url`` on the request's address): the one the service's
    transaction committed and broadcast (``room.saved_data``, see ``rooms.locking._changed``) when it
    changed the room, else read now."""
    base_url = request_base_url(request)
    saved = getattr(room, "saved_data", None)
    if saved is not None:
        return Response({**saved, "invite_url": invite_url(room.code, base_url)}, status=code)
    fresh = selectors.rooms_with_seats().get(pk=room.pk)
    return Response(room_data(fresh, base_url=base_url), status=code)


def _valid(serializer_class, request):
    ser = serializer_class(data=request.data)
    ser.is_valid(raise_exception=True)
    return ser.validated_data


class RoomCreateApi(APIView):
    """Create a room; the caller is its host in seat 0 (``THROTTLE_ROOM_CREATE`` rooms an hour per user)."""

    throttle_classes = [RoomCreateThrottle]

    @extend_schema(request=RoomCreateSerializer, responses={201: RoomSerializer}, operation_id="rooms_create")
    def post(self, request):
        data = dict(_valid(RoomCreateSerializer, request))
        room = services.room_create(user=request.user, **data)
        return _room_answer(request, room, status.HTTP_201_CREATED)


class RoomDetailApi(RoomCodeThrottled, APIView):
    """Look at a room (any signed-in user) or change its settings (host, while open or finished)."""

    lookup_methods = ("GET",)

    @extend_schema(responses={200: RoomSerializer}, operation_id="rooms_get")
    def get(self, request, code: str):
        return _room_answer(request, selectors.room_get(code=code))

    @extend_schema(request=RoomUpdateSerializer, responses={200: RoomSerializer}, operation_id="rooms_update")
    def patch(self, request, code: str):
        selectors.room_get(code=code)  # 404 before the body
        data = _valid(RoomUpdateSerializer, request)
        return _room_answer(request, services.room_update(code=code, user=request.user, data=data))


class RoomJoinApi(RoomCodeThrottled, APIView):
    """Take the lowest free seat (idempotent); a player who left mid-game gets the seat back; a player a
    moderator kicked from the room may not come back (403 ``kicked``)."""

    lookup_methods = ("POST",)

    @extend_schema(request=None, responses={200: RoomSerializer, **errors(
        401, 403, 404, 409, s403="kicked (a moderator removed you from this room) / registration_required / "
                                 "banned / suspended",
        s409="already_started / room_full")}, operation_id="rooms_join")
    def post(self, request, code: str):
        return _room_answer(request, services.room_join(code=code, user=request.user))


class RoomLeaveApi(RoomCodeThrottled, APIView):
    """Leave: before a game the seat is freed; during one it is played for until the game ends."""

    @extend_schema(request=None, responses={200: RoomSerializer}, operation_id="rooms_leave")
    def post(self, request, code: str):
        return _room_answer(request, services.room_leave(code=code, user=request.user))


class RoomCpuApi(RoomCodeThrottled, APIView):
    """Put a CPU in a seat (host; not in ranked rooms)."""

    @extend_schema(request=CpuSeatSerializer, responses={200: RoomSerializer}, operation_id="rooms_cpu")
    def post(self, request, code: str):
        selectors.room_get(code=code)
        data = _valid(CpuSeatSerializer, request)
        return _room_answer(request, services.room_set_cpu(code=code, user=request.user, seat=data["seat"],
                                                  level=data.get("level")))


class RoomSeatApi(RoomCodeThrottled, APIView):
    """Empty a seat: remove a CPU or a player (host, not while playing)."""

    @extend_schema(request=None, responses={200: RoomSerializer}, operation_id="rooms_seat_clear")
    def delete(self, request, code: str, index: int):
        return _room_answer(request, services.room_clear_seat(code=code, user=request.user, index=index))


class RoomStartApi(RoomCodeThrottled, APIView):
    """Start the game (host); unranked rooms fill empty seats with CPUs."""

    @extend_schema(request=None, responses={
        201: RoomSerializer,
        **errors(401, 403, 404, 409, s409="already_started / seats_not_filled / cpu_not_allowed / insufficient_coins "
                                     "(with seats, needed: a seat cannot pay the stake) / stakes_friends_only")},
        operation_id="rooms_start")
    def post(self, request, code: str):
        return _room_answer(request, services.room_start(code=code, user=request.user), status.HTTP_201_CREATED)


class RoomRematchApi(RoomCodeThrottled, APIView):
    """A new game in a finished room (host): same seats and rules, new seed."""

    @extend_schema(request=None, responses={
        201: RoomSerializer,
        **errors(400, 401, 403, 404, 409, s409="already_started / insufficient_coins (with seats, needed) / "
                                          "stakes_friends_only")},
        operation_id="rooms_rematch")
    def post(self, request, code: str):
        return _room_answer(request, services.room_rematch(code=code, user=request.user), status.HTTP_201_CREATED)


class RoomMessagesApi(RoomCodeThrottled, APIView):
    """The room's chat: the last 50 messages (before ``?before=<id>``), oldest first; post one."""

    @extend_schema(
        parameters=[OpenApiParameter("before", int, description="only messages with a smaller id")],
        responses={200: ChatMessageSerializer(many=True)}, operation_id="rooms_messages_list",
    )
    def get(self, request, code: str):
        raw = request.query_params.get("before")
        before = int(raw) if raw is not None and raw.isascii() and raw.isdigit() and len(raw) <= 18 else None
        if raw is not None and before is None:
            services.chat_list(code=code, user=request.user)  # 404 and 403 come first
            raise ApiError("invalid", "before: a message id.", 400, fields={"before": ["A message id."]})
        messages = services.chat_list(code=code, user=request.user, before=before)
        names = selectors.chat_names(room=selectors.room_get(code=code), messages=messages)
        return Response(ChatMessageSerializer(messages, many=True, context={"names": names}).data)

    @extend_schema(request=ChatPostSerializer, responses={201: ChatMessageSerializer},
                   operation_id="rooms_messages_post")
    def post(self, request, code: str):
        message = services.chat_post(code=code, user=request.user, data=request.data)
        return Response(message_data(message, selectors.chat_names(room=message.room, messages=[message])),
                        status=status.HTTP_201_CREATED)


class RoomVoiceApi(RoomCodeThrottled, APIView):
    """Voice for a seated player (docs/voice.md): whether the host allows it, who is in it, the ICE servers
    to give ``RTCPeerConnection`` and the signal size limit. Joining, leaving and signalling go over the
    room socket."""

    @extend_schema(responses={200: VoiceSerializer, **errors(401, 403, 404, s403="not_a_player (no seat)")}, operation_id="rooms_voice")
    def get(self, request, code: str):
        return Response(voice_state(code=code, user=request.user))


class ChatCatalogueApi(APIView):
    """The fixed emoji and quick phrases a chat message may carry."""

    @extend_schema(responses={200: CatalogueSerializer}, operation_id="chat_catalogue")
    def get(self, request):
        return Response(catalogue())


class GamesCatalogueApi(APIView):
    """Every game's seat range, presets and rules settings (type, allowed values, default, value per
    preset, label and description in the request's language), the turn timers, CPU levels and speeds.
    Public: no sign-in needed."""

    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    @extend_schema(responses={200: GamesCatalogueSerializer}, operation_id="games_catalogue",
                   auth=[], parameters=[ACCEPT_LANGUAGE])
    def get(self, request):
        return Response(games_catalogue())


class MyRoomsApi(APIView):
    """The caller's rooms not closed, with ``game_id`` (to return to a seat from any device)."""

    @extend_schema(responses={200: RoomSerializer(many=True)}, operation_id="me_rooms")
    def get(self, request):
        rooms = selectors.rooms_for_user(request.user)
        base_url = request_base_url(request)
        return Response([room_data(room, base_url=base_url) for room in rooms])
