"""The platform around the API: health check, OpenAPI schema, admin, pure-module imports."""

import subprocess
import sys

import pytest
from django.core.management import call_command

from config import health


@pytest.mark.django_db
def test_healthz_ok_when_all_parts_answer(api, monkeypatch):
    monkeypatch.setattr(health, "check_redis", lambda: "ok")
    monkeypatch.setattr(health, "check_celery", lambda: "ok")
    monkeypatch.setattr(health, "check_beat", lambda: "ok")
    res = api.get("/healthz")
    assert res.status_code == 200
    assert res.json() == {"database": "ok", "redis": "ok", "celery": "ok", "beat": "ok"}


@pytest.mark.django_db
def test_healthz_503_names_what_is_down(api, monkeypatch):
    monkeypatch.setattr(health, "check_redis", lambda: "ok")
    monkeypatch.setattr(health, "check_celery", lambda: "down: no worker answered")
    res = api.get("/healthz")
    assert res.status_code == 503
    assert res.json()["celery"] == "down: no worker answered"
    assert res.json()["database"] == "ok"


@pytest.mark.django_db
def test_healthz_redis_down(api, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    res = api.get("/healthz")
    assert res.status_code == 503
    assert res.json()["redis"].startswith("down")
    assert res.json()["celery"].startswith("down")


def test_openapi_schema_has_no_warnings(tmp_path, capsys):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--file", str(out), "--validate", "--fail-on-warn")
    text = out.read_text()
    assert "/api/auth/guest" in text


@pytest.mark.django_db
def test_schema_and_docs_are_served(api):
    assert api.get("/api/schema/").status_code == 200
    assert api.get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_admin_lists_users_with_guest_filter(client, django_user_model):
    admin = django_user_model.objects.create_superuser("boss", "b@example.com", "pw-12345-long", display_name="Boss")
    client.force_login(admin)
    res = client.get("/admin/accounts/user/?is_guest__exact=1&q=boss")
    assert res.status_code == 200


def test_pure_modules_import_no_django():
    """games.engine, games.bots, ranking.elo and the rules protocol import no Django, Celery or Channels."""
    code = (
        "import sys, games.engine.registry, games.engine.rng, games.engine.types, games.engine.cards,"
        " games.engine.chinchirorin, games.engine.chinchon, games.engine.chinchon_melds,"
        " games.bots.chinchirorin, games.bots.chinchon, ranking.elo, games.conformance;"
        "bad=[m for m in sys.modules if m.split('.')[0] in {'django','celery','channels'}];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_admin_assets_are_served_without_collectstatic(client):
    """uvicorn serves no files: WhiteNoise serves the admin's CSS straight from the app."""
    res = client.get("/static/admin/css/base.css")
    assert res.status_code == 200
    assert b"".join(res.streaming_content).startswith(b"/*")
