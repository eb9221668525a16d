"""Server texts in English, Spanish and Japanese by Accept-Language (issue "What client developers ...
miss", item 8): error details and field messages, chat phrases; codes and ids the same in every language.
The expected texts are the translations written in locale/*/LC_MESSAGES/django.po."""

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_error_details_follow_accept_language(make_client):
    client = make_client(UserFactory())
    for lang, text in (("en", "No room with that code."), ("es", "No hay ninguna sala con ese código."),
                       ("ja", "そのコードの部屋はありません。")):
        res = client.post("/api/rooms/ZZZZZZ/join", HTTP_ACCEPT_LANGUAGE=lang)
        assert (res.status_code, res.json()) == (404, {"code": "not_found", "detail": text})
        assert res["Content-Language"] == lang


def test_field_messages_and_drf_errors_translated(make_client, api):
    host = make_client(UserFactory())
    code = host.post("/api/rooms", {"game": "chinchirorin", "seats": 4}, format="json").json()["code"]
    res = host.post(f"/api/rooms/{code}/messages", {"emoji": "🐙"}, format="json", HTTP_ACCEPT_LANGUAGE="es")
    assert (res.status_code, res.json()) == (400, {"code": "invalid", "detail": "emoji: No está en el catálogo.",
                                                   "fields": {"emoji": ["No está en el catálogo."]}})
    res = host.post(f"/api/rooms/{code}/cpu", {"seat": 7}, format="json", HTTP_ACCEPT_LANGUAGE="ja")
    assert res.json()["fields"] == {"seat": ["席は 0〜3 です。"]}
    res = api.get("/api/me", HTTP_ACCEPT_LANGUAGE="es")  # DRF's own message, in DRF's translation
    assert res.json()["code"] == "not_authenticated" and "autenticación" in res.json()["detail"]


def test_chat_phrases_in_each_language_ids_unchanged(make_client):
    client = make_client(UserFactory())
    by_lang = {lang: client.get("/api/chat/catalogue", HTTP_ACCEPT_LANGUAGE=lang).json()
               for lang in ("en", "es", "ja")}
    texts = {lang: {p["id"]: p["text"] for p in c["phrases"]} for lang, c in by_lang.items()}
    assert (texts["en"]["gg"], texts["es"]["gg"], texts["ja"]["gg"]) == ("Good game!", "¡Buena partida!", "いい勝負でした！")
    assert list(texts["en"]) == list(texts["es"]) == list(texts["ja"])
    assert by_lang["en"]["emoji"] == by_lang["ja"]["emoji"]


def test_unknown_api_paths_and_malformed_json_answer_in_the_request_language(make_client, api):
    """The API's own 404 fallback and the JSON parser's refusal use the framework's translated texts."""
    res = api.get("/api/nothing-here", HTTP_ACCEPT_LANGUAGE="es")
    assert (res.status_code, res.json()) == (404, {"code": "not_found", "detail": "No encontrado."})
    res = api.get("/api/nothing-here", HTTP_ACCEPT_LANGUAGE="ja")
    assert res.json()["detail"] == "見つかりませんでした。"
    res = api.post("/api/auth/guest", data="{", content_type="application/json", HTTP_ACCEPT_LANGUAGE="es")
    assert res.status_code == 400 and res.json()["code"] == "parse_error"
    assert res.json()["detail"].startswith("Solicitud con formato incorrecto. ")


def test_rule_refusals_in_the_request_language(make_client):
    """An engine refusal's detail: the engine's own sentence in English, the catalogue's sentence for its
    code in Spanish and Japanese; a stale seq names both seqs in every language."""
    host, guest = make_client(UserFactory()), make_client(UserFactory())
    code = host.post("/api/rooms", {"game": "chinchon", "seats": 2}, format="json").json()["code"]
    guest.post(f"/api/rooms/{code}/join")
    game_id = host.post(f"/api/rooms/{code}/start").json()["game_id"]
    view = host.get(f"/api/games/{game_id}").json()
    idle = guest if view["turn"] == 0 else host
    body = {"type": "draw", "source": "stock", "seq": view["seq"]}
    res = idle.post(f"/api/games/{game_id}/actions", body, format="json", HTTP_ACCEPT_LANGUAGE="es")
    assert (res.status_code, res.json()) == (409, {"code": "not_your_turn", "detail": "No es tu turno."})
    res = idle.post(f"/api/games/{game_id}/actions", body, format="json", HTTP_ACCEPT_LANGUAGE="ja")
    assert res.json()["detail"] == "あなたの番ではありません。"
    res = idle.post(f"/api/games/{game_id}/actions", body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert res.json()["code"] == "not_your_turn" and res.json()["detail"] not in ("No es tu turno.", "Not your turn.")
    res = idle.post(f"/api/games/{game_id}/actions", {"type": "fly", "seq": view["seq"]}, format="json",
                    HTTP_ACCEPT_LANGUAGE="es")
    assert res.json() == {"code": "invalid_action", "detail": "No es una acción válida para este juego."}
    res = idle.post(f"/api/games/{game_id}/actions", {**body, "seq": 99}, format="json", HTTP_ACCEPT_LANGUAGE="es")
    assert res.status_code == 409 and res.json()["detail"] == "seq 99 no es el actual (0)."
