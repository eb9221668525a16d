"""URLs of the Rooms API, included under ``/api/``."""

from django.urls import path

from rooms import apis

urlpatterns = [
    path("games/catalogue", apis.GamesCatalogueApi.as_view(), name="games-catalogue"),
    path("rooms", apis.RoomCreateApi.as_view(), name="rooms-create"),
    path("rooms/<str:code>", apis.RoomDetailApi.as_view(), name="rooms-detail"),
    path("rooms/<str:code>/join", apis.RoomJoinApi.as_view(), name="rooms-join"),
    path("rooms/<str:code>/leave", apis.RoomLeaveApi.as_view(), name="rooms-leave"),
    path("rooms/<str:code>/cpu", apis.RoomCpuApi.as_view(), name="rooms-cpu"),
    path("rooms/<str:code>/seats/<int:index>", apis.RoomSeatApi.as_view(), name="rooms-seat"),
    path("rooms/<str:code>/start", apis.RoomStartApi.as_view(), name="rooms-start"),
    path("rooms/<str:code>/rematch", apis.RoomRematchApi.as_view(), name="rooms-rematch"),
    path("rooms/<str:code>/voice", apis.RoomVoiceApi.as_view(), name="rooms-voice"),
    path("rooms/<str:code>/messages", apis.RoomMessagesApi.as_view(), name="rooms-messages"),
    path("chat/catalogue", apis.ChatCatalogueApi.as_view(), name="chat-catalogue"),
    path("me/rooms", apis.MyRoomsApi.as_view(), name="me-rooms"),
]
