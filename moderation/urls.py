"""URLs of the reports API, included under ``/api/``."""

from django.urls import path

from moderation import apis

urlpatterns = [
    path("reports", apis.ReportCreateApi.as_view(), name="reports-create"),
    path("me/notices", apis.NoticeListApi.as_view(), name="me-notices"),
    path("me/notices/seen", apis.NoticeSeenApi.as_view(), name="me-notices-seen"),
    path("appeals", apis.AppealCreateApi.as_view(), name="appeals-create"),
]
