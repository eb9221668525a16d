"""The reports API: ``POST /api/reports`` (one API class per operation)."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.schema import errors
from moderation import services
from moderation.serializers import ReportCreateSerializer, ReportSerializer
from moderation.throttles import ReportThrottle


class ReportCreateApi(APIView):
    """Report a user, a chat message or a game to the moderators, once per target."""

    throttle_classes = [ReportThrottle]

    @extend_schema(
        request=ReportCreateSerializer,
        responses={
            201: ReportSerializer,
            **errors(400, 401, 403, 404, 409, 413, 415, 429,
                     s400="invalid: a bad field (kind, target_id, reason, note over 500 characters); reporting "
                          "yourself or your own message / parse_error",
                     s403="not_a_player (a game you did not play) / banned / suspended",
                     s404="not_found: no such user or game, or a message of a room you were never in",
                     s409="already_reported: you reported this target before",
                     s429="throttled: too many reports (THROTTLE_REPORT, default 10 an hour; Retry-After)"),
        },
        operation_id="reports_create",
    )
    def post(self, request):
        ser = ReportCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        report = services.report_create(reporter=request.user, **ser.validated_data)
        return Response(ReportSerializer(report).data, status=status.HTTP_201_CREATED)
