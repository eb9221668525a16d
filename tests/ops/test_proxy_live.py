"""The real TLS proxy (deploy/Caddyfile, Caddy's local authority: a self-signed trial) in front of the
real server with production settings (secure cookies): the admin logs in through it over HTTPS, the API
answers through it, and a room's WebSocket opens through it (wss)."""

import json
import os
import re
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.live import free_port, live_stack

ROOT = Path(__file__).resolve().parents[2]
KEY = "Zq8mN3vR7pL2xW9cT4bY6hJ1kF5sD0gA"
WAIT = 90.0

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.caddy, pytest.mark.django_db(transaction=True)]


def _proxy(tmp_path: Path, upstream_port: int):
    """Start Caddy on free ports in front of 127.0.0.1:``upstream_port``; returns (process, https port, CA)."""
    https_port, http_port = free_port(), free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HOME": str(tmp_path), "SITE_ADDRESS": "localhost", "CADDY_TLS": "internal",
           "HTTPS_PORT": str(https_port), "HTTP_PORT": str(http_port), "UPSTREAM_HOST": "127.0.0.1",
           "UPSTREAM_PORT": str(upstream_port)}
    log = (tmp_path / "caddy.log").open("w")
    proc = subprocess.Popen(["caddy", "run", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter",
                             "caddyfile"], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    root = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    deadline, last = time.monotonic() + WAIT, None
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"caddy did not serve ({last}):\n{(tmp_path / 'caddy.log').read_text()[-3000:]}")
        if root.exists():
            try:
                res = httpx.get(f"https://localhost:{https_port}/healthz", verify=ssl.create_default_context(
                    cafile=str(root)), timeout=5)
                if res.status_code == 200:
                    return proc, https_port, root
                last = res.status_code
            except (httpx.HTTPError, ssl.SSLError) as exc:
                last = repr(exc)
        time.sleep(0.2)


def test_admin_login_api_and_websocket_through_the_tls_proxy(tmp_path):
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    from accounts.models import User

    boss = User.objects.create_superuser("boss", "boss@example.net", None)
    # Production's hashers (the test settings' MD5 one is not among them).
    boss.password = PBKDF2PasswordHasher().encode("a-long-admin-password-7", "proxysalt", iterations=1000)
    boss.save(update_fields=["password"])
    with live_stack(tmp_path / "logs", DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY=KEY,
                    ALLOWED_HOSTS="localhost", STATIC_ROOT=str(tmp_path / "static")) as url:
        upstream = int(url.rsplit(":", 1)[1])
        proc, port, root = _proxy(tmp_path, upstream)
        try:
            tls = ssl.create_default_context(cafile=str(root))
            base = f"https://localhost:{port}"
            with httpx.Client(base_url=base, verify=tls, timeout=15) as web:
                page = web.get("/admin/login/?next=/admin/")
                assert page.status_code == 200
                csrf = web.cookies["csrftoken"]
                assert re.search(r"csrftoken=[^;]+;.*Secure", page.headers["set-cookie"])  # secure cookies
                res = web.post("/admin/login/?next=/admin/", data={
                    "username": "boss", "password": "a-long-admin-password-7", "csrfmiddlewaretoken": csrf,
                    "next": "/admin/"}, headers={"Referer": f"{base}/admin/login/", "Origin": base})
                assert res.status_code == 302 and res.headers["location"] == "/admin/", res.text[:500]
                assert "Secure" in res.headers["set-cookie"] and "sessionid=" in res.headers["set-cookie"]
                admin = web.get("/admin/")
                assert admin.status_code == 200 and "boss" in admin.text

            with httpx.Client(base_url=base, verify=tls, timeout=15) as api:
                guest = api.post("/api/auth/guest", json={"display_name": "Proxy"})
                assert guest.status_code == 201, guest.text
                token = guest.json()["token"]
                room = api.post("/api/rooms", json={"game": "chinchon", "seats": 2},
                                headers={"Authorization": f"Token {token}"})
                assert room.status_code == 201, room.text
                code = room.json()["code"]
            with connect(f"wss://localhost:{port}/ws/rooms/{code}/?token={token}", ssl=tls,
                         open_timeout=30) as ws:
                first = json.loads(ws.recv(timeout=30))
                assert first["type"] == "room", first  # the room's snapshot: the socket is open and seated
                assert token not in json.dumps(first)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
