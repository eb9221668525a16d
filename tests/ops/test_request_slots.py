"""At most ``WEB_REQUEST_SLOTS`` requests of a server process run Django at once (config.asgi
``SlottedASGIHandler``); the others wait on the event loop and every one is answered. A slot is taken
only once the body has been read; probes take none."""

import asyncio
import json

import pytest
from asgiref.testing import ApplicationCommunicator
from django.core.handlers.asgi import ASGIHandler

from config.asgi import SlottedASGIHandler, django_asgi_app
from tests.asgi import http_scope


class _Gate:
    """Stands in for Django's own ``get_response_async``: counts the requests inside it and holds each
    until released."""

    def __init__(self):
        self.inside = 0
        self.most = 0
        self.release = asyncio.Event()

    async def __call__(self, handler, request):
        self.inside += 1
        self.most = max(self.most, self.inside)
        try:
            await self.release.wait()
        finally:
            self.inside -= 1
        from django.http import HttpResponse

        return HttpResponse(request.path.encode())


async def _answer(communicator) -> bytes:
    start = await communicator.receive_output(5)
    assert start["type"] == "http.response.start" and start["status"] == 200
    body = await communicator.receive_output(5)
    return body["body"]


async def _until(condition, what: str) -> None:
    for _ in range(500):  # Django hops to threads before it reaches the slots: give it time
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


@pytest.mark.parametrize("slots, most", [(2, 2), (0, 5)])
async def test_requests_beyond_the_slots_wait_their_turn(monkeypatch, slots, most):
    gate = _Gate()
    monkeypatch.setattr(ASGIHandler, "get_response_async", lambda self, request: gate(self, request))
    handler = SlottedASGIHandler(slots)
    paths = [f"/r{i}" for i in range(5)]
    communicators = [ApplicationCommunicator(handler, http_scope(p)) for p in paths]
    for c in communicators:
        await c.send_input({"type": "http.request", "body": b"", "more_body": False})
    waiting = 5 - most

    def settled() -> bool:  # every request in Django or queued for a slot (Django hops to threads first)
        queued = len(handler._semaphore._waiters or ()) if handler._semaphore is not None else 0
        return gate.inside + queued == 5

    await _until(settled, "the requests did not all reach Django or the slots' queue")
    assert gate.inside == most  # 2 in Django and 3 waiting; with no limit all 5 in
    if slots:
        assert len(handler._semaphore._waiters) == waiting
    else:
        assert handler._semaphore is None  # never made
    gate.release.set()
    assert [await _answer(c) for c in communicators] == [p.encode() for p in paths]
    assert gate.most == most and gate.inside == 0
    for c in communicators:
        await c.wait(5)


def test_the_server_uses_the_setting(settings):
    assert isinstance(django_asgi_app, SlottedASGIHandler)
    assert django_asgi_app.slots == settings.WEB_REQUEST_SLOTS
    assert django_asgi_app.wait_seconds == settings.WEB_REQUEST_SLOT_WAIT_SECONDS


async def test_a_request_still_sending_its_body_holds_no_slot(monkeypatch):
    gate = _Gate()
    monkeypatch.setattr(ASGIHandler, "get_response_async", lambda self, request: gate(self, request))
    handler = SlottedASGIHandler(1)
    slow = ApplicationCommunicator(handler, http_scope("/slow"))
    await slow.send_input({"type": "http.request", "body": b"{", "more_body": True})  # and nothing more
    quick = ApplicationCommunicator(handler, http_scope("/quick"))
    await quick.send_input({"type": "http.request", "body": b"", "more_body": False})
    await _until(lambda: gate.inside == 1, "the complete request did not get the one slot")
    gate.release.set()
    assert await _answer(quick) == b"/quick"
    assert gate.most == 1
    await slow.send_input({"type": "http.request", "body": b"}", "more_body": False})
    assert await _answer(slow) == b"/slow"
    for c in (slow, quick):
        await c.wait(5)


async def test_probes_take_no_slot(monkeypatch):
    gate = _Gate()
    monkeypatch.setattr(ASGIHandler, "get_response_async", lambda self, request: gate(self, request))
    handler = SlottedASGIHandler(1)
    communicators = [ApplicationCommunicator(handler, http_scope(p)) for p in ("/api/me", "/healthz", "/metrics")]
    for c in communicators:
        await c.send_input({"type": "http.request", "body": b"", "more_body": False})
    await _until(lambda: gate.inside == 3, "a probe waited for the slot /api/me holds")
    gate.release.set()
    assert [await _answer(c) for c in communicators] == [b"/api/me", b"/healthz", b"/metrics"]
    for c in communicators:
        await c.wait(5)


def test_a_new_event_loop_gets_its_own_slots(monkeypatch):
    """asyncio's semaphore keeps to the loop it first waited in: a handler used from a second loop (one
    per test under pytest-asyncio) makes new slots there instead of failing."""
    handler = SlottedASGIHandler(1)

    async def two_requests() -> list[bytes]:  # the second waits for the first's slot
        gate = _Gate()
        monkeypatch.setattr(ASGIHandler, "get_response_async", lambda self, request: gate(self, request))
        communicators = [ApplicationCommunicator(handler, http_scope(p)) for p in ("/a", "/b")]
        for c in communicators:
            await c.send_input({"type": "http.request", "body": b"", "more_body": False})
        await _until(lambda: gate.inside == 1 and len(handler._semaphore._waiters or ()) == 1,
                     "not one request in Django and one waiting")
        gate.release.set()
        return sorted([await _answer(c) for c in communicators])

    assert asyncio.run(two_requests()) == [b"/a", b"/b"]
    first = handler._semaphore
    assert asyncio.run(two_requests()) == [b"/a", b"/b"]
    assert handler._semaphore is not first


async def test_a_request_without_a_slot_in_time_is_answered_503(monkeypatch):
    """Slots that stay full (their requests stuck, e.g. behind a row lock held for long) do not hold the
    others forever: past ``WEB_REQUEST_SLOT_WAIT_SECONDS`` a request is answered as for a database
    connection not found in time, and the slot holder still gets its answer."""
    gate = _Gate()
    monkeypatch.setattr(ASGIHandler, "get_response_async", lambda self, request: gate(self, request))
    handler = SlottedASGIHandler(1, wait_seconds=0.2)
    stuck, late = (ApplicationCommunicator(handler, http_scope(p)) for p in ("/stuck", "/late"))
    await stuck.send_input({"type": "http.request", "body": b"", "more_body": False})
    await _until(lambda: gate.inside == 1, "the first request did not get the slot")
    await late.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await late.receive_output(5)
    assert start["status"] == 503
    assert {k.lower(): v for k, v in start["headers"]}[b"retry-after"] == b"5"
    body = json.loads((await late.receive_output(5))["body"])
    assert body == {"code": "unavailable", "detail": "The service is briefly unavailable; try again shortly.",
                    "retry_after": 5}
    assert gate.most == 1
    gate.release.set()
    assert await _answer(stuck) == b"/stuck"
    assert handler._semaphore._value == 1  # the slot is free again; the refused request took none
    for c in (stuck, late):
        await c.wait(5)
