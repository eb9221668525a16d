"""Fixtures of the browser tests: the real service (uvicorn + a Celery worker, once per module), the
machine's Chromium driven by Playwright (never a downloaded browser), and a place for screenshots."""

import os
import shutil
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.live import ROOT, live_stack

ARTIFACTS = ROOT / "var" / "artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    """The machine's Chromium: ``CHROMIUM`` if set, else ``chromium`` on PATH (Debian's package)."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium")


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    """The service on a free port, on the test database (the tests are ``transaction=True``), once for
    the module: its worker takes long to start."""
    with django_db_blocker.unblock(), live_stack(tmp_path_factory.mktemp("web-server")) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module. Playwright's sync API keeps an event loop in this thread,
    which Django would take for async code: the test's own (synchronous) database reads are allowed
    while the browser is open, and only then."""
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            yield b
            b.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def artifacts() -> Path:
    """Where screenshots go (var/artifacts/, not committed)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(autouse=True)
def _quiet_server_after(request):
    """After a browser test: close its browser contexts (their sockets), then wait until no other session
    of the test database is inside a query or a transaction for a moment, so the test's flush (TRUNCATE)
    meets none of the server's or worker's late work (a game's end runs ratings and achievements)."""
    yield
    if "browser" not in request.fixturenames:
        return
    for context in request.getfixturevalue("browser").contexts:
        context.close()
    quiet, deadline = 0, time.monotonic() + 20
    while quiet < 10 and time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
                           "pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')")
            busy = cursor.fetchone()[0]
        quiet = 0 if busy else quiet + 1
        time.sleep(0.05)
