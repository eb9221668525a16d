"""The ASGI server as ``make run``, docker compose and the image start it: ``python -m config.web``.

uvicorn with two worker processes per core this machine has for us (``os.sched_getaffinity``; the
``WEB_CONCURRENCY`` variable overrides), on ``HOST``:``PORT`` (default 127.0.0.1:8000), lifespan off,
logging as ``config/uvicorn_logging.json`` (``LOG_FORMAT=json``: one JSON object a line). Tokens in
socket URLs are redacted from every line (``config.logfilters.RedactTokens``).

An idle keep-alive connection is kept ``WEB_KEEPALIVE_SECONDS`` (default 65 s; uvicorn's own default is
5 s). A client keeps an idle connection for reuse (httpx 5 s, OkHttp 5 min, browsers about a minute, load
balancers 60 s); when the server closes it first, a request sent at that moment fails with a reset the
client did not cause (the bench saw ``ReadError`` on action POSTs of seats that had waited 5 s for the
others). The server's idle time must outlast the clients' and the balancer's.

Two processes a core, not one: a process's event loop (every socket's frames) and its socket threads
(the database work of every action) take turns at one GIL, and with ~1,800 sockets a process the loop
waited behind the threads; spread over more processes, the operating system shares the cores among them
instead, for some memory more a process (figures: bench/README.md "1,000 games").

Sockets are not compressed (no permessage-deflate; ``WEB_WS_DEFLATE=true`` offers it): a room's frames
are small JSON views, and a compressed socket keeps a zlib compressor and decompressor for as long as it
is open and runs every frame through them, on both sides. Socket.IO and Node's ``ws`` leave it off by
default for the same reasons (figures: bench/README.md "1,000 games, a third look").

A WebSocket message over ``WS_MAX_BYTES`` (1 MiB; uvicorn's own default is 16 MiB) closes its connection
with 1009 before it is read whole; the room consumer answers one over ``MAX_BODY_BYTES`` (64 KiB, a REST
body's limit) with a ``too_large`` error without parsing it. A guest's 14 MB frames held a web process's
event loop for seconds (parsed on the loop), every other socket and request of that process waiting.
"""

import json
import os
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent
KEEPALIVE_SECONDS = 65  # longer than a load balancer's 60 s idle time (see the module docstring)
WS_MAX_BYTES = 1024 * 1024  # a WebSocket message's hard limit (see the module docstring)
WORKERS_PER_CORE = 2  # uvicorn processes a core (see the module docstring)
WS_DEFLATE = False  # permessage-deflate on the sockets (see the module docstring)
GC_THRESHOLDS = (50_000, 20, 10)  # a server process's gc.set_threshold (config.asgi.settle_heap says why)


def cores() -> int:
    """CPU cores this process may run on (a container's cpuset included), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def log_config(log_format: str) -> dict:
    """uvicorn's logging dict: the plain one, or the same handlers with a JSON formatter."""
    config = json.loads((CONFIG_DIR / "uvicorn_logging.json").read_text())
    if log_format == "json":
        for name in config["formatters"]:
            config["formatters"][name] = {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            }
    return config


def ws_deflate(environ: dict) -> bool:
    """Whether the sockets offer permessage-deflate: ``WEB_WS_DEFLATE`` (true/false), else ``WS_DEFLATE``.
    Raises ``ValueError`` for any other value."""
    value = environ.get("WEB_WS_DEFLATE", "").strip().lower()
    if not value:
        return WS_DEFLATE
    if value not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        raise ValueError(f"WEB_WS_DEFLATE must be true or false, not {value!r}")
    return value in ("1", "true", "yes", "on")


def socket_args(environ: dict) -> list[str]:
    """uvicorn's command-line options for the sockets as :func:`web_options` sets them (the message limit
    and compression), for what starts ``uvicorn`` itself (the bench, the tests' live server)."""
    return ["--ws-max-size", str(WS_MAX_BYTES), "--ws-per-message-deflate", str(ws_deflate(environ))]


def web_options(environ: dict) -> dict:
    """Keyword arguments of ``uvicorn.run`` from the environment (see the module docstring)."""
    workers = int(environ.get("WEB_CONCURRENCY") or 0) or WORKERS_PER_CORE * cores()
    return {
        "host": environ.get("HOST", "127.0.0.1"),
        "port": int(environ.get("PORT", "8000")),
        "workers": workers,
        "lifespan": "off",
        "log_config": log_config(environ.get("LOG_FORMAT", "plain")),
        "access_log": environ.get("ACCESS_LOG", "true").lower() not in ("0", "false", "no", "off"),
        "timeout_keep_alive": int(environ.get("WEB_KEEPALIVE_SECONDS") or KEEPALIVE_SECONDS),
        "ws_max_size": WS_MAX_BYTES,
        "ws_per_message_deflate": ws_deflate(environ),
        "proxy_headers": True,
        "forwarded_allow_ips": environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1"),
    }


def main() -> None:
    import uvicorn  # lazy: only the server's entry point needs it, not the modules reading web_options

    options = web_options(dict(os.environ))
    multiproc = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if multiproc:
        Path(multiproc).mkdir(parents=True, exist_ok=True)
    uvicorn.run("config.asgi:application", **options)


if __name__ == "__main__":
    main()
