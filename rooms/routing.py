"""WebSocket routes of the rooms app (``config.asgi`` mounts them behind ``accounts.ws_auth``)."""

from django.urls import re_path

from rooms.consumers import RoomConsumer

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{1,16})/?$", RoomConsumer.as_asgi()),  # trailing slash optional
]
