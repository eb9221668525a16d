"""Issue 38, the service's side: /healthz answers any Host while other paths keep the check; the
insecure-cookie escape hatch warns at start; every log line is JSON under LOG_FORMAT=json (migrate, Celery
worker and beat, Python and static-file warnings; no ANSI escapes); audit-trail rows are logged without
personal text; ``make run`` never prints an operator's METRICS_TOKEN."""

import json
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from config import health, web
from config.logfilters import RedactTokens

ROOT = Path(__file__).resolve().parents[2]
KEY = "Zq8mN3vR7pL2xW9cT4bY6hJ1kF5sD0gA"  # 32 characters, 32 distinct: production accepts it
WAIT = 90.0


# ------------------------------------------------------------------------------------------- /healthz
@pytest.mark.django_db
def test_healthz_answers_any_host_and_other_paths_keep_the_host_check(client, monkeypatch, settings):
    settings.ALLOWED_HOSTS = ["chinchi.example.net"]
    monkeypatch.setattr(health, "check_redis", lambda: "ok")
    monkeypatch.setattr(health, "check_celery", lambda: "ok")
    for host in ("10.0.3.7:8000", "172.18.0.5", "chinchi.example.net"):
        res = client.get("/healthz", HTTP_HOST=host)
        assert res.status_code == 200, host
        assert res.json() == {"database": "ok", "redis": "ok", "celery": "ok", "beat": "down: no sweep yet"}
    assert client.head("/healthz", HTTP_HOST="10.0.3.7").status_code == 200
    monkeypatch.setattr(health, "check_celery", lambda: "down: no worker answered")
    assert client.get("/healthz", HTTP_HOST="10.0.3.7").status_code == 503  # still the real answer
    # Every other path: a Host outside ALLOWED_HOSTS is refused as before.
    for path in ("/api/games/catalogue", "/metrics", "/admin/login/", "/healthz/", "/"):
        assert client.get(path, HTTP_HOST="10.0.3.7").status_code == 400, path
    assert client.get("/api/games/catalogue", HTTP_HOST="chinchi.example.net").status_code == 200
    # A POST to /healthz is no probe: it meets the Host check too.
    assert client.post("/healthz", HTTP_HOST="10.0.3.7").status_code == 400


# ------------------------------------------------------------------------------------------- helpers
def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "INSECURE_COOKIES",
                        "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "LOG_FORMAT", "PYTHONWARNINGS")}
    env.update(PYTHONUNBUFFERED="1", **extra)
    return env


def _json_lines(text: str) -> list[dict]:
    """Every non-blank line parsed as JSON (fails on the first that is not), none with an ANSI escape."""
    records = []
    for line in text.splitlines():
        if not line.strip():
            continue
        assert "\x1b" not in line, line
        try:
            records.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
    return records


def _python(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


# ------------------------------------------------------------------------------ insecure cookies
def test_insecure_cookies_are_a_setting_that_warns_at_start_as_json(tmp_path):
    code = ("import django; django.setup()\n"
            "from django.conf import settings\n"
            "print(json.dumps([settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE]))")
    base = _env(DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY=KEY, LOG_FORMAT="json",
                DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", STATIC_ROOT=str(tmp_path))
    secure = _python("import json\n" + code, base)
    assert secure.returncode == 0, secure.stderr[-2000:]
    assert secure.stdout.strip().splitlines()[-1] == "[true, true]"
    assert not [r for r in _json_lines(secure.stderr) if r["logger"] == "chinchi.startup"]

    insecure = _python("import json\n" + code, {**base, "INSECURE_COOKIES": "true"})
    assert insecure.returncode == 0, insecure.stderr[-2000:]
    assert insecure.stdout.strip().splitlines()[-1] == "[false, false]"
    warnings = [r for r in _json_lines(insecure.stderr) if r["logger"] == "chinchi.startup"]
    assert [(r["level"], r["message"].split(" ")[0]) for r in warnings] == [
        ("WARNING", "SESSION_COOKIE_SECURE"), ("WARNING", "CSRF_COOKIE_SECURE")]
    assert all("INSECURE_COOKIES" in r["message"] for r in warnings)

    one = _python("import json\n" + code, {**base, "CSRF_COOKIE_SECURE": "false"})
    assert one.stdout.strip().splitlines()[-1] == "[true, false]"
    assert [r["message"].split(" ")[0] for r in _json_lines(one.stderr) if r["logger"] == "chinchi.startup"] == [
        "CSRF_COOKIE_SECURE"]


# ------------------------------------------------------------------------------------------ JSON logs
def test_migrate_python_warnings_and_static_file_warnings_are_json_lines(tmp_path):
    env = _env(DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY=KEY, LOG_FORMAT="json",
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", STATIC_ROOT=str(tmp_path / "missing"),
               WHITENOISE_USE_FINDERS="false")
    res = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    records = _json_lines(res.stdout + res.stderr)
    messages = [r["message"] for r in records if r["logger"] == "chinchi.command.migrate"]
    assert messages[0] == "Operations to perform:"
    assert messages[1].startswith("  Apply all migrations: accounts, admin, auditlog, auth, ")
    assert "  Applying contenttypes.0001_initial... OK" in messages
    assert {r["level"] for r in records if r["logger"] == "chinchi.command.migrate"} == {"INFO"}

    code = ("import django, warnings; django.setup()\n"
            "warnings.warn('a deprecated thing', DeprecationWarning)\n"
            "from whitenoise.middleware import WhiteNoiseMiddleware\n"
            "WhiteNoiseMiddleware(lambda request: None)\n")
    res = _python(code, {**env, "PYTHONWARNINGS": "always"})
    assert res.returncode == 0, res.stderr[-2000:]
    records = _json_lines(res.stdout + res.stderr)
    warned = [r["message"] for r in records if r["logger"] == "py.warnings"]
    assert any("DeprecationWarning: a deprecated thing" in m for m in warned), warned
    assert any(f"No directory at: {tmp_path / 'missing'}" in m for m in warned), warned


def test_uvicorn_lines_carry_no_colour_copy():
    config = web.log_config("json")
    formatter_spec = dict(config["formatters"]["default"])
    factory = formatter_spec.pop("()")
    module, _, name = factory.rpartition(".")
    formatter = getattr(__import__(module, fromlist=[name]), name)(
        formatter_spec["format"], rename_fields=formatter_spec["rename_fields"])
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, "Started server process [%d]", (42,), None)
    record.color_message = "Started server process [\x1b[36m%d\x1b[0m] ?token=abc"
    assert RedactTokens().filter(record)
    line = formatter.format(record)
    assert "\x1b" not in line and "abc" not in line
    assert json.loads(line)["message"] == "Started server process [42]" and "color_message" not in json.loads(line)


def _start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = log.open("w")
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _wait_for_line(proc: subprocess.Popen, log: Path, needle: str) -> None:
    deadline = time.monotonic() + WAIT
    while needle not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no {needle!r} in:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)  # as docker stop does
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_the_worker_pools_own_lines_are_json(tmp_path):
    """billiard (Celery's pool) logs a child's death to its own logger with propagation off, after Celery's
    logging set-up has run: that line is JSON too."""
    code = ("from config.celery_app import app\n"
            "app.log.setup(loglevel='INFO')\n"
            "from billiard import util\n"
            "util.get_logger().error('Process %r pid:%r exited with %r', 'ForkPoolWorker-1', 8269, 'signal 15')\n")
    res = _python(code, _env(DJANGO_SETTINGS_MODULE="config.settings.test", LOG_FORMAT="json",
                             DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}"))
    assert res.returncode == 0, res.stderr[-2000:]
    records = [r for r in _json_lines(res.stdout + res.stderr) if r["logger"] == "multiprocessing"]
    assert [(r["level"], r["message"]) for r in records] == [
        ("ERROR", "Process 'ForkPoolWorker-1' pid:8269 exited with 'signal 15'")]


@pytest.mark.redis
def test_celery_worker_and_beat_print_only_json_lines(tmp_path):
    queue = f"test-logs-{uuid.uuid4().hex[:8]}"
    env = _env(DJANGO_SETTINGS_MODULE="config.settings.test", LOG_FORMAT="json", CELERY_TASK_ALWAYS_EAGER="false",
               CELERY_TASK_DEFAULT_QUEUE=queue, BEAT_LOCK_KEY=f"test:beat-lock:{queue}",
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    celery = [sys.executable, "-m", "celery", "-A", "config", "--quiet"]
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
    worker = _start([*celery, "worker", "-c", "1", "-Q", queue, "-n", f"{queue}@%h", "--without-gossip",
                     "--without-mingle", "--loglevel", "INFO"], env, worker_log)
    beat = _start([*celery, "beat", "--loglevel", "INFO", "--schedule", str(tmp_path / "schedule")], env, beat_log)
    try:
        _wait_for_line(worker, worker_log, " ready.")
        _wait_for_line(beat, beat_log, "holds the beat lock")
    finally:
        _stop(worker)
        _stop(beat)
        import redis

        client = redis.Redis.from_url(os.environ["REDIS_URL"])
        client.delete(queue)
        client.close()
    worker_records = _json_lines(worker_log.read_text())
    assert any(r["message"].endswith(" ready.") for r in worker_records)
    assert any("Warm shutdown" in r["message"] for r in worker_records)  # said on SIGTERM: a log line too
    beat_records = _json_lines(beat_log.read_text())
    assert any(r["logger"] == "chinchi.beat" for r in beat_records)
    assert any(r["logger"] == "celery.beat" and "Starting" in r["message"] for r in beat_records)


# ------------------------------------------------------------------------------- moderation actions
@pytest.mark.django_db
def test_every_audit_row_is_a_log_line_with_actor_action_target_and_no_personal_text(
        caplog, django_capture_on_commit_callbacks):
    from accounts import sanctions
    from config.audit import audit_record
    from tests.factories import UserFactory

    moderator, player = UserFactory(), UserFactory(display_name="Hana Personal")
    secret = "he said something private about his neighbour"
    with caplog.at_level(logging.INFO, logger="chinchi.moderation"), \
            django_capture_on_commit_callbacks(execute=True):
        sanction = sanctions.user_mute(user=player, by=moderator, reason=secret,
                                       until=timezone.now() + timedelta(hours=1))
        audit_record(actor=None, action="room_close", target=player, reason=secret)
    lines = [r for r in caplog.records if r.name == "chinchi.moderation"]
    fields = [(r.actor, r.action, r.target) for r in lines]
    assert (moderator.pk, "mute", f"accounts.sanction:{sanction.pk}") in fields  # the sanction's own action
    assert ("system", "room_close", f"accounts.user:{player.pk}") in fields
    formatter = logging.Formatter("%(message)s %(actor)s %(action)s %(target)s")
    for record in lines:
        text = formatter.format(record) + json.dumps(record.__dict__, default=str)
        assert secret not in text and "Hana" not in text and player.username not in text
    assert lines[0].getMessage().startswith("moderation action ")


# ------------------------------------------------------------------------------------------- make run
def test_make_run_prints_only_a_token_it_made_itself():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import serve
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    operator = serve.metrics_hint("http://127.0.0.1:8000", "operator-secret-token", generated=False)
    assert "operator-secret-token" not in operator
    assert operator == 'metrics: curl -H "Authorization: Bearer $METRICS_TOKEN" http://127.0.0.1:8000/metrics'
    made = serve.metrics_hint("http://127.0.0.1:8000", "made-here", generated=True)
    assert made == 'metrics: curl -H "Authorization: Bearer made-here" http://127.0.0.1:8000/metrics'
