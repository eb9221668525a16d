"""Under ASGI the middleware chain runs sync, in the request's one thread (config/settings MIDDLEWARE).

Django runs each middleware async as long as every middleware inside it can; its own middleware (the
MiddlewareMixin ones) then call each process_request/process_response through ``sync_to_async``: a hop
from the event loop to a thread and back, per middleware, per request. A sync-only middleware innermost
turns the whole chain sync at once: Django adapts one handler (the view's side), logged at DEBUG."""

import logging

from django.core.handlers.asgi import ASGIHandler


def test_the_chain_is_adapted_once_at_its_innermost_middleware(settings, caplog):
    settings.DEBUG = True  # Django logs each adaptation only then
    with caplog.at_level(logging.DEBUG, logger="django.request"):
        ASGIHandler()
    adapted = [r.getMessage() for r in caplog.records if "adapted for" in r.getMessage()]
    assert adapted == [f"Asynchronous handler adapted for middleware {settings.MIDDLEWARE[-1]}."]
