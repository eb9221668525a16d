"""ASGI entry point: HTTP through Django (:class:`SlottedASGIHandler`), WebSocket through Channels (origin
validation and auth)."""

import asyncio
import gc
import os
import time

import django
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from config import metrics
from config.web import GC_THRESHOLDS

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")


class SlottedASGIHandler(ASGIHandler):
    """Django's ASGI handler letting at most ``slots`` requests of this process run the middleware and the
    view at once (``WEB_REQUEST_SLOTS``, README "Serving"; 0: no limit); the others wait their turn on the
    event loop (asyncio's semaphore: first come, first served). The wait is observed in the
    ``chinchi_http_slot_wait_seconds`` histogram (the request duration histogram starts after it).

    Django runs each request's sync code in a thread of its own. Under a burst (64 games of punters
    betting at once) dozens of such threads took turns at the GIL with the event loop, which delivers
    every socket message, and queued on the database pool; bounded, a request waits on the loop instead,
    and the socket messages of the actions already applied go out meanwhile. A slot is taken once the
    body has been read (a slow client holds none) and given back when the view's response is built (a
    streamed body, and closing the response, which gives its database connection back, come after).
    ``/healthz`` and ``/metrics`` take no slot: a probe must answer while the slots are full. A request
    that waited ``wait_seconds`` (``WEB_REQUEST_SLOT_WAIT_SECONDS``) without a slot is answered ``503
    unavailable`` with ``Retry-After``, as one that waited that long for a database connection is (the
    slots stay full only while their requests are stuck, e.g. behind a row lock held for long). The slots
    belong to one event loop (a server process has one); a handler used from a new loop makes new ones.
    """

    UNSLOTTED = frozenset({"/healthz", "/metrics"})

    def __init__(self, slots: int, wait_seconds: float = 10.0):
        super().__init__()
        self.slots = slots
        self.wait_seconds = wait_seconds
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the semaphore's

    async def get_response_async(self, request):
        if self.slots <= 0 or request.path_info in self.UNSLOTTED:
            return await super().get_response_async(request)
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # first request, or a new loop (tests): asyncio's primitives keep to one
            self._semaphore, self._loop = asyncio.Semaphore(self.slots), loop
        semaphore, started = self._semaphore, time.perf_counter()
        try:
            async with asyncio.timeout(self.wait_seconds):
                await semaphore.acquire()
        except TimeoutError:
            response = unavailable_response()
            response._resource_closers.append(request.close)  # as Django's own answer does
            return response
        finally:
            metrics.SLOT_WAIT_SECONDS.observe(time.perf_counter() - started)
        try:
            return await super().get_response_async(request)
        finally:
            semaphore.release()


django.setup(set_prefix=False)
django_asgi_app = SlottedASGIHandler(settings.WEB_REQUEST_SLOTS, settings.WEB_REQUEST_SLOT_WAIT_SECONDS)

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import get_resolver, re_path  # noqa: E402

from accounts.ws_auth import WebsocketAuthStack  # noqa: E402
from config.errors import unavailable_response  # noqa: E402 - DRF's modules read the settings
from notify.routing import websocket_urlpatterns as notify_sockets  # noqa: E402
from rooms.routing import websocket_urlpatterns  # noqa: E402
from tournaments.routing import websocket_urlpatterns as tournament_sockets  # noqa: E402


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any other WebSocket path: the handshake is refused (HTTP 403), never a server error."""

    async def connect(self):
        await self.close()


def _websocket_routes():
    return [*websocket_urlpatterns, *tournament_sockets, *notify_sockets, re_path(r"", NoSuchSocket.as_asgi())]


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": WebsocketAuthStack(URLRouter(_websocket_routes())),
    }
)


def settle_heap() -> int:
    """Import what the first requests would (every route's view, serializer and service module), then move
    every object alive now out of reach of the cyclic garbage collector (:func:`gc.freeze`): a full
    collection then walks only what this process made since. What is alive at startup is nearly all
    modules, classes and settings; a frozen object that becomes garbage is still freed by reference
    counting (only a cycle among frozen objects would stay).

    Then collect the youngest generation every 50,000 new tracked objects instead of Python's 700, and the
    middle one every 20 of those (``config.web.GC_THRESHOLDS``). A server process holds its sockets'
    objects for as long as they are open (some 1,000 sockets a process at 1,000 games); the objects in
    flight at each young collection (a message being built, a frame being sent) outlived it and piled up
    in the old generation until a full collection walked all of them, every socket of the process
    waiting. Rare young collections leave those objects time to be freed first (docs/operations.md
    "Garbage collection"; figures: bench/README.md "1,000 games").
    Returns the count of objects frozen."""
    get_resolver().url_patterns  # noqa: B018 - the property imports every routed module (the sockets' are)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    return gc.get_freeze_count()


settle_heap()
