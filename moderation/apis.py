"""The reports API (``POST /api/reports``), the caller's notices (``GET /api/me/notices``, ``POST
/api/me/notices/seen``) and appeals (``POST /api/appeals``); one API class per operation."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import StandingSessionAuthentication, StandingTokenAuthentication
from config.schema import errors
from moderation import notices, services
from moderation.serializers import (
    AppealCreateSerializer,
    AppealSerializer,
    NoticeListSerializer,
    NoticeSeenAnswerSerializer,
    NoticeSeenSerializer,
    NoticeSerializer,
    ReportCreateSerializer,
    ReportSerializer,
)
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


class NoticeListApi(APIView):
    """What the caller was told and has not marked seen: warnings, reports acted on, appeals decided.
    Answers a sanctioned player too."""

    def get_authenticators(self):
        return [StandingTokenAuthentication(check_standing=False), StandingSessionAuthentication()]

    @extend_schema(responses={200: NoticeListSerializer, **errors(401)}, operation_id="me_notices")
    def get(self, request):
        return Response({"notices": NoticeSerializer(notices.notices_unseen(user=request.user), many=True).data})


class NoticeSeenApi(APIView):
    """Mark the caller's notices up to an id seen (they are not listed again)."""

    def get_authenticators(self):
        return [StandingTokenAuthentication(check_standing=False), StandingSessionAuthentication()]

    @extend_schema(request=NoticeSeenSerializer, responses={200: NoticeSeenAnswerSerializer,
                                                            **errors(400, 401, s400="invalid: up_to")},
                   operation_id="me_notices_seen")
    def post(self, request):
        ser = NoticeSeenSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        return Response({"marked": notices.notices_mark_seen(user=request.user, **ser.validated_data)})


class AppealCreateApi(APIView):
    """Appeal one of your sanctions in force, once: it goes to the moderators' appeal queue. A banned or
    suspended player's token is accepted here."""

    def get_authenticators(self):
        return [StandingTokenAuthentication(check_standing=False), StandingSessionAuthentication()]
    throttle_classes = [ReportThrottle]

    @extend_schema(
        request=AppealCreateSerializer,
        responses={201: AppealSerializer,
                   **errors(400, 401, 404, 409, 429,
                            s400="invalid: sanction_id, or text empty / over 1000 characters / against the text "
                                 "policy",
                            s404="not_found: no such sanction of yours in force",
                            s409="already_appealed: one appeal per sanction",
                            s429="throttled (THROTTLE_REPORT)")},
        operation_id="appeals_create",
    )
    def post(self, request):
        ser = AppealCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        appeal = notices.appeal_create(user=request.user, **ser.validated_data)
        return Response(AppealSerializer(appeal).data, status=status.HTTP_201_CREATED)
