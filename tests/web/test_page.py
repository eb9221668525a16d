"""The web client's page as served (no browser): the routes that open it, its language (browser,
cookie, switch), its script translations, its static files; and what clients on other sites need: CORS
for the configured origins only, and invite links built from the address the service was reached at."""

import gzip
import json
import re

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/", "/join/ABC234", "/join/abc234/", "/room/XYZ789", "/friend/JZ8CPJDP",
                                  "/watch/XYZ789", "/replay/42"])
def test_the_page_opens_at_home_join_and_room_links(client, path):
    res = client.get(path)
    assert res.status_code == 200
    assert res["Content-Type"].startswith("text/html")
    body = res.content.decode()
    assert '<script type="module" src="/static/web/app.js">' in body
    assert 'src="/jsi18n/en/"' in body


def test_the_page_answers_only_reads(client):
    assert client.post("/").status_code == 405
    assert client.get("/join/not-a-code!").status_code == 404


@pytest.mark.parametrize(("accept", "lang", "text"), [
    ("es-ES,es;q=0.9", "es", "Jugar como invitado"),
    ("en-GB,en;q=0.8", "en", "Play as a guest"),
    ("ja", "ja", "ゲストで遊ぶ"),
    ("fr-FR,fr;q=0.9", "en", "Play as a guest"),  # a language the page lacks: English, and its script's texts
])
def test_the_page_speaks_the_browsers_language_when_it_can(client, accept, lang, text):
    res = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)
    body = res.content.decode()
    assert f'<html lang="{lang}">' in body
    assert text in body
    assert f'src="/jsi18n/{lang}/"' in body
    assert res["Content-Language"] == lang


def test_the_language_switch_sticks(client):
    res = client.post("/i18n/setlang/", {"language": "es", "next": "/room/ABC234"})
    assert (res.status_code, res["Location"]) == (302, "/room/ABC234")
    body = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="es">' in body and "Crear la sala" in body


def test_script_texts_come_in_the_language_of_the_url(client):
    es = client.get("/jsi18n/es/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    en = client.get("/jsi18n/en/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert '"Your turn.": "Tu turno."' in es
    assert '"%(n)s card": [\n      "%(n)s carta",\n      "%(n)s cartas"\n    ]' in es
    assert "Tu turno." not in en
    assert client.get("/jsi18n/fr/").status_code == 404


@pytest.mark.parametrize("name", ["app.js", "cards.js", "style.css", "favicon.svg", "icon.svg", "icon-192.png",
                                  "icon-512.png"])
def test_static_files_are_served(client, name):
    res = client.get(f"/static/web/{name}")
    assert res.status_code == 200
    assert b"".join(res.streaming_content if res.streaming else [res.content])


def test_cors_answers_configured_origins_only(client, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://client.example"]
    pre = client.options("/api/rooms", HTTP_ORIGIN="https://client.example",
                         HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
                         HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization,content-type")
    assert pre.status_code == 200
    assert pre["Access-Control-Allow-Origin"] == "https://client.example"
    assert "authorization" in pre["Access-Control-Allow-Headers"]
    assert "POST" in pre["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Credentials" not in pre  # tokens, never cookies, cross-site
    got = client.get("/api/chat/catalogue", HTTP_ORIGIN="https://client.example")
    assert got["Access-Control-Allow-Origin"] == "https://client.example"
    assert got["Access-Control-Expose-Headers"] == "Retry-After"
    for origin in ("https://evil.example", "http://client.example"):
        assert "Access-Control-Allow-Origin" not in client.get("/api/chat/catalogue", HTTP_ORIGIN=origin)
    assert "Access-Control-Allow-Origin" not in client.get("/", HTTP_ORIGIN="https://client.example")


def test_invite_url_is_the_address_the_request_came_to(make_client, settings):
    settings.PUBLIC_URL = ""
    settings.ALLOWED_HOSTS = ["play.example"]
    api = make_client(UserFactory())
    room = api.post("/api/rooms", {"game": "chinchon", "seats": 2}, format="json",
                    HTTP_HOST="play.example:8443", secure=True).json()
    assert room["invite_url"] == f"https://play.example:8443/join/{room['code']}"
    again = api.get(f"/api/rooms/{room['code']}", HTTP_HOST="play.example").json()
    assert again["invite_url"] == f"http://play.example/join/{room['code']}"
    mine = api.get("/api/me/rooms", HTTP_HOST="play.example").json()
    assert [r["invite_url"] for r in mine] == [f"http://play.example/join/{room['code']}"]
    settings.PUBLIC_URL = "https://chinchi.example"
    assert api.get(f"/api/rooms/{room['code']}", HTTP_HOST="play.example").json()["invite_url"] == (
        f"https://chinchi.example/join/{room['code']}")


def test_the_manifest_makes_the_page_an_installable_app(client):
    res = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="ja")
    assert res.status_code == 200 and res["Content-Type"] == "application/manifest+json"
    data = res.json()
    assert (data["name"], data["start_url"], data["scope"], data["display"]) == ("Chinchi", "/", "/", "standalone")
    assert data["lang"] == "ja" and data["description"] == "友だちとチンチロリンとチンチョン。ブラウザで無料。"
    sizes = {icon["sizes"]: icon["src"] for icon in data["icons"]}
    assert sizes["192x192"] == "/static/web/icon-192.png" and sizes["512x512"] == "/static/web/icon-512.png"
    for src in sizes.values():
        assert client.get(src).status_code == 200
    assert 'rel="manifest" href="/manifest.webmanifest"' in client.get("/").content.decode()


def test_the_service_worker_keeps_the_page_files_and_never_the_api(client):
    res = client.get("/sw.js")
    assert res.status_code == 200 and res["Content-Type"].startswith("text/javascript")
    assert res["Service-Worker-Allowed"] == "/"
    body = res.content.decode()
    shell = json.loads(re.search(r"const SHELL = (\[.*\]);", body).group(1))
    assert set(shell) == {f"/static/web/{n}" for n in ("app.js", "cards.js", "style.css", "favicon.svg", "icon.svg",
                                                          "icon-192.png", "icon-512.png")}
    assert '"/api/"' not in body.replace('url.pathname.startsWith("/api/")', "")  # only to pass the API by
    assert client.post("/sw.js").status_code == 405


def _body(res) -> bytes:
    return b"".join(res.streaming_content) if res.streaming else res.content


@pytest.mark.parametrize(("path", "start"), [("/", b"<!doctype html>"), ("/room/XYZ789", b"<!doctype html>"),
                                             ("/static/web/app.js", b"//"), ("/static/web/style.css", b"/*"),
                                             ("/jsi18n/ja/", b"\n'use strict'"), ("/sw.js", b"//")])
def test_the_pages_own_files_come_gzipped_to_a_browser_that_accepts_it(client, path, start):
    res = client.get(path, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert res.status_code == 200 and res["Content-Encoding"] == "gzip"
    plain = gzip.decompress(_body(res))
    assert plain.startswith(start)
    if path.startswith("/static/"):
        assert plain == _body(client.get(path))


def test_the_api_is_not_compressed_by_the_page(client):
    res = client.get("/api/games/catalogue", HTTP_ACCEPT_ENCODING="gzip")
    assert res.status_code == 200 and "Content-Encoding" not in res
