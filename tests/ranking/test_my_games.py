"""Your games (issue #39 item 6): ``GET /api/me/games`` lists a player's finished games with the result
and the rating change, and ``GET /api/games/{id}/record`` downloads a game's public record as JSON."""

import hashlib

import pytest

from tests.factories import UserFactory
from tests.ranking.test_ranked_game_api import play_to_the_end

pytestmark = pytest.mark.django_db


def _ranked_game_b_resigns(make_client, capture):
    a, b = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    ca, cb = make_client(a), make_client(b)
    with capture(execute=True):
        code = ca.post("/api/rooms", {"game": "chinchon", "seats": 2, "ranked": True}, format="json").json()["code"]
        assert cb.post(f"/api/rooms/{code}/join").status_code == 200
        game_id = ca.post(f"/api/rooms/{code}/start").json()["game_id"]
    return ca, cb, game_id


def test_my_games_with_result_and_rating_change(make_client, django_capture_on_commit_callbacks):
    ca, cb, game_id = _ranked_game_b_resigns(make_client, django_capture_on_commit_callbacks)
    assert ca.get("/api/me/games").json() == {"games": [], "next_before": None}  # still playing
    with django_capture_on_commit_callbacks(execute=True):
        final = play_to_the_end([ca, cb], game_id)
    places = {row["seat"]: row["place"] for row in final["result"]["standing"]}
    # two newcomers at 1500, first rated game: K = 40, E = 0.5: winner +20, loser -20, a draw 0
    if places[0] == places[1]:
        expected = {0: ("draw", 0), 1: ("draw", 0)}
    else:
        expected = {s: ("win", 20) if places[s] == 1 else ("loss", -20) for s in places}
    mine = ca.get("/api/me/games").json()
    [row] = mine["games"]
    assert mine["next_before"] is None
    assert {k: row[k] for k in ("id", "game", "ranked", "status", "you", "place", "result", "rating_change")} == {
        "id": game_id, "game": "chinchon", "ranked": True, "status": "finished", "you": 0, "place": places[0],
        "result": expected[0][0], "rating_change": expected[0][1]}
    assert row["seats"] == [{"seat": 0, "display_name": "Ann", "cpu": False, "user_id": ca.user.pk},
                            {"seat": 1, "display_name": "Bob", "cpu": False, "user_id": cb.user.pk}]
    assert row["record_url"] == f"http://testserver/api/games/{game_id}/record" and row["finished_at"]
    assert row["xp"] > 0
    theirs = cb.get("/api/me/games").json()["games"][0]
    assert (theirs["you"], theirs["place"], theirs["result"], theirs["rating_change"]) == (
        1, places[1], *expected[1])
    assert make_client(UserFactory()).get("/api/me/games").json()["games"] == []


def test_pages_by_game_id(make_client, django_capture_on_commit_callbacks):
    ca, cb, first = _ranked_game_b_resigns(make_client, django_capture_on_commit_callbacks)
    ids = []
    for _ in range(3):
        code = ca.post("/api/rooms", {"game": "chinchirorin", "seats": 2}, format="json").json()["code"]
        game_id = ca.post(f"/api/rooms/{code}/start").json()["game_id"]  # a lone player gets a CPU
        seq = ca.get(f"/api/games/{game_id}").json()["seq"]
        assert ca.post(f"/api/games/{game_id}/actions", {"type": "resign", "seq": seq}, format="json").status_code == 200
        ids.append(game_id)
    page = ca.get("/api/me/games?limit=2").json()
    assert [g["id"] for g in page["games"]] == [ids[2], ids[1]] and page["next_before"] == ids[1]
    rest = ca.get(f"/api/me/games?limit=2&before={page['next_before']}").json()
    assert [g["id"] for g in rest["games"]] == [ids[0]] and rest["next_before"] is None  # `first` still playing
    assert rest["games"][0]["seats"][1] == {"seat": 1, "display_name": "CPU 2", "cpu": True, "user_id": None}
    assert (rest["games"][0]["result"], rest["games"][0]["rating_change"]) == ("loss", None)  # unranked
    assert ca.get("/api/me/games?limit=0").status_code == 400


def test_the_public_record_after_the_end(make_client, django_capture_on_commit_callbacks):
    ca, cb, game_id = _ranked_game_b_resigns(make_client, django_capture_on_commit_callbacks)
    res = ca.get(f"/api/games/{game_id}/record")
    assert (res.status_code, res.json()["code"]) == (409, "not_finished")
    assert make_client(UserFactory()).get(f"/api/games/{game_id}/record").status_code == 403
    seq = cb.get(f"/api/games/{game_id}").json()["seq"]
    cb.post(f"/api/games/{game_id}/actions", {"type": "resign", "seq": seq}, format="json")
    res = cb.get(f"/api/games/{game_id}/record")
    assert res.status_code == 200
    assert res["Content-Disposition"] == f'attachment; filename="chinchi-game-{game_id}.json"'
    record = res.json()
    assert record["format"] == "chinchi-game-record/1"
    assert (record["game"]["id"], record["game"]["status"], record["game"]["ranked"]) == (game_id, "finished", True)
    assert [p["display_name"] for p in record["players"]] == ["Ann", "Bob"]
    seed = bytes.fromhex(record["fairness"]["seed"])  # revealed after the end: the replay can be checked
    assert hashlib.sha256(seed).hexdigest() == record["fairness"]["commitment"]
    types = [e["type"] for e in record["events"]]
    assert types[-2:] == ["resign", "game_end"] and "deal" in types
    assert not {"hand", "drawn"} & set(types)  # a seat's own cards are never in the public record
    assert record["view"]["you"] is None and record["view"]["table"]["hand"] is None
    assert record["result"]["standing"][0] == {"seat": 0, "place": 1, "score": 0}
    assert ca.get(f"/api/games/{game_id}/record").json() == record  # the same for every player
