"""Moderation actions (issue 11, item 3) through the admin's own views, as a moderator, and their effect
on the API and on a connected socket: hide a chat message, close a room, kick a seat, abort a game; and
(superusers only) adjust a rating. Each writes an audit row naming the moderator and the reason."""

import pytest
from auditlog.models import LogEntry
from channels.db import database_sync_to_async
from django.test import Client
from rest_framework.test import APIClient

from config.asgi import application
from games.models import Game, GameAction, GamePlayer
from ranking.models import Rating, RatingChange
from rooms import services
from rooms.models import ChatMessage, Room, RoomKick, RoomStatus
from tests.factories import UserFactory, token_for
from tests.moderation.conftest import make_moderator
from tests.rooms.wscomm import WebsocketCommunicator

pytestmark = pytest.mark.usefixtures("fresh_channel_layer")  # a channel layer per event loop

TIMEOUT = 5


def _api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def _audit(action: str) -> LogEntry:
    return LogEntry.objects.filter(additional_data__action=action).get()


@pytest.fixture
def table(transactional_db):
    """Two players in a 2-seat room and a moderator's admin client: ``(room, ann, bob, mod_client, mod)``."""
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = services.room_create(user=ann, game="chinchirorin", seats=2, rules={"first_dealer": "seat"})
    services.room_join(code=room.code, user=bob)
    mod = make_moderator(username="mod")
    client = Client()
    client.force_login(mod)
    return room, ann, bob, client, mod


async def _open(code: str, user) -> WebsocketCommunicator:
    key = await database_sync_to_async(lambda: token_for(user))()
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/?token={key}")
    assert (await comm.connect(timeout=TIMEOUT))[0]
    return comm


async def _messages_until_close(comm) -> tuple[list[dict], int]:
    import json

    got = []
    for _ in range(30):
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return got, out.get("code")
        got.append(json.loads(out["text"]))
    raise AssertionError(f"not closed: {got}")


async def _until(comm, kind: str, **match) -> dict:
    for _ in range(30):
        msg = await comm.receive_json_from(timeout=TIMEOUT)
        if msg["type"] == kind and all(msg.get(k) == v for k, v in match.items()):
            return msg
    raise AssertionError(f"no {kind}")


@pytest.mark.django_db(transaction=True)
async def test_hiding_a_message_removes_it_from_history_and_screens(table):
    room, ann, bob, mod_client, mod = table
    said = await database_sync_to_async(services.chat_post)(code=room.code, user=bob, data={"text": "rude words"})
    kept = await database_sync_to_async(services.chat_post)(code=room.code, user=ann, data={"text": "hello"})
    comm = await _open(room.code, ann)
    url = f"/admin/rooms/chatmessage/{said.pk}/hide/"
    assert (await database_sync_to_async(mod_client.get)(url)).status_code == 200
    # no reason: the form again, nothing hidden
    res = await database_sync_to_async(mod_client.post)(url, {"reason": ""})
    assert res.status_code == 200 and b"This field is required" in res.content
    res = await database_sync_to_async(mod_client.post)(url, {"reason": "insults"})
    assert res.status_code == 302 and res["Location"] == f"/admin/rooms/chatmessage/{said.pk}/change/"
    assert await _until(comm, "chat_hidden") == {"type": "chat_hidden", "id": said.pk}
    history = await database_sync_to_async(lambda: _api(ann).get(f"/api/rooms/{room.code}/messages").json())()
    assert [m["id"] for m in history] == [kept.pk]

    def record():
        row = _audit("chat_hide")
        msg = ChatMessage.objects.get(pk=said.pk)
        return row.actor_id, row.additional_data["reason"], row.object_pk, msg.hidden_by_id, msg.hidden_reason

    assert await database_sync_to_async(record)() == (mod.pk, "insults", str(said.pk), mod.pk, "insults")
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_closing_a_room_aborts_its_game_and_closes_its_sockets_4404(table):
    room, ann, bob, mod_client, mod = table
    await database_sync_to_async(services.room_start)(code=room.code, user=ann)
    game_id = await database_sync_to_async(lambda: Room.objects.get(pk=room.pk).game_id)()
    comm = await _open(room.code, bob)
    await _until(comm, "game")
    res = await database_sync_to_async(mod_client.post)(f"/admin/rooms/room/{room.pk}/close/", {"reason": "spam room"})
    assert res.status_code == 302
    got, code = await _messages_until_close(comm)
    assert code == 4404
    kinds = [m["type"] for m in got]
    assert kinds[-1] == "room_closed"
    assert any(m["type"] == "room" and m["room"]["status"] == "closed" for m in got)
    assert "finished" not in [m["room"]["status"] for m in got if m["type"] == "room"]  # closed, never finished first
    assert any(m["type"] == "game" and m["view"]["status"] == "aborted" for m in got)

    def after():
        api = _api(ann)
        return (api.get(f"/api/rooms/{room.code}").status_code, Game.objects.get(pk=game_id).status,
                Game.objects.get(pk=game_id).result, _audit("room_close").additional_data["game_aborted"])

    assert await database_sync_to_async(after)() == (404, "aborted", {"standing": [], "reason": "aborted"}, game_id)


@pytest.mark.django_db(transaction=True)
async def test_kicking_a_seat_hands_it_to_the_cpu_and_keeps_the_player_out(table):
    room, ann, bob, mod_client, mod = table
    await database_sync_to_async(services.room_start)(code=room.code, user=ann)
    game_id = await database_sync_to_async(lambda: Room.objects.get(pk=room.pk).game_id)()
    bob_socket = await _open(room.code, bob)
    ann_socket = await _open(room.code, ann)
    await _until(bob_socket, "game")
    page = await database_sync_to_async(mod_client.get)(f"/admin/rooms/room/{room.pk}/kick/")
    assert page.status_code == 200 and b"seat 1: Bob" in page.content
    res = await database_sync_to_async(mod_client.post)(f"/admin/rooms/room/{room.pk}/kick/",
                                                        {"seat": "1", "reason": "cheating"})
    assert res.status_code == 302
    got, code = await _messages_until_close(bob_socket)
    assert (got[-1], code) == ({"type": "kicked", "seat": 1}, 4403)
    # the others stay, and see the seat played for (after any presence of Bob's socket opening, whose
    # database work runs beside Ann's socket's)
    presence = await _until(ann_socket, "presence", seat=1, cpu_playing=True)
    assert (presence["seat"], presence["cpu_playing"]) == (1, True)

    def after():
        api = _api(bob)
        gp = GamePlayer.objects.get(game_id=game_id, seat=1)
        return (api.post(f"/api/rooms/{room.code}/join").json()["code"], api.get("/api/me/rooms").json(),
                api.get(f"/api/games/{game_id}").json()["code"],
                api.post(f"/api/games/{game_id}/actions", {"type": "roll", "seq": 0}, format="json").status_code,
                (gp.left, gp.kicked, gp.played_for),
                RoomKick.objects.filter(room=room, user=bob).count(),
                _audit("seat_kick").additional_data["user_id"])

    assert await database_sync_to_async(after)() == ("kicked", [], "not_a_player", 403, (True, True, True), 1,
                                                     bob.pk)
    comm = await _open(room.code, bob)  # a new socket is refused too
    assert (await _messages_until_close(comm))[1] == 4403
    await ann_socket.disconnect()


@pytest.mark.django_db
def test_aborting_a_game_from_the_admin(mod, moderator, nobody, django_capture_on_commit_callbacks):
    ann, bob = UserFactory(), UserFactory()
    room = services.room_create(user=ann, game="chinchirorin", seats=2)
    services.room_join(code=room.code, user=bob)
    services.room_start(code=room.code, user=ann)
    game_id = Room.objects.get(pk=room.pk).game_id
    page = mod.get(f"/admin/games/game/{game_id}/change/")
    assert b"/abort/" in page.content
    assert nobody.post(f"/admin/games/game/{game_id}/abort/", {"reason": "x"}).status_code == 302  # to login
    with django_capture_on_commit_callbacks(execute=True):
        res = mod.post(f"/admin/games/game/{game_id}/abort/", {"reason": "players colluding"})
    assert res.status_code == 302
    view = _api(ann).get(f"/api/games/{game_id}").json()
    assert (view["status"], view["result"]) == ("aborted", {"standing": [], "reason": "aborted"})
    last = GameAction.objects.filter(game_id=game_id).order_by("-seq").first()
    assert last.action == {"type": "abort", "reason": "moderator"}
    row = _audit("game_abort")
    assert (row.actor_id, row.additional_data["reason"], row.changes) == (
        moderator.pk, "players colluding", {"status": ["playing", "aborted"]})
    assert Room.objects.get(pk=room.pk).status == RoomStatus.FINISHED
    # a second abort changes nothing
    assert mod.post(f"/admin/games/game/{game_id}/abort/", {"reason": "again"}).status_code == 302
    assert LogEntry.objects.filter(additional_data__action="game_abort").count() == 1


@pytest.mark.django_db
def test_adjusting_a_rating_writes_a_change_in_the_history(boss, superuser, mod):
    player = UserFactory()
    rating = Rating.objects.create(user=player, game="chinchon", rating=1530, games=4)
    url = f"/admin/ranking/rating/{rating.pk}/adjust/"
    assert mod.post(url, {"amount": "-50", "reason": "farming"}).status_code == 403
    bad = boss.post(url, {"amount": "0", "reason": "nothing"})
    assert bad.status_code == 200 and b"at least one point" in bad.content
    assert boss.post(url, {"amount": "-50", "reason": "rating farmed against an alt"}).status_code == 302
    rating.refresh_from_db()
    assert (rating.rating, rating.games) == (1480, 4)  # 1530 - 50; the rated-game count is unchanged
    change = RatingChange.objects.get(user=player)
    assert (change.game_id, change.before, change.after, change.change, change.adjusted_by_id) == (
        None, 1530, 1480, -50, superuser.pk)
    hist = _api(player).get(f"/api/users/{player.pk}/stats").json()["rating_history"]["chinchon"]
    assert [(h["game_id"], h["before"], h["after"], h["change"], h["reason"]) for h in hist] == [
        (None, 1530, 1480, -50, "rating farmed against an alt")]
    assert _api(player).get("/api/me").json()["ratings"]["chinchon"]["rating"] == 1480
    assert _audit("rating_adjust").changes == {"rating": ["1530", "1480"]}


@pytest.mark.django_db(transaction=True)
async def test_a_warning_reaches_the_socket_and_a_ban_closes_it(table):
    from moderation.models import Report

    room, ann, bob, mod_client, mod = table

    def report() -> int:
        return Report.objects.create(reporter=UserFactory(), kind="user", user=bob, reported_user=bob,
                                     target_key=f"user:{bob.pk}", reason="harassment").pk

    comm = await _open(room.code, bob)
    first = await database_sync_to_async(report)()
    res = await database_sync_to_async(mod_client.post)(f"/admin/moderation/report/{first}/resolve/",
                                                        {"outcome": "warn", "user": bob.pk, "note": "be kind"})
    assert res.status_code == 302
    warning = await _until(comm, "warning")
    assert warning == {"type": "warning", "detail": "A moderator warns you about your behaviour: be kind"}
    second = await database_sync_to_async(report)()
    res = await database_sync_to_async(mod_client.post)(f"/admin/moderation/report/{second}/resolve/",
                                                        {"outcome": "ban", "user": bob.pk, "note": "again"})
    assert res.status_code == 302
    got, code = await _messages_until_close(comm)
    assert code == 4409
    # the next action is refused: REST says banned, a new socket is closed at once
    res = await database_sync_to_async(lambda: _api(bob).post(f"/api/rooms/{room.code}/messages", {"text": "hi"},
                                                              format="json"))()
    assert (res.status_code, res.json()["code"]) == (403, "banned")
