"""The deployment files, checked without a Docker engine (issue 15 "The set-up mended"): the compose file
parsed and linted, the image's user and build context, settings that never read ``.env``, production's
refusals, ``make run`` on a taken port, and the web server's size."""

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from config import web
from config.settings.checks import check_secret_key

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _shell_words(test) -> list[str]:
    return test if isinstance(test, list) else ["CMD-SHELL", test]


def test_compose_services_depend_on_what_exists_and_healthchecks_can_pass():
    services = _compose()["services"]
    assert {"postgres", "redis", "migrate", "web", "worker", "beat"} <= set(services)
    for name, svc in services.items():
        assert "image" in svc or "build" in svc, name
        for dep, cond in (svc.get("depends_on") or {}).items():
            assert dep in services and dep != name, (name, dep)
            condition = cond["condition"]
            if condition == "service_healthy":
                assert "healthcheck" in services[dep], (name, dep)
            else:
                assert condition == "service_completed_successfully", (name, dep, condition)
                assert services[dep].get("restart") == "no", dep  # a one-shot that exits
        check = svc.get("healthcheck")
        if check:
            words = _shell_words(check["test"])
            assert words[0] in ("CMD", "CMD-SHELL", "NONE"), (name, words)
            if words[0] == "CMD":
                # The exec form runs no shell: "$HOSTNAME" would reach the program as those 9 characters.
                assert not any("$" in w for w in words[1:]), (name, words)
            else:
                assert len(words) == 2, (name, words)


def test_worker_and_beat_start_after_migrations_and_the_worker_healthcheck_pings_its_own_name():
    services = _compose()["services"]
    assert services["migrate"]["command"][-3:] == ["migrate", "--noinput"] or "migrate" in services["migrate"]["command"]
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert "migrate" not in " ".join(services[name]["command"]), name  # only the one-shot migrates
    worker = services["worker"]
    node = worker["command"][worker["command"].index("-n") + 1]
    assert node == "worker@%h"  # %h: the host name, which is $HOSTNAME in a container
    test = _shell_words(worker["healthcheck"]["test"])
    assert test[0] == "CMD-SHELL" and "-d worker@$$HOSTNAME" in test[1]  # compose turns $$ into $


def test_web_runs_one_worker_per_core_and_celery_keeps_its_own_connections():
    services = _compose()["services"]
    assert services["web"]["command"] == ["python", "-m", "config.web"]
    assert "WEB_CONCURRENCY" not in services["web"]["environment"]  # the default: the container's cores
    for name in ("worker", "beat"):
        assert services[name]["environment"]["DATABASE_POOL"] == "false", name


def test_the_build_context_and_the_image():
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".venv", "var", ".env", ".git"} <= ignored
    lines = [ln.strip() for ln in (ROOT / "Dockerfile").read_text().splitlines() if ln.strip()
             and not ln.startswith("#")]
    users = [ln.split()[1] for ln in lines if ln.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    cmd = [ln for ln in lines if ln.startswith("CMD ")][-1]
    assert '"config.web"' in cmd


def test_env_example_holds_no_compose_only_hosts():
    text = (ROOT / ".env.example").read_text()
    assert not re.search(r"^(DATABASE_URL|REDIS_URL)=", text, re.M)  # compose sets them itself


def _python(code: str, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True,
                          timeout=60)


def test_settings_never_read_a_dotenv_file():
    """The settings take the process's environment only: a ``.env`` written for compose (hosts
    ``postgres``/``redis``) must not reach ``make run`` or ``make test``."""
    code = ("import environ\n"
            "def refuse(*a, **k): raise SystemExit('settings read a .env file')\n"
            "environ.Env.read_env = refuse\n"
            "import config.settings.local, config.settings.test, config.settings.production\n"
            "print('ok')")
    res = _python(code, SECRET_KEY="x" * 10 + "abcdefghijklmnopqrstuvwxyz")
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]


@pytest.mark.parametrize("key", ["", "insecure-development-key-change-me", "test-secret-key",
                                 "change-me-to-a-long-random-string", "django-insecure-" + "k" * 40,
                                 "short-but-random-9Qx", "a" * 60])
def test_production_refuses_a_development_secret_key(key):
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        check_secret_key(key)


def test_production_starts_with_a_real_key_and_refuses_debug():
    key = "Zq8mN3vR7pL2xW9cT4bY6hJ1kF5sD0gA"  # 32 characters, 32 distinct
    check_secret_key(key)
    ok = _python("import config.settings.production as s; print(s.DEBUG)", SECRET_KEY=key)
    assert ok.returncode == 0 and ok.stdout.strip() == "False", ok.stderr[-2000:]
    refused = _python("import config.settings.production", SECRET_KEY=key, DEBUG="true")
    assert refused.returncode != 0 and "DEBUG=true is refused" in refused.stderr
    placeholder = _python("import config.settings.production", SECRET_KEY="change-me-to-a-long-random-string")
    assert placeholder.returncode != 0 and "development key" in placeholder.stderr


def test_make_run_on_a_taken_port_stops_at_once_and_says_why():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
        res = subprocess.run([sys.executable, "scripts/serve.py"], cwd=ROOT, capture_output=True, text=True,
                             env={**env, "PORT": str(port), "HOST": "127.0.0.1"}, timeout=60)
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in res.stdout and f"PORT={port + 1} make run" in res.stdout
    assert "[run] started" not in res.stdout and "[run] ready" not in res.stdout  # nothing was started


def test_web_server_size_and_logging():
    assert web.cores() == len(os.sched_getaffinity(0))
    assert web.web_options({})["workers"] == 2 * len(os.sched_getaffinity(0))  # two processes a core
    options = web.web_options({"WEB_CONCURRENCY": "3", "PORT": "8123", "HOST": "0.0.0.0"})
    assert (options["workers"], options["port"], options["host"], options["lifespan"]) == (3, 8123, "0.0.0.0", "off")
    # Idle keep-alive connections outlast the clients' and a balancer's 60 s (uvicorn's default is 5 s).
    assert options["timeout_keep_alive"] == 65
    assert web.web_options({"WEB_KEEPALIVE_SECONDS": "120"})["timeout_keep_alive"] == 120
    assert options["ws_max_size"] == 1024 * 1024  # a socket message's hard limit (uvicorn's default: 16 MiB)
    assert options["ws_per_message_deflate"] is False  # uvicorn's default compresses every socket
    assert web.web_options({"WEB_WS_DEFLATE": "true"})["ws_per_message_deflate"] is True
    assert web.web_options({"WEB_WS_DEFLATE": "false"})["ws_per_message_deflate"] is False
    with pytest.raises(ValueError, match="WEB_WS_DEFLATE"):
        web.web_options({"WEB_WS_DEFLATE": "enabled"})
    assert web.socket_args({}) == ["--ws-max-size", "1048576", "--ws-per-message-deflate", "False"]
    plain = options["log_config"]
    assert plain["formatters"]["access"]["()"] == "uvicorn.logging.AccessFormatter"
    assert plain["handlers"]["access"]["filters"] == ["redact_tokens"]
    as_json = web.web_options({"LOG_FORMAT": "json"})["log_config"]
    assert {f["()"] for f in as_json["formatters"].values()} == {"pythonjsonlogger.json.JsonFormatter"}


@pytest.mark.parametrize(("env", "expected"), [
    ({}, "True 5"),
    ({"DATABASE_PREPARE_THRESHOLD": "none"}, "True None"),
    ({"DATABASE_PREPARE_THRESHOLD": ""}, "True None"),
    ({"DATABASE_PREPARE_THRESHOLD": "2"}, "True 2"),
    ({"DATABASE_SERVER_SIDE_BINDING": "false"}, "False 5"),
])
def test_postgresql_prepared_statements_are_on_by_default_and_can_be_turned_off(env, expected):
    """PostgreSQL: server-side binding and psycopg's prepare threshold 5 by default; ``none`` turns
    preparing off (a pooler that cannot carry prepared statements)."""
    code = ("import django, os\nos.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings.local'\n"
            "from django.conf import settings\n"
            "o = settings.DATABASES['default']['OPTIONS']\n"
            "print(o['server_side_binding'], o['prepare_threshold'])")
    res = _python(code, DATABASE_URL="postgres://postgres@127.0.0.1:5432/x", **env)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == expected
