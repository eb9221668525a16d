"""WebSocket route of the tournaments app (``config.asgi`` mounts it behind ``config.ws_auth``)."""

from django.urls import re_path

from tournaments.consumers import TournamentConsumer

websocket_urlpatterns = [
    re_path(r"^ws/tournaments/(?P<code>[A-Za-z0-9]{1,16})/?$", TournamentConsumer.as_asgi()),
]
