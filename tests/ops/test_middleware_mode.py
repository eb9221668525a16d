"""Under ASGI each request's Django work (the middleware chain, ``process_view``, the view, the rendering of
DRF's response, the log line of a 4xx/5xx) runs in ONE call to the request's thread
(``config.asgi.SlottedASGIHandler``): the chain is built sync, as under WSGI. Django's async path switched
between the event loop and that thread about six times a request (bench/README.md "Server")."""

import pytest
from asgiref.sync import SyncToAsync, iscoroutinefunction
from asgiref.testing import ApplicationCommunicator

from tests.asgi import http_scope

# Around the request, not part of it: ASGIHandler sends request_started (sync receivers) and closes the
# response (request_finished) from the event loop, each through one call.
AROUND = {"Signal.asend.<locals>.sync_send", "HttpResponseBase.close"}


def test_the_handler_builds_the_middleware_chain_sync():
    from config.asgi import django_asgi_app

    assert not iscoroutinefunction(django_asgi_app._middleware_chain)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path, status", [("/api/me", 401), ("/api/chat/catalogue", 401), ("/healthz", None)])
async def test_a_request_goes_to_its_thread_once(path, status, monkeypatch):
    from config.asgi import application

    calls, real = [], SyncToAsync.__call__

    def recording(self, *args, **kwargs):
        calls.append(getattr(self.func, "__qualname__", repr(self.func)))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", recording)
    comm = ApplicationCommunicator(application, http_scope(path))
    await comm.send_input({"type": "http.request", "body": b""})
    start = await comm.receive_output(timeout=20)
    await comm.receive_output(timeout=20)
    await comm.wait(timeout=20)
    if status is not None:
        assert start["status"] == status
    assert [c for c in calls if c not in AROUND] == ["BaseHandler.get_response"], calls
