"""The notify API (docs/party.md): invitations to a room, Web Push key and subscriptions."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import ApiError
from config.links import request_base_url
from config.schema import errors
from notify import push, services
from notify.serializers import (
    InvitedSerializer,
    InviteSerializer,
    PushEndpointSerializer,
    PushKeySerializer,
    PushSubscriptionSerializer,
)
from rooms.throttles import RoomCodeThrottled


def _valid(serializer_class, request):
    ser = serializer_class(data=request.data)
    ser.is_valid(raise_exception=True)
    return ser.validated_data


class RoomInviteApi(RoomCodeThrottled, APIView):
    """Invite a friend to the room: an ``invitation`` on their user socket, or a Web Push."""

    @extend_schema(request=InviteSerializer, responses={200: InvitedSerializer, **errors(
        400, 401, 403, 404, 409, s400="invalid (user_id: yourself, or not a friend)",
        s403="not_in_room (you have no seat here) / banned / suspended",
        s409="already_started / already_seated")}, operation_id="rooms_invite")
    def post(self, request, code: str):
        data = _valid(InviteSerializer, request)
        return Response(services.room_invite(code=code, user=request.user, to_user_id=data["user_id"],
                                             base_url=request_base_url(request)))


class PushKeyApi(APIView):
    """The server's VAPID public key (the page's ``applicationServerKey``)."""

    @extend_schema(responses={200: PushKeySerializer}, operation_id="push_key")
    def get(self, request):
        return Response({"public_key": push.public_key()})


class PushSubscriptionsApi(APIView):
    """Subscribe this browser to Web Push (turns and invitations while no user socket is open), or not."""

    @extend_schema(request=PushSubscriptionSerializer, responses={201: PushEndpointSerializer, **errors(400, 401)},
                   operation_id="push_subscribe")
    def post(self, request):
        data = _valid(PushSubscriptionSerializer, request)
        sub = services.push_subscribe(user=request.user, endpoint=data["endpoint"], p256dh=data["keys"]["p256dh"],
                                      auth=data["keys"]["auth"])
        return Response({"endpoint": sub.endpoint}, status=status.HTTP_201_CREATED)

    @extend_schema(request=PushEndpointSerializer, responses={204: None, **errors(400, 401, 404)},
                   operation_id="push_unsubscribe")
    def delete(self, request):
        data = _valid(PushEndpointSerializer, request)
        if not services.push_unsubscribe(user=request.user, endpoint=data["endpoint"]):
            raise ApiError("not_found", "No such subscription.", 404)
        return Response(status=status.HTTP_204_NO_CONTENT)
