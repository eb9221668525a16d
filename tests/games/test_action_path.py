"""The action path's cost (issue 16): queries per accepted action through the REST endpoint with token
auth, for every action type of both games and for the action that ends a room's game; and the HTTP
answer going out before the broadcast is sent."""

import asyncio
import contextlib
import json
import random

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.db import connection

from config import groups
from games import selectors
from games.models import Game
from rooms import services as room_services
from rooms.models import Room
from tests.asgi import http_scope
from tests.factories import UserFactory

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="counts PostgreSQL's statements")

ACTION_BUDGET = 5  # BEGIN, the locked read, the one write, COMMIT, and the token look-up
ENDING_BUDGET = 8  # the token, BEGIN, the locked read, the write, the room locked, its seats, its UPDATE, COMMIT
REMATCH_BUDGET = 9


def _room_game(make_client, game: str, seats: int, rules: dict) -> tuple[Game, list]:
    """A room of ``seats`` registered users playing ``game`` (through the rooms services); their clients."""
    users = [UserFactory() for _ in range(seats)]
    room = room_services.room_create(user=users[0], game=game, seats=seats, rules=rules)
    for u in users[1:]:
        room_services.room_join(code=room.code, user=u)
    room_services.room_start(code=room.code, user=users[0])
    room.refresh_from_db()
    return Game.objects.get(pk=room.game_id), [make_client(u) for u in users]


def _play(game, clients, django_assert_max_num_queries, *, steps: int, pick, until=frozenset()) -> dict:
    """Play up to ``steps`` actions through ``POST /api/games/{id}/actions`` (an ``action_id`` each, as
    clients send), each within the action budget (the one that ends the game: the ending budget);
    ``pick(view, rng)`` chooses; stops early once every type of ``until`` was played. Returns the count of
    applied actions by type."""
    rng = random.Random(16)
    seen: dict[str, int] = {}
    for n in range(steps):
        game.refresh_from_db()
        if game.status != Game.PLAYING:
            break
        views = [selectors.game_view(game=game, seat=s) for s in range(len(clients))]
        seat = next(s for s in range(len(clients)) if views[s]["legal_actions"])
        action = pick(views[seat], rng)
        with django_assert_max_num_queries(ENDING_BUDGET) as captured:
            res = clients[seat].post(f"/api/games/{game.pk}/actions",
                                     {**action, "seq": views[seat]["seq"], "action_id": f"a{n}"}, format="json")
        assert res.status_code == 200, res.json()
        if res.json()["status"] == "playing":
            assert len(captured) <= ACTION_BUDGET, [q["sql"][:80] for q in captured.captured_queries]
        assert res.json()["seq"] == views[seat]["seq"] + 1
        seen[action["type"]] = seen.get(action["type"], 0) + 1
        if until and set(until) <= set(seen):
            break
    return seen


def _random(view, rng):
    return rng.choice(view["legal_actions"])


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    """Every game here deals from one fixed seed: the games below reach a step-down and a re-entry offer
    within their steps (a random deal may end first)."""
    monkeypatch.setattr("games.engine.rng.new_seed", lambda: bytes(range(32)))


@pytest.fixture(autouse=True)
def rating_enqueued(monkeypatch):
    """The ranking and moderation receivers only enqueue ``rate_game`` and ``economy_check`` (a worker runs
    them): recorded, not run eagerly."""
    queued = []
    monkeypatch.setattr("ranking.tasks.rate_game.delay", lambda game_id: queued.append(game_id))
    monkeypatch.setattr("moderation.tasks.economy_check.delay", lambda game_id: None)
    return queued


@pytest.mark.django_db
def test_chinchirorin_actions_cost_at_most_five_queries(make_client, django_assert_max_num_queries):
    from games.bots import chinchirorin as bots

    def pick(view, rng):
        legal = view["legal_actions"]
        down = [a for a in legal if a["type"] == "step_down" and a["down"]]
        return down[0] if down else bots.choose(view, legal, "normal", rng)  # the dealer steps down if offered

    for seats in (2, 4):
        game, clients = _room_game(make_client, "chinchirorin", seats, {"style": "common"})  # step-down offers
        seen = _play(game, clients, django_assert_max_num_queries, steps=300, pick=pick, until={"step_down"})
        assert {"bet", "roll", "step_down"} <= set(seen), seen


@pytest.mark.django_db
def test_chinchon_actions_cost_at_most_five_queries(make_client, django_assert_max_num_queries):
    from games.bots import chinchon as bots

    def pick(view, rng):
        legal = view["legal_actions"]
        reenter = [a for a in legal if a["type"] == "reenter" and a["accept"]]
        return reenter[0] if reenter else bots.choose(view, legal, "normal", rng, seat=view["you"], rules=rules)

    # Three seats, re-entry on and a low elimination score: a re-entry offer comes within a few hands.
    rules = {"elimination": 50, "reentry": "unlimited"}
    game, clients = _room_game(make_client, "chinchon", 3, rules)
    rules = game.rules
    seen = _play(game, clients, django_assert_max_num_queries, steps=600, pick=pick, until={"reenter"})
    assert {"draw", "discard", "close", "reenter"} <= set(seen), seen


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["chinchirorin", "chinchon"])
def test_the_action_ending_a_room_game_costs_at_most_eight_queries(kind, make_client, django_assert_max_num_queries,
                                                                 rating_enqueued):
    game, clients = _room_game(make_client, kind, 2, {})
    with django_assert_max_num_queries(ENDING_BUDGET):
        res = clients[1].post(f"/api/games/{game.pk}/actions", {"type": "resign", "seq": 0, "action_id": "r"},
                              format="json")
    assert res.status_code == 200 and res.json()["status"] == "finished"
    assert Room.objects.get(game_id=game.pk).status == "finished"  # the room's receiver ran
    assert rating_enqueued == [game.pk]


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["chinchirorin", "chinchon"])
def test_a_rematch_writes_its_game_without_a_savepoint_an_update_or_a_host_read(kind, make_client,
                                                                              django_assert_max_num_queries):
    """A room's next game (``POST /api/rooms/{code}/rematch``): the token, BEGIN, the room locked, its seats,
    one INSERT each for the game (its window, deadline and due time already set), its players and its log
    row, the room's UPDATE, COMMIT. The seated host's row comes with the seats."""
    game, clients = _room_game(make_client, kind, 2, {})
    clients[1].post(f"/api/games/{game.pk}/actions", {"type": "resign", "seq": 0}, format="json")
    room = Room.objects.get(game_id=game.pk)
    with django_assert_max_num_queries(REMATCH_BUDGET) as captured:
        res = clients[0].post(f"/api/rooms/{room.code}/rematch", {}, format="json")
    assert res.status_code == 201, res.json()
    # The test runs in a transaction: the room's own is the savepoint that stands for BEGIN and COMMIT.
    outer = {"SAVEPOINT": "BEGIN", "RELEASE": "COMMIT"}
    statements = [outer.get(sql.split(" ")[0]) or (f"{sql.split(' ')[0]} {sql.split(chr(34))[1]}" if '"' in sql else sql)
                  for sql in (q["sql"] for q in captured.captured_queries)]
    assert statements == ["SELECT accounts_apitoken", "BEGIN", "SELECT rooms_room", "SELECT rooms_seat",
                          "INSERT games_game", "INSERT games_gameplayer", "INSERT games_gameaction",
                          "UPDATE rooms_room", "COMMIT"], statements
    new = Game.objects.get(pk=res.json()["game_id"])
    assert (new.status, new.seq) == ("playing", 0)
    assert new.window_opened_at == new.created_at  # the first window's times went in with the INSERT
    assert res.json()["host"]["id"] == room.host_id


async def _asgi_post(application, path: str, token: str, body: dict) -> tuple[int, dict]:
    """``POST path`` with ``body`` (JSON) and ``token`` through the ASGI ``application`` as a server
    would call it (its event loop is this test's): ``(status, decoded body)``."""
    raw = json.dumps(body).encode()
    comm = ApplicationCommunicator(application, http_scope(path, "POST", [
        (b"authorization", f"Token {token}".encode()), (b"content-type", b"application/json"),
        (b"content-length", str(len(raw)).encode())]))
    await comm.send_input({"type": "http.request", "body": raw})
    start = await comm.receive_output(timeout=20)
    answer = await comm.receive_output(timeout=20)
    return start["status"], json.loads(answer["body"])


class _HeldLayer:
    """A channel layer whose ``group_send`` holds each message until ``release`` is set (at most 5 s: a
    caller that waited for its send gets its answer late instead of never), then records ``(group,
    message)`` in ``sent``."""

    def __init__(self):
        self.release, self.sent = asyncio.Event(), []

    async def group_send(self, group, message):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.release.wait(), 5)
        self.sent.append((group, message))


@pytest.mark.django_db(transaction=True)
async def test_the_http_answer_does_not_wait_for_the_broadcast(monkeypatch):
    """The broadcast is sent by a task on the server's loop: here the layer's ``group_send`` blocks until
    released, and the answer still comes; the message goes once released, ONE for every seat and the
    spectators (each socket forwards its own share: rooms.consumers) when someone watches."""
    from config.asgi import application

    layer = _HeldLayer()
    release, sent = layer.release, layer.sent

    def setup():
        from rooms.models import Spectator
        from tests.factories import token_for

        users = [UserFactory(), UserFactory()]
        room = room_services.room_create(user=users[0], game="chinchirorin", seats=2, rules={"first_dealer": "seat"},
                                         spectators_allowed=True)
        room_services.room_join(code=room.code, user=users[1])
        room_services.room_start(code=room.code, user=users[0])
        room.refresh_from_db()
        Spectator.objects.create(room=room, user=UserFactory(), connections=1)  # someone watches
        game = Game.objects.get(pk=room.game_id)
        seat = next(s for s in (0, 1) if selectors.game_view(game=game, seat=s)["legal_actions"])
        view = selectors.game_view(game=game, seat=seat)
        token = token_for(users[seat])
        return game, view, token

    game, view, token = await database_sync_to_async(setup)()
    monkeypatch.setattr(groups, "get_channel_layer", lambda: layer)
    status, answer = await _asgi_post(application, f"/api/games/{game.pk}/actions", token,
                                      {**view["legal_actions"][0], "seq": view["seq"]})
    assert status == 200, answer
    assert answer["seq"] == view["seq"] + 1
    assert sent == []  # answered while every send was still waiting
    release.set()
    for _ in range(200):
        if sent:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)  # nothing more comes: one publish for the whole table
    assert [g for g, _m in sent] == [game.group]
    message = sent[0][1]
    assert sorted(message["seats"]) == ["0", "1"] and "spectators" in message
    shares = [json.loads(p["text"]) for p in [message["seats"]["0"], message["seats"]["1"], message["spectators"]]]
    assert {p["view"]["seq"] for p in shares} == {view["seq"] + 1}
    assert [p["view"]["you"] for p in shares] == [0, 1, None]


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["chinchirorin", "chinchon"])
def test_the_locked_read_decodes_the_game_json_once(kind, make_client, monkeypatch):
    """The locked read joins the game to every seat's row, but the game's state and rules are decoded from
    one row only, whatever the seat count; the game locked holds them as stored."""
    from django.db import transaction
    from django.db.models import JSONField

    from games import locking

    game, _clients = _room_game(make_client, kind, 4, {})
    stored = Game.objects.values("state", "rules").get(pk=game.pk)
    decoded = []
    real = JSONField.from_db_value

    def counting(self, value, expression, connection):
        out = real(self, value, expression, connection)
        if out is not None and out in (stored["state"], stored["rules"]):
            decoded.append(out)
        return out

    monkeypatch.setattr(JSONField, "from_db_value", counting)
    with transaction.atomic():
        ctx = locking._lock(game.pk)
    assert len(ctx.players) == 4
    assert ctx.game.state == stored["state"] and ctx.game.rules == stored["rules"]
    assert ctx.game.get_deferred_fields() == set()
    assert all(gp.game is ctx.game for gp in ctx.players.values())
    assert len(decoded) == 2  # the state once, the rules once (before: once a seat, 8)


@pytest.mark.django_db(transaction=True)
def test_a_refused_action_commits_its_transaction_rather_than_rolling_back(make_client):
    """A refusal under the lock (409 stale_seq, 409 not_your_turn, 400 illegal_action) wrote nothing, so
    its transaction commits: a ROLLBACK would make psycopg drop the connection's prepared statements
    (DEALLOCATE ALL). The game is as it was, and an accepted action still commits once."""
    from django.test.utils import CaptureQueriesContext

    game, clients = _room_game(make_client, "chinchirorin", 3, {"first_dealer": "seat"})
    views = [selectors.game_view(game=game, seat=s) for s in range(3)]
    bettor = next(s for s in range(3) if views[s]["legal_actions"])
    idle = next(s for s in range(3) if not views[s]["legal_actions"])  # the dealer waits for the bets
    bet = views[bettor]["legal_actions"][0]
    refusals = [(clients[bettor], {**bet, "seq": 7}, 409, "stale_seq"),
                (clients[idle], {**bet, "seq": 0}, 409, "not_your_turn"),
                (clients[bettor], {"type": "bet", "amount": 99999, "seq": 0}, 400, "illegal_action")]
    for client, body, status, code in refusals:
        with CaptureQueriesContext(connection) as captured:
            res = client.post(f"/api/games/{game.pk}/actions", body, format="json")
        assert (res.status_code, res.json()["code"]) == (status, code)
        sql = [q["sql"] for q in captured.captured_queries]
        assert "COMMIT" in sql and not [s for s in sql if s.startswith("ROLLBACK")], sql
    game.refresh_from_db()
    assert game.seq == 0
    with CaptureQueriesContext(connection) as captured:
        res = clients[bettor].post(f"/api/games/{game.pk}/actions", {**bet, "seq": 0}, format="json")
    assert res.status_code == 200 and res.json()["seq"] == 1
    assert [q["sql"] for q in captured.captured_queries].count("COMMIT") == 1


@pytest.mark.django_db
def test_the_action_paths_statements_are_prepared_on_the_connection(make_client, settings):
    """PostgreSQL with server-side binding: after DATABASE_PREPARE_THRESHOLD (5) runs on a connection, the
    token look-up and the locked read are prepared statements there (parsed and planned once), and a
    refusal (409 stale_seq, one before each action here) does not drop them. (The write is prepared too
    once its parameters' types repeat: its text and types vary with what the action changed.)"""
    assert settings.DATABASES["default"]["OPTIONS"]["server_side_binding"] is True
    assert settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"] == 5
    game, clients = _room_game(make_client, "chinchirorin", 2, {"first_dealer": "seat"})
    applied = 0
    while applied < 7:
        game.refresh_from_db()
        assert game.status == Game.PLAYING
        seat = next(s for s in (0, 1) if selectors.game_view(game=game, seat=s)["legal_actions"])
        view = selectors.game_view(game=game, seat=seat)
        body = view["legal_actions"][0]
        stale = clients[seat].post(f"/api/games/{game.pk}/actions", {**body, "seq": view["seq"] + 5}, format="json")
        assert stale.status_code == 409
        res = clients[seat].post(f"/api/games/{game.pk}/actions", {**body, "seq": view["seq"]}, format="json")
        assert res.status_code == 200, res.json()
        applied += 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any(s.startswith('SELECT "accounts_apitoken"') for s in prepared), [s[:60] for s in prepared]
    assert any(s.startswith('SELECT "games_gameplayer"') and "FOR UPDATE" in s for s in prepared), prepared


@pytest.mark.django_db
def test_the_action_log_keeps_one_index_on_its_game_the_unique_seq():
    """Each action's INSERT into the log maintains every index of the table: the game's foreign key has no
    index of its own, the unique (game_id, seq) one serves look-ups by game (migration games 0004)."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, "games_gameaction")
    on_game = {name: c["columns"] for name, c in found.items()
               if (c["index"] or c["unique"]) and not c["foreign_key"] and c["columns"][:1] == ["game_id"]}
    assert sorted(on_game.values()) == [["game_id", "seq"], ["game_id", "user_id", "action_id"]], on_game


@pytest.mark.django_db(transaction=True)
async def test_the_answers_ending_a_game_and_starting_the_next_do_not_wait_for_the_room_message(monkeypatch):
    """The action that ends a room's game finishes the room in its transaction, and a rematch starts the
    next game: each answer comes while the layer still holds every message (the ``room`` message too, not
    only the game's), and once released the messages go in commit order: the game's, then the room's."""
    from config.asgi import application

    layer = _HeldLayer()
    release, sent = layer.release, layer.sent

    def setup():
        from tests.factories import token_for

        users = [UserFactory(), UserFactory()]
        room = room_services.room_create(user=users[0], game="chinchirorin", seats=2, rules={})
        room_services.room_join(code=room.code, user=users[1])
        room_services.room_start(code=room.code, user=users[0])
        room.refresh_from_db()
        return room.code, room.game_id, [token_for(u) for u in users]

    code, game_id, tokens = await database_sync_to_async(setup)()
    monkeypatch.setattr(groups, "get_channel_layer", lambda: layer)

    async def released() -> list[str]:
        release.set()
        for _ in range(200):
            if len(sent) >= 2:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        out = [message["type"] for _group, message in sent]
        sent.clear()
        release.clear()
        return out

    status, answer = await _asgi_post(application, f"/api/games/{game_id}/actions", tokens[1],
                                      {"type": "resign", "seq": 0})
    assert (status, answer["status"]) == (200, "finished")
    assert sent == []  # answered while the game's and the room's messages were still waiting
    assert await released() == ["game.update", "room.update"]
    assert await database_sync_to_async(lambda: Room.objects.get(code=code).status)() == "finished"

    status, answer = await _asgi_post(application, f"/api/rooms/{code}/rematch", tokens[0], {})
    assert status == 201 and answer["game_id"] != game_id, answer
    assert sent == []
    assert await released() == ["game.update", "room.update"]


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["chinchirorin", "chinchon"])
def test_a_socket_action_costs_what_the_rest_action_costs(kind, make_client, django_assert_max_num_queries):
    """An action sent on a token socket (``rooms.consumers._apply``, what the consumer runs in its thread)
    keeps the REST budget: the token, its user and the room's game now in one read, then the service's
    four; the game-ending one the ending budget. After a rematch the same socket acts on the new game."""
    from rooms.consumers import _apply

    game, clients = _room_game(make_client, kind, 2, {})
    room = Room.objects.get(game_id=game.pk)
    creds = [(c.user.pk, c.token, None) for c in clients]
    rng = random.Random(7)
    for n in range(12):
        views = [selectors.game_view(game=game, seat=s) for s in (0, 1)]
        seat = next(s for s in (0, 1) if views[s]["legal_actions"])
        legal = [a for a in views[seat]["legal_actions"] if a["type"] != "resign"]
        with django_assert_max_num_queries(ACTION_BUDGET) as captured:
            _apply(room.pk, creds[seat], {**rng.choice(legal), "seq": views[seat]["seq"]}, f"s{n}")
        assert [q["sql"].split('"')[1] for q in captured.captured_queries][:1] == ["accounts_apitoken"]
        game.refresh_from_db()
        assert game.seq == views[seat]["seq"] + 1
        if game.status != Game.PLAYING:
            break
    with django_assert_max_num_queries(ENDING_BUDGET):
        _apply(room.pk, creds[1], {"type": "resign", "seq": game.seq}, "end")
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    res = clients[0].post(f"/api/rooms/{room.code}/rematch", {}, format="json")
    assert res.status_code == 201, res.json()
    new = Game.objects.get(pk=res.json()["game_id"])
    view = next(v for v in (selectors.game_view(game=new, seat=s) for s in (0, 1)) if v["legal_actions"])
    with django_assert_max_num_queries(ACTION_BUDGET):
        _apply(room.pk, creds[view["you"]], {**view["legal_actions"][0], "seq": view["seq"]}, "after-rematch")
    new.refresh_from_db()
    assert new.seq == view["seq"] + 1
