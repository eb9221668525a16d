"""ASGI entry point: HTTP through Django, WebSocket through Channels (origin validation and auth)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django_asgi_app = get_asgi_application()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

from config.ws_auth import WebsocketAuthStack  # noqa: E402


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any other WebSocket path: the handshake is refused (HTTP 403), never a server error."""

    async def connect(self):
        await self.close()


def _websocket_routes():
    from rooms.routing import websocket_urlpatterns

    return [*websocket_urlpatterns, re_path(r"", NoSuchSocket.as_asgi())]


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": WebsocketAuthStack(URLRouter(_websocket_routes())),
    }
)
