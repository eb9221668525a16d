"""ASGI entry point: HTTP through Django, WebSocket through Channels (origin validation and auth)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.ws_auth import WebsocketAuthStack  # noqa: E402


def _websocket_routes():
    try:
        from rooms.routing import websocket_urlpatterns
    except ImportError:  # rooms without sockets yet
        websocket_urlpatterns = []
    return websocket_urlpatterns


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": WebsocketAuthStack(URLRouter(_websocket_routes())),
    }
)
