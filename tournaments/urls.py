"""URLs of the Tournaments API, included under ``/api/``."""

from django.urls import path

from tournaments import apis

urlpatterns = [
    path("tournaments", apis.TournamentListCreateApi.as_view(), name="tournaments"),
    path("tournaments/<str:code>", apis.TournamentDetailApi.as_view(), name="tournaments-detail"),
    path("tournaments/<str:code>/join", apis.TournamentJoinApi.as_view(), name="tournaments-join"),
    path("tournaments/<str:code>/leave", apis.TournamentLeaveApi.as_view(), name="tournaments-leave"),
    path("tournaments/<str:code>/cancel", apis.TournamentCancelApi.as_view(), name="tournaments-cancel"),
    path("tournaments/<str:code>/players/<int:player_id>", apis.TournamentPlayerApi.as_view(),
         name="tournaments-player"),
]
