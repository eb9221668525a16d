"""The tournament socket through the real ASGI stack with the Redis channel layer: the snapshot on
connect, a change pushed live, and the refusals."""

import json

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts import sanctions
from config.asgi import application
from tests.factories import UserFactory, token_for
from tests.rooms.wscomm import WebsocketCommunicator
from tests.tournaments.conftest import end_game, make_tournament, round_tables, start_now
from tournaments import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.usefixtures("fresh_channel_layer")]

TIMEOUT = 5


def _token(user) -> str:
    return token_for(user)


async def _socket(code: str, user=None) -> WebsocketCommunicator:
    key = await database_sync_to_async(_token)(user) if user is not None else "bad"
    comm = WebsocketCommunicator(application, f"/ws/tournaments/{code}/?token={key}")
    assert (await comm.connect(timeout=TIMEOUT))[0]
    return comm


async def _closed(comm) -> tuple[int, list]:
    got = []
    while (out := await comm.receive_output(timeout=TIMEOUT))["type"] != "websocket.close":
        got.append(json.loads(out["text"]))
    return out["code"], got


async def test_snapshot_then_live_updates_as_players_join_and_tables_end():
    t, users = await database_sync_to_async(make_tournament)(2, rounds=2)
    comm = await _socket(t.code, users[1])
    first = await comm.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "tournament" and first["tournament"]["code"] == t.code
    assert len(first["tournament"]["players"]) == 2
    newcomer = await database_sync_to_async(UserFactory)(display_name="Newcomer")
    await database_sync_to_async(services.tournament_join)(code=t.code, user=newcomer)
    msg = await comm.receive_json_from(timeout=TIMEOUT)
    assert [p["display_name"] for p in msg["tournament"]["players"]][-1] == "Newcomer"
    assert msg["tournament"]["version"] == first["tournament"]["version"] + 1

    def run_round_one():
        start_now(t)
        table = next(tb for tb in round_tables(t, 1) if tb.status == "playing")
        end_game(table.game_id, [2, 1])

    await database_sync_to_async(run_round_one)()
    seen = []
    while True:
        msg = await comm.receive_json_from(timeout=TIMEOUT)
        seen.append(msg["tournament"])
        if msg["tournament"]["round"] == 2:
            break
    assert seen[0]["status"] == "running"
    assert [tb["status"] for tb in seen[-1]["tables"] if tb["round"] == 1] == ["ended", "bye"]
    await comm.send_json_to({"type": "ping"})
    assert await comm.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
    await comm.disconnect()


async def test_refusals_unknown_code_bad_token_banned():
    user = await database_sync_to_async(UserFactory)()
    assert (await _closed(await _socket("ZZZZZZ", user)))[0] == 4404
    assert (await _closed(await _socket("ZZZZZZ")))[0] == 4401
    t, users = await database_sync_to_async(make_tournament)(1)
    await database_sync_to_async(type(user).objects.filter(pk=user.pk).update)(banned_at=timezone.now())
    code, got = await _closed(await _socket(t.code, user))
    assert code == 4409 and got[-1]["code"] == "banned"


async def test_a_ban_closes_an_open_tournament_socket():
    t, users = await database_sync_to_async(make_tournament)(1)
    comm = await _socket(t.code, users[0])
    await comm.receive_json_from(timeout=TIMEOUT)
    moderator = await database_sync_to_async(UserFactory)(is_staff=True)
    await database_sync_to_async(sanctions.user_ban)(user=users[0], by=moderator, reason="cheating")
    code, _ = await _closed(comm)
    assert code == 4409
