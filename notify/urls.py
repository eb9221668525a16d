"""URLs of the notify API, included under ``/api/``."""

from django.urls import path

from notify import apis

urlpatterns = [
    path("rooms/<str:code>/invite", apis.RoomInviteApi.as_view(), name="rooms-invite"),
    path("push/key", apis.PushKeyApi.as_view(), name="push-key"),
    path("push/subscriptions", apis.PushSubscriptionsApi.as_view(), name="push-subscriptions"),
]
