"""The games REST API (API.md "Games", "Errors"), the admin and the schema."""

import pytest

from games import locking, services
from games.models import GameAction
from tests.factories import UserFactory
from tests.games.factories import GameFactory, cpu, human

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(make_client):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])
    return game, make_client(a), make_client(b)


def test_view_for_seated_players_only(table, make_client, api):
    game, ca, cb = table
    res = cb.get(f"/api/games/{game.pk}")
    assert res.status_code == 200 and res.json()["you"] == 1
    res = make_client(UserFactory()).get(f"/api/games/{game.pk}")
    assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    res = cb.get(f"/api/games/{game.pk + 1000}")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")
    res = cb.get("/api/games/999999999999999999999999")
    assert res.status_code == 404 and res.json()["code"] == "not_found"
    assert api.get(f"/api/games/{game.pk}").status_code == 401


def test_post_action_and_errors(table, make_client):
    game, ca, cb = table
    url = f"/api/games/{game.pk}/actions"
    res = cb.post(url, {"type": "bet", "amount": 30, "seq": 0}, format="json")
    assert (res.status_code, res.json()["code"]) == (400, "illegal_action")
    res = cb.post(url, {"type": "bet", "amount": 10}, format="json")
    assert (res.status_code, res.json()["code"]) == (400, "invalid_action")
    assert "seq" in res.json()["fields"]
    res = cb.post(url, ["x"], format="json")
    assert (res.status_code, res.json()["code"]) == (400, "invalid_action")
    res = cb.post(url, "{not json", content_type="application/json")
    assert (res.status_code, res.json()["code"]) == (400, "parse_error")
    res = cb.post(url, {"type": "bet", "amount": 10, "seq": 4}, format="json")
    body = res.json()
    assert (res.status_code, body["code"], body["seq"], body["view"]["you"]) == (409, "stale_seq", 0, 1)
    res = ca.post(url, {"type": "bet", "amount": 10, "seq": 0}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "not_your_turn")
    # Membership before shape: a stranger's malformed action is a 403.
    res = make_client(UserFactory()).post(url, {"type": "nope"}, format="json")
    assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    res = cb.post(url, {"type": "bet", "amount": 10, "seq": 0, "action_id": "a-1"}, format="json")
    assert res.status_code == 200 and res.json()["seq"] == 1
    again = cb.post(url, {"type": "bet", "amount": 10, "seq": 0, "action_id": "a-1"}, format="json")
    assert again.status_code == 200 and again.json() == res.json()
    other = cb.post(url, {"type": "bet", "amount": 20, "seq": 0, "action_id": "a-1"}, format="json")
    assert (other.status_code, other.json()["code"]) == (409, "action_id_reused")
    assert GameAction.objects.filter(game=game).count() == 2


def test_game_over_409(table):
    game, ca, cb = table
    assert ca.post(f"/api/games/{game.pk}/actions", {"type": "resign", "seq": 0}, format="json").status_code == 200
    res = cb.post(f"/api/games/{game.pk}/actions", {"type": "resign", "seq": 1}, format="json")
    assert (res.status_code, res.json()["code"]) == (409, "game_over")
    view = cb.get(f"/api/games/{game.pk}").json()
    assert view["status"] == "finished" and view["legal_actions"] == [] and view["fairness"]["seed"]


def test_autoplay(table):
    game, ca, cb = table
    url = f"/api/games/{game.pk}/autoplay"
    res = cb.post(url, {"on": "yes"}, format="json")
    assert (res.status_code, res.json()["code"]) == (400, "invalid") and "on" in res.json()["fields"]
    res = cb.post(url, {}, format="json")
    assert res.status_code == 400
    res = cb.post(url, {"on": True}, format="json")
    assert res.status_code == 200 and res.json()["players"][1]["cpu_playing"] is True
    res = cb.post(url, {"on": False}, format="json")
    assert res.status_code == 200 and res.json()["players"][1]["cpu_playing"] is False


def test_log_pages_never_split_a_seq_and_carry_by(make_client, monkeypatch):
    monkeypatch.setattr("games.engine.rng.new_seed", lambda: bytes(range(32)))  # the same game every run
    a = UserFactory()
    game = GameFactory(seats=[human(a), cpu(), cpu(), cpu()], rules={"first_dealer": "roll", "rounds": 3})
    services.game_player_left(game_id=game.pk, user=a)
    for _ in range(300):  # the CPUs (and seat 0, played for) play windows, up to the end
        game.refresh_from_db()
        if game.status != "playing":
            break
        services.game_bot_play(game_id=game.pk, seq=game.seq)
    game.refresh_from_db()
    client = make_client(a)
    everything, after, pages, sizes = [], -1, 0, []
    while True:
        res = client.get(f"/api/games/{game.pk}/log", {"after": after})
        assert res.status_code == 200
        page = res.json()
        pages += 1
        sizes.append(len(page["events"]))
        everything += page["events"]
        if page["events"]:
            # Whole seqs only: the next page starts after the last seq of this one.
            assert page["next_after"] == page["events"][-1]["seq"]
        if not page["more"]:
            break
        after = page["next_after"]
    seqs = [e["seq"] for e in everything]
    assert seqs == sorted(seqs) and seqs[-1] == game.seq
    assert all(e["by"] in ("cpu", "away") for e in everything if e["seq"] > 0)
    expected = sum(len(r.events) for r in GameAction.objects.filter(game=game))  # chinchirorin: all public
    assert len(everything) == expected
    for seq in set(seqs):
        idx = [e["index"] for e in everything if e["seq"] == seq]
        assert idx == list(range(len(idx)))
    # About 100 a page: a page ends with the seq that reaches 100 events, so every page but the last
    # holds at least 100, and this seeded game is long enough for several pages.
    assert expected > 200 and pages > 1
    assert all(n >= 100 for n in sizes[:-1]) and sizes[-1] <= expected
    res = client.get(f"/api/games/{game.pk}/log", {"after": "x"})
    assert (res.status_code, res.json()["code"]) == (400, "invalid")


def test_admin_lists_filters_searches_and_aborts(client, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "b@example.com", "pw-12345-long", display_name="Boss")
    client.force_login(boss)
    game = GameFactory()
    assert client.get("/admin/games/game/?game__exact=chinchirorin&status__exact=playing").status_code == 200
    assert client.get(f"/admin/games/game/?q={game.pk}").status_code == 200
    assert client.get("/admin/games/game/?q=room-TEST").status_code == 200
    assert client.get(f"/admin/games/game/{game.pk}/change/").status_code == 200
    assert client.get("/admin/games/gameaction/?q=abc").status_code == 200
    # the bulk abort asks a reason first (kept in the audit trail), then aborts
    res = client.post("/admin/games/game/", {"action": "abort_games", "_selected_action": [game.pk]})
    assert res.status_code == 200 and b'name="reason"' in res.content
    game.refresh_from_db()
    assert game.status == "playing"
    res = client.post("/admin/games/game/", {"action": "abort_games", "_selected_action": [game.pk],
                                             "reason": "test abort"})
    assert res.status_code == 302
    game.refresh_from_db()
    assert game.status == "aborted"


def test_action_on_a_missing_or_deleted_game_is_404(table, monkeypatch):
    game, ca, cb = table
    res = cb.post(f"/api/games/{game.pk + 1000}/actions", {"type": "bet", "amount": 10, "seq": 0}, format="json")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")
    res = cb.post("/api/games/999999999999999999999999/actions", {"type": "bet", "seq": 0}, format="json")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")
    # Deleted between the membership check and the row lock (admin delete): 404, not a 500.
    real = locking._lock

    def vanish(game_id):
        from games.models import Game

        Game.objects.filter(pk=game_id).delete()
        return real(game_id)

    monkeypatch.setattr(locking, "_lock", vanish)
    res = cb.post(f"/api/games/{game.pk}/actions", {"type": "bet", "amount": 10, "seq": 0}, format="json")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")


def test_autoplay_service_reads_membership_under_the_lock(table):
    from config.errors import ApiError

    game, ca, cb = table
    for gid, user, code in ((game.pk + 1000, game.players.get(seat=0).user, "not_found"), ("x", None, "not_found"),
                            (game.pk, None, "not_a_player"), (game.pk, UserFactory(), "not_a_player")):
        with pytest.raises(ApiError) as info:
            services.game_set_autoplay(game_id=gid, user=user, on=True)
        assert info.value.error_code == code
    view = services.game_set_autoplay(game_id=str(game.pk), user=game.players.get(seat=1).user, on=True)
    assert view["you"] == 1 and view["players"][1]["cpu_playing"]
