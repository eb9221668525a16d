"""The room socket ``/ws/rooms/{code}/`` (API.md "WebSocket").

Only players seated in the room are accepted: the socket is accepted and then closed with **4401** when
it is not authenticated (no or bad token, no session) and **4403** when the user holds no seat in the
room (or the room is unknown or closed); a cookie socket from a bad origin is refused before that by
``config.ws_auth``. On connect it joins the groups ``room-<code>`` (room, chat, presence) and
``room-<code>-seat-<n>`` (that seat's game views) and sends ``room``, then ``game`` (view, no events) if the
room has a game. A socket silent for ``WS_IDLE_SECONDS`` (60) is closed with **4408**.

Client → server: ``{type: "action", action: {type, seq, ...}, action_id?}`` (through
``games.services.game_apply_action``, success shows as the ``game`` broadcast), ``{type: "chat", text |
emoji | phrase}`` (the REST chat service and throttle), ``{type: "ping"}`` → ``{type: "pong"}``. Errors go
only to the sender as ``{type: "error", code, detail, fields?, action_id?}``.

Group messages handled (``payload`` is sent as it is): ``game.update`` (a seat's ``game`` message; a
view older than the last one this socket sent is dropped, so each socket sees seq in order, and so is
the very view it already has, as when the connect snapshot and a presence broadcast cross),
``room.update``, ``room.chat``, ``room.presence``, ``room.achievement``; and, to the group ``user-<id>``
the socket also joins, ``queue.matched`` (the ranked queue found a room).
"""

import asyncio
import logging
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from rest_framework import exceptions

from config.errors import ApiError, validation_body
from config.parsers import loads_strict
from games import selectors as games_selectors
from games import services as games_services
from rooms import selectors, services
from rooms.models import Room, Seat
from rooms.serializers import room_data

logger = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_A_PLAYER = 4403
CLOSE_IDLE = 4408


def error_body(exc: Exception) -> dict:
    """The API.md error body of ``exc`` (``ApiError``, DRF exceptions; anything else ``server_error``)."""
    if isinstance(exc, ApiError):
        return exc.body()
    if isinstance(exc, exceptions.ValidationError):
        return validation_body(exc.detail)
    if isinstance(exc, exceptions.Throttled):
        body = {"code": "throttled", "detail": str(exc.detail)}
        if exc.wait is not None:
            body["retry_after"] = int(exc.wait + 0.999)
        return body
    if isinstance(exc, exceptions.APIException):
        return {"code": str(exc.default_code), "detail": str(exc.detail)}
    logger.exception("socket request failed", exc_info=exc)
    return {"code": "server_error", "detail": "Internal error."}


def _snapshot(room_id: int, seat: int) -> tuple[dict, dict | None]:
    """The current ``room`` message and ``game`` message (or ``None``) for ``seat``."""
    room = selectors.rooms_with_seats().select_related("game").get(pk=room_id)
    room_msg = {"type": "room", "room": room_data(room)}
    if room.game is None:
        return room_msg, None
    view = games_selectors.game_view(game=room.game, seat=seat)
    return room_msg, {"type": "game", "view": view, "events": []}


def _seated(code: str, user) -> tuple[int, str, int] | None:
    """``(room_id, code, seat)`` when ``user`` holds a seat in the live room ``code``."""
    try:
        room = selectors.room_get(code=code)
    except ApiError:
        return None
    seat = Seat.objects.filter(room=room, user=user).values_list("index", flat=True).first()
    return None if seat is None else (room.pk, room.code, seat)


def _apply(room_id: int, user, action, action_id) -> None:
    """Apply a socket action through the one write path."""
    if not isinstance(action, dict):
        raise ApiError("invalid_action", "action must be an object {type, seq, ...}.", 400)
    game_id = Room.objects.filter(pk=room_id).values_list("game_id", flat=True).first()
    if game_id is None:
        raise ApiError("not_found", "No game in this room.", 404)
    body = dict(action)
    seq = body.pop("seq", None)
    games_services.game_apply_action(game_id=game_id, actor=user, expected_seq=seq, action=body,
                                     action_id=action_id)


def _chat(code: str, user_id: int, data: dict) -> None:
    from accounts.models import User

    user = User.objects.get(pk=user_id)  # fresh: muted/banned may have changed since the socket opened
    services.chat_post(code=code, user=user, data=data)


class RoomConsumer(AsyncJsonWebsocketConsumer):
    """One socket of one seated player (several per seat are allowed and counted)."""

    room_id: int | None = None
    seat: int | None = None
    counted = False

    async def connect(self):
        self.user = self.scope.get("user")
        self.last_seen = time.monotonic()
        self.last_view: tuple = (None, -1)
        self.last_view_body: dict | None = None
        self.watchdog = None
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        found = await database_sync_to_async(_seated)(self.scope["url_route"]["kwargs"]["code"], self.user)
        if found is None:
            await self.close(code=CLOSE_NOT_A_PLAYER)
            return
        self.room_id, self.code, self.seat = found
        self.room_group = f"room-{self.code}"
        self.seat_group = f"{self.room_group}-seat-{self.seat}"
        await self.channel_layer.group_add(self.room_group, self.channel_name)
        await self.channel_layer.group_add(self.seat_group, self.channel_name)
        await self.channel_layer.group_add(f"user-{self.user.pk}", self.channel_name)
        seat = await database_sync_to_async(services.room_socket_opened)(room_id=self.room_id, user=self.user)
        if seat is None or seat.index != self.seat:  # unseated (or moved) meanwhile
            if seat is not None:
                await database_sync_to_async(services.room_socket_closed)(
                    room_id=self.room_id, user_id=self.user.pk, seat=seat.index)
            await self.close(code=CLOSE_NOT_A_PLAYER)
            return
        self.counted = True
        room_msg, game_msg = await database_sync_to_async(_snapshot)(self.room_id, self.seat)
        await self.send_json(room_msg)
        if game_msg is not None and self.counted:
            await self._send_game(game_msg)
        if self.counted:  # not released by a failed send
            self.watchdog = asyncio.ensure_future(self._watch_silence())

    async def disconnect(self, code):
        await self._release()

    async def _release(self) -> None:
        """Uncount this socket (the seat's last one marks it disconnected) and leave the groups; once only.

        Runs on disconnect and also when a send finds the client gone (a send that raises would end the
        consumer before Channels calls :meth:`disconnect`, leaving the seat connected for good)."""
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        if self.counted:
            self.counted = False
            try:
                await database_sync_to_async(services.room_socket_closed)(
                    room_id=self.room_id, user_id=self.user.pk, seat=self.seat)
            except Exception:
                logger.exception("could not uncount a socket of room %s seat %s", self.room_id, self.seat)
        if self.seat is not None:
            groups = (self.room_group, self.seat_group, f"user-{self.user.pk}")
            self.seat = None
            for group in groups:
                try:
                    await self.channel_layer.group_discard(group, self.channel_name)
                except Exception:
                    logger.debug("group_discard %s failed", group, exc_info=True)

    async def send_json(self, content, close=False):
        """Send to the client; a client that is already gone releases the seat instead of raising."""
        try:
            await super().send_json(content, close=close)
        except Exception:
            logger.debug("socket send failed; the client is gone", exc_info=True)
            await self._release()

    async def _watch_silence(self):
        limit = float(getattr(settings, "WS_IDLE_SECONDS", 60))
        try:
            while True:
                await asyncio.sleep(min(5.0, limit / 4))
                if time.monotonic() - self.last_seen > limit:
                    await self.close(code=CLOSE_IDLE)
                    return
        except asyncio.CancelledError:
            pass
        except Exception:  # the client went away while we closed: nothing left to do
            logger.debug("socket watchdog ended", exc_info=True)

    # ------------------------------------------------------------------------------- client -> server
    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        self.last_seen = time.monotonic()
        if self.seat is None:
            return
        try:
            content = loads_strict(text_data if text_data is not None else bytes_data)
        except (ValueError, TypeError):
            await self.send_json({"type": "error", "code": "parse_error", "detail": "Malformed JSON."})
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs):
        kind = content.get("type") if isinstance(content, dict) else None
        action_id = content.get("action_id") if isinstance(content, dict) else None
        try:
            if kind == "ping":
                await self.send_json({"type": "pong"})
            elif kind == "action":
                await database_sync_to_async(_apply)(self.room_id, self.user, content.get("action"), action_id)
            elif kind == "chat":
                data = {k: v for k, v in content.items() if k != "type"}
                await database_sync_to_async(_chat)(self.code, self.user.pk, data)
            else:
                raise ApiError("invalid", "Unknown message type; send action, chat or ping.", 400,
                               fields={"type": ["One of action, chat, ping."]})
        except Exception as exc:  # noqa: BLE001 - every failure is answered, only to the sender
            body = {"type": "error", **error_body(exc)}
            if kind == "action" and isinstance(action_id, str):
                body["action_id"] = action_id
            await self.send_json(body)

    # ------------------------------------------------------------------------------- server -> client
    async def _send_game(self, payload: dict):
        view = payload.get("view") or {}
        key = (view.get("id"), view.get("seq", -1))
        if key[0] == self.last_view[0] and key[1] < self.last_view[1]:
            return  # an older view overtaken by a newer one: never send seq backwards
        if key == self.last_view and not payload.get("events") and view == self.last_view_body:
            return  # the very view this socket already has (the snapshot and a broadcast crossing on connect)
        self.last_view = key
        self.last_view_body = view
        await self.send_json(payload)

    async def game_update(self, event):
        """``{"type": "game.update", "payload": {"type": "game", "view", "events"}}`` to a seat group."""
        await self._send_game(event["payload"])

    async def room_update(self, event):
        """The new ``room``; a socket whose user no longer holds this socket's seat (removed by the host,
        or left and took another seat) is closed: its seat group would hand it another seat's views."""
        payload = event["payload"]
        await self.send_json(payload)
        seats = (payload.get("room") or {}).get("seats") or []
        if self.seat is not None and not any(
            s.get("index") == self.seat and (s.get("user") or {}).get("id") == self.user.pk for s in seats
        ):
            await self.close(code=CLOSE_NOT_A_PLAYER)

    async def room_chat(self, event):
        """A chat ``message``."""
        await self.send_json(event["payload"])

    async def room_presence(self, event):
        """``{type: "presence", seat, connected, away, cpu_playing}`` from the games app."""
        await self.send_json(event["payload"])

    async def room_achievement(self, event):
        """``{type: "achievement", seat, achievement}`` from the ranking app."""
        await self.send_json(event["payload"])

    async def queue_matched(self, event):
        """``{type: "queue", status: "matched", room}`` to the group ``user-<id>`` (ranking's queue)."""
        await self.send_json(event["payload"])

