"""Calling the ASGI application as a server would, for tests that go through ``config.asgi`` (the request
slots, the action's answer)."""


def http_scope(path: str, method: str = "GET", headers: list[tuple[bytes, bytes]] | None = None) -> dict:
    """The ASGI ``http`` scope of a request for ``path`` from 127.0.0.1 to ``localhost``: ``headers`` as
    ``(name, value)`` bytes, a ``host`` header added."""
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [*(headers or []), (b"host", b"localhost")], "client": ("127.0.0.1", 1),
            "server": ("localhost", 80)}
