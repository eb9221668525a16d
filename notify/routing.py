"""WebSocket routes of notify (``config.asgi`` mounts them behind ``config.ws_auth``)."""

from django.urls import re_path

from notify.consumers import UserConsumer

websocket_urlpatterns = [
    re_path(r"^ws/me/?$", UserConsumer.as_asgi()),
]
