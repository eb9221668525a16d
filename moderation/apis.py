"""The reports API: ``POST /api/reports`` (one API class per operation)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from moderation import services
from moderation.serializers import ErrorSerializer, ReportCreateSerializer, ReportSerializer
from moderation.throttles import ReportThrottle


def _error(text: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=text)


class ReportCreateApi(APIView):
    """Report a user, a chat message or a game to the moderators, once per target."""

    throttle_classes = [ReportThrottle]

    @extend_schema(
        request=ReportCreateSerializer,
        responses={
            201: ReportSerializer,
            400: _error("`invalid`: a bad field (kind, target_id, reason, note over 500 characters); "
                        "reporting yourself or your own message."),
            401: _error("`not_authenticated` / `authentication_failed`."),
            403: _error("`not_a_player`: a game you did not play; `banned` / `suspended`."),
            404: _error("`not_found`: no such user, game, or message of a room you were in."),
            409: _error("`already_reported`: you reported this before."),
            429: _error("`throttled`: too many reports (THROTTLE_REPORT, default 10 an hour)."),
        },
        operation_id="reports_create",
    )
    def post(self, request):
        ser = ReportCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        report = services.report_create(reporter=request.user, **ser.validated_data)
        return Response(ReportSerializer(report).data, status=status.HTTP_201_CREATED)
