"""URLs of the reports API, included under ``/api/``."""

from django.urls import path

from moderation import apis

urlpatterns = [
    path("reports", apis.ReportCreateApi.as_view(), name="reports-create"),
]
