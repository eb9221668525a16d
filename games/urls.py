"""URLs of the games API, mounted at ``api/games/``."""

from django.urls import path

from games import apis

urlpatterns = [
    path("<int:game_id>", apis.GameDetailApi.as_view(), name="game-detail"),
    path("<int:game_id>/actions", apis.GameActionApi.as_view(), name="game-actions"),
    path("<int:game_id>/autoplay", apis.GameAutoplayApi.as_view(), name="game-autoplay"),
    path("<int:game_id>/log", apis.GameLogApi.as_view(), name="game-log"),
    path("<int:game_id>/record", apis.GameRecordApi.as_view(), name="game-record"),
    path("<int:game_id>/heartbeat", apis.GameHeartbeatApi.as_view(), name="game-heartbeat"),
]
