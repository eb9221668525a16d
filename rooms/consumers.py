"""The room socket ``/ws/rooms/{code}/`` (API.md "WebSocket").

Players seated in the room are accepted, and spectators: a signed-in user without a seat, when the room's
host lets users watch (``spectators_allowed``) and no ranked game is in progress; a spectator's socket
gets the spectator view (``you: null``, no hidden card) and the public events only, may not act or chat,
is listed in the room's ``spectators``, and is closed with **4403** when watching is turned off or a
ranked game starts. The socket is accepted and
then closed with **4401** when
it is not authenticated (no or bad token, no session), **4409** when the user is banned, **4410** when
suspended, **4411** when the client's address lies in an IP block in force (after an ``error``
``address_blocked`` with ``until``; ``accounts.traces``, which also keeps the socket's address and the
``device`` query parameter as a trace), and **4403** when the user holds no seat in the room and may not watch it (or the room is
unknown or closed); a
cookie socket from a bad origin is refused before that by ``accounts.ws_auth``.

Every ``action`` and ``chat`` re-reads the user's standing first (one query: the token with its user, or
the session and the user): a revoked token or ended session closes the socket with **4401**, a ban with
**4409**, a suspension with **4410**, after an ``error`` message naming why (``authentication_failed``,
``banned``, ``suspended`` with ``until``); the action is not applied. A ban, suspension or logout also
closes every open socket of the user at once: ``user.revoked`` to the group ``user-<id>``
(``accounts.sanctions``). On connect it joins the group ``room-<code>`` (room, chat, presence, game
broadcasts: each socket forwards only its own seat's view, or the spectators') and sends ``room``, then
``game`` (view, and the events of its seq) if the room has a game. A socket silent for
``WS_IDLE_SECONDS`` (60) is closed with **4408**.

Client → server: ``{type: "action", action: {type, seq, ...}, action_id?}`` (through
``games.services.game_apply_action``, success shows as the ``game`` broadcast), ``{type: "chat", text |
emoji | phrase}`` (the REST chat service and throttle), ``{type: "ping"}`` → ``{type: "pong"}``, and the
voice messages ``voice_join``, ``voice_leave``, ``voice_signal`` (``rooms.voice_socket``, docs/voice.md:
a seated socket only; its ``voice_*`` answers and group messages are described there). Errors go
only to the sender as ``{type: "error", code, detail, fields?, action_id?}``.

Group messages handled (``payload`` is sent as it is): ``game.update`` (the ``game`` message of this
socket's seat, or the spectators', picked from the broadcast by ``games.events.seat_share``: each
socket gets each seq at most once, in order, and the message it gets carries every event since its
previous one; seqs whose message was overtaken or lost are filled from the log, see ``_send_game``; a
spectator given a broadcast built while nobody watched, ``unwatched``, reads its view from the database),
``room.update``, ``room.chat``, ``room.presence``, ``room.achievement``; from moderators
``room.chat_hidden`` (``{type: "chat_hidden", id}``), ``room.closed`` (``{type: "room_closed"}``, then
close **4404**) and ``room.kick`` (to the kicked user's sockets only: ``{type: "kicked", seat}``, then
close **4403**); and, to the group ``user-<id>`` the socket also joins, ``queue.matched`` (the ranked queue
found a room), ``user.warning`` (a moderator's warning: ``{type: "warning", detail}``), ``user.notice``
(``{type: "notice", id, kind, text}``, kept until seen: ``moderation.notices``) and ``user.revoked``
(``{close_code, code?, detail?, until?}``: send the error, if any, and close with ``close_code``).
"""

import asyncio
import contextlib
import json
import logging
import time
from importlib import import_module
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from rest_framework import exceptions

from accounts.models import User
from accounts.sanctions import CLOSE_CODES, CLOSE_SIGNED_OUT, user_group, user_standing, user_standing_now
from accounts.selectors import token_get
from accounts.traces import CLOSE_ADDRESS_BLOCKED, socket_address, socket_admit
from config import metrics
from config.asyncdb import db_call
from config.errors import ApiError, validation_body
from config.parsers import loads_strict
from config.sockets import close_when_silent
from games import events as games_events
from games import selectors as games_selectors
from games import services as games_services
from rooms import selectors, services
from rooms.models import Room, Seat
from rooms.serializers import invite_url, room_data
from rooms.voice_socket import VoiceSocketMixin

logger = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = CLOSE_SIGNED_OUT
CLOSE_NOT_A_PLAYER = 4403
SIGNED_OUT = {"code": "authentication_failed", "detail": "Signed out (the token was revoked); sign in again."}


class SocketRevoked(Exception):
    """The socket's user may no longer act: close with ``close_code`` after sending ``body`` as an error."""

    def __init__(self, close_code: int, body: dict):
        super().__init__(body.get("detail"))
        self.close_code = close_code
        self.body = body


def _session_alive(session_key: str | None) -> bool:
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore
    return store().exists(session_key)


def _current_user(user_id: int, token_key: str | None, session_key: str | None):
    """The socket's user as it is now, read fresh; raises :class:`SocketRevoked` when the token was
    revoked (or the session ended), or the user is banned or suspended. One query for a token socket."""
    if token_key is not None:
        token = token_get(token_key)
        user = token.user if token is not None and token.user_id == user_id else None
    else:
        user = User.objects.filter(pk=user_id).first() if _session_alive(session_key) else None
    return _in_good_standing(user)


def _in_good_standing(user):
    """``user``, or :class:`SocketRevoked` for none (signed out) or a banned or suspended one."""
    if user is None:
        raise SocketRevoked(CLOSE_SIGNED_OUT, SIGNED_OUT)
    refusal = user_standing(user)
    if refusal is not None:
        raise SocketRevoked(CLOSE_CODES[refusal["code"]], refusal)
    return user


def _actor_and_game(room_id: int, user_id: int, token_key: str | None, session_key: str | None):
    """``(user, game id)`` for an action on a socket of the room ``room_id``: the user as
    :func:`_current_user` reads it (same refusals), and the id of the room's game now (``None``: no game).
    One query for a token socket (the token, its user and the room's game together)."""
    if token_key is None:
        user = _current_user(user_id, token_key, session_key)
        return user, Room.objects.filter(pk=room_id).values_list("game_id", flat=True).first()
    token, game_id = selectors.socket_actor_get(key=token_key, room_id=room_id)
    return _in_good_standing(token.user if token is not None and token.user_id == user_id else None), game_id


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


def scope_base_url(scope) -> str | None:
    """``http(s)://host[:port]`` the socket ``scope`` was opened to (its Host header, when ALLOWED_HOSTS
    allows it), for the rooms' ``invite_url``; ``None`` when there is no acceptable Host."""
    host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "")
    if not host or not validate_host(split_domain_port(host)[0], settings.ALLOWED_HOSTS):
        return None
    return f"{'https' if scope.get('scheme') in ('wss', 'https') else 'http'}://{host}"


def _snapshot(room_id: int, user_id: int | None, base_url: str | None = None) -> tuple[dict, dict | None, int | None]:
    """``(room message, game message or None, seat)`` now: for ``user_id``'s socket, the seat its user holds
    in the room as read here (None: none; a start may have moved it since the socket last looked), for
    ``user_id=None`` (a spectator) the spectators' view. The game message is the view at the game's seq with
    that seq's events the seat may see (a message for a seq carries its events: the broadcast of that seq,
    if it comes after, is not sent again)."""
    room = selectors.rooms_with_seats().select_related("game").get(pk=room_id)
    room_msg = {"type": "room", "room": room_data(room, base_url=base_url)}
    seat = None
    if user_id is not None:
        seat = next((s.index for s in room.seats.all() if s.user_id == user_id), None)
        if seat is None:
            return room_msg, None, None
    if room.game is None:
        return room_msg, None, seat
    return room_msg, _game_message(room.game, seat), seat


def _game_message(game, seat: int | None) -> dict:
    """``{"type": "game", "view", "events"}`` of ``game`` now for ``seat`` (None: the spectators'): the
    view at the game's seq and that seq's events the seat may see. Two queries (players, events)."""
    view = games_selectors.game_view(game=game, seat=seat)
    events = games_selectors.game_events_between(game_id=game.pk, seat=seat, after=game.seq - 1, upto=game.seq)
    return {"type": "game", "view": view, "events": events}


def _spectators_game(room_id: int) -> dict | None:
    """The spectators' ``game`` message (:func:`_game_message`) of the room's game now, or None when the
    room has no game or may not be watched now (closed, watching off, a ranked game in progress). Three
    queries."""
    room = selectors.live_rooms().select_related("game").filter(pk=room_id).first()
    if room is None or room.game is None or not selectors.room_watchable(room):
        return None
    return _game_message(room.game, None)


def _too_large(data: str | bytes | None) -> bool:
    """Whether a socket message is over ``settings.MAX_BODY_BYTES`` (64 KiB) in UTF-8, as a REST body may
    not be: it is refused unparsed (parsing runs on the event loop, every socket of the process waiting)."""
    if data is None or len(data) * 4 <= settings.MAX_BODY_BYTES:  # even at 4 bytes a character it fits
        return False
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    return size > settings.MAX_BODY_BYTES


def _seated(code: str, user) -> tuple[int, str, int] | None:
    """``(room_id, code, seat)`` when ``user`` holds a seat in the live room ``code``."""
    try:
        room = selectors.room_get(code=code)
    except ApiError:
        return None
    seat = Seat.objects.filter(room=room, user=user).values_list("index", flat=True).first()
    return None if seat is None else (room.pk, room.code, seat)


def _watchable(code: str) -> tuple[int, str] | None:
    """``(room_id, code)`` when the live room ``code`` may be watched now (``room_watchable``)."""
    try:
        room = selectors.room_get(code=code)
    except ApiError:
        return None
    return (room.pk, room.code) if selectors.room_watchable(room) else None


def _apply(room_id: int, creds: tuple, action, action_id) -> None:
    """Apply a socket action through the one write path, for the user of ``creds`` (see
    :func:`_current_user`) as the user is now, to the room's game now. Five queries for a token socket, as
    the REST action: the token with the room's game (:func:`_actor_and_game`), then
    ``game_apply_action``'s four."""
    user, game_id = _actor_and_game(room_id, *creds)
    if not isinstance(action, dict):
        raise ApiError("invalid_action", "action must be an object {type, seq, ...}.", 400)
    if game_id is None:
        raise ApiError("not_found", "No game in this room.", 404)
    body = dict(action)
    seq = body.pop("seq", None)
    games_services.game_apply_action(game_id=game_id, actor=user, expected_seq=seq, action=body,
                                     action_id=action_id)


def _chat(code: str, creds: tuple, data: dict) -> None:
    user = _current_user(*creds)  # fresh: muted/banned may have changed since the socket opened
    services.chat_post(code=code, user=user, data=data)


class RoomConsumer(VoiceSocketMixin, AsyncJsonWebsocketConsumer):
    """One socket of one seated player (several per seat are allowed and counted), or of a spectator: a
    signed-in user without a seat in a room whose host lets users watch (``spectator``; ``seat`` None; it
    forwards the broadcasts' spectator share: the spectator view and the public events only)."""

    room_id: int | None = None
    seat: int | None = None
    joined = False  # in the room's groups (until released)
    spectator = False
    counted = False
    revoked = False
    base_url: str | None = None

    async def __call__(self, scope, receive, send):
        """Channels' consumer loop, then :meth:`_drop_channel`."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._drop_channel()

    async def _drop_channel(self) -> None:
        """Have the channel layer forget this socket's channel (its queue in this process and, in the
        pub/sub layer, its Redis subscription).

        channels-redis drops a channel only when a ``receive`` on it is cancelled while it waits. Channels
        cancels its pending ``receive`` when the socket ends, but when a message has just come in that
        ``receive`` has already returned and nothing is dropped; at a close one always has (the ``room``
        broadcast of this very socket's release), so every closed socket left its queue in the server
        process and its subscription in Redis for good. A ``receive`` started and cancelled here takes
        the layer's own clean-up path (messages still queued for the gone socket are read and dropped
        first). Never raises."""
        layer, name = self.channel_layer, getattr(self, "channel_name", None)
        if layer is None or not name:
            return
        try:
            for _ in range(1000):  # at most this many messages left queued for it
                task = asyncio.ensure_future(layer.receive(name))
                await asyncio.sleep(0)  # it starts, and waits unless a message is queued
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    return
                task.result()  # a message for the gone socket: dropped
        except Exception:  # noqa: BLE001 - the layer is down: nothing to keep either
            logger.debug("dropping channel %s failed", name, exc_info=True)

    async def dispatch(self, message):
        """Run the handler of ``message`` (Channels' own dispatch, less its database clean-up).

        Channels (4.2 and later) awaits ``aclose_old_connections()`` before every handler. That is a
        thread-sensitive ``sync_to_async``, and outside a request it runs on ONE thread shared by the
        whole process (see :mod:`config.asyncdb`). So every message to every socket (each broadcast,
        presence change and ping) would queue on that thread, for a clean-up this consumer does not
        need: it never holds a database connection on that thread. All its database work goes through
        :func:`config.asyncdb.db_call`, and each such call opens and gives back its own connection.
        Raises ``ValueError`` for a message type with no handler, as Channels does."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        self.user = self.scope.get("user")
        self.last_seen = time.monotonic()
        self.game_id: int | None = None  # the game of the last ``game`` message sent, and its seq
        self.last_seq = -1
        self.room_version = -1  # the ``version`` of the last ``room`` message sent
        self.watchdog = None
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        refusal = user_standing(self.user)
        if refusal is not None:
            await self._refuse(refusal)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        blocked = await db_call(socket_admit)(user=self.user, address=socket_address(self.scope),
                                              device=(query.get("device") or [""])[0])
        if blocked is not None:
            await self.send_json({"type": "error", **blocked})
            await self.close(code=CLOSE_ADDRESS_BLOCKED)
            return
        session = self.scope.get("session")
        self.creds = (self.user.pk, self.scope.get("token_key"),
                      getattr(session, "session_key", None) if self.scope.get("auth") == "session" else None)
        code = self.scope["url_route"]["kwargs"]["code"]
        found = await db_call(_seated)(code, self.user)
        if found is None:
            await self._connect_spectator(code)
            return
        self.room_id, self.code, self.seat = found
        await self._join()
        seat = await db_call(services.room_socket_opened)(room_id=self.room_id, user=self.user)
        if seat is None or seat.index != self.seat:  # unseated (or moved, or sanctioned) meanwhile
            if seat is not None:
                await db_call(services.room_socket_closed)(
                    room_id=self.room_id, user_id=self.user.pk, seat=seat.index)
            await self._close_refused()
            return
        await self._opened()

    async def _refuse(self, refusal: dict) -> None:
        """A sanctioned user's socket: the :func:`accounts.sanctions.user_standing` answer as an ``error``,
        then its close code (4409 banned, 4410 suspended)."""
        await self.send_json({"type": "error", **refusal})
        await self.close(code=CLOSE_CODES[refusal["code"]])

    async def _close_refused(self) -> None:
        """Close a socket refused its seat or its watch after the handshake: as a sanctioned user's when
        the user may no longer play as stored now (sanctioned since the handshake read it), else 4403."""
        refusal = await db_call(user_standing_now)(self.user.pk)
        if refusal is not None:
            await self._refuse(refusal)
        else:
            await self.close(code=CLOSE_NOT_A_PLAYER)

    async def _join(self) -> None:
        """Join the room's group and the user's group."""
        self.room_group = f"room-{self.code}"
        self.joined = True
        for group in (self.room_group, user_group(self.user.pk)):
            await self.channel_layer.group_add(group, self.channel_name)

    async def _connect_spectator(self, code: str) -> None:
        """No seat: watch, if the room lets users watch now (else close with 4403)."""
        found = await db_call(_watchable)(code)
        if found is None:
            await self._close_refused()
            return
        self.room_id, self.code = found
        self.spectator = True
        await self._join()
        opened = await db_call(services.room_spectator_opened)(room_id=self.room_id, user=self.user)
        if not opened:  # taken a seat, or watching turned off, or sanctioned, meanwhile
            await self._close_refused()
            return
        await self._opened()

    async def _opened(self) -> None:
        """Counted: send the snapshot (``room``, then ``game``) and start the silence watchdog."""
        self.counted = True
        metrics.OPEN_SOCKETS.inc()
        self.base_url = scope_base_url(self.scope)
        room_msg, game_msg, seat = await db_call(_snapshot)(
            self.room_id, None if self.spectator else self.user.pk, self.base_url)
        self.room_version = (room_msg.get("room") or {}).get("version", -1)
        await self.send_json(room_msg)
        if not self.spectator and seat != self.seat:  # moved (or unseated) since the connect looked
            if seat is None:
                await self.close(code=CLOSE_NOT_A_PLAYER)
                return
            self.seat = seat
        if game_msg is not None and self.counted:
            await self._send_game(games_events.game_share(game_msg))
        if not self.spectator and self.counted:
            await self.voice_snapshot()
        if self.counted:  # not released by a failed send
            self.watchdog = asyncio.ensure_future(close_when_silent(self))

    async def disconnect(self, code):
        await self._release()

    async def _release(self) -> None:
        """Uncount this socket (the seat's last one marks it disconnected) and leave the groups; once only.

        Runs on disconnect and also when a send finds the client gone (a send that raises would end the
        consumer before Channels calls :meth:`disconnect`, leaving the seat connected for good)."""
        await self.voice_quit("closed")
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        if self.counted:
            self.counted = False
            metrics.OPEN_SOCKETS.dec()
            try:
                if self.spectator:
                    await db_call(services.room_spectator_closed)(
                        room_id=self.room_id, user_id=self.user.pk)
                else:
                    await db_call(services.room_socket_closed)(
                        room_id=self.room_id, user_id=self.user.pk, seat=self.seat)
            except Exception:
                logger.exception("could not uncount a socket of room %s seat %s", self.room_id, self.seat)
        if self.joined:
            groups = (self.room_group, user_group(self.user.pk))
            self.joined = False
            for group in groups:
                try:
                    await self.channel_layer.group_discard(group, self.channel_name)
                except Exception:
                    logger.debug("group_discard %s failed", group, exc_info=True)

    async def send_json(self, content, close=False):
        """Send to the client (see :meth:`_send_text`)."""
        await self._send_text(await self.encode_json(content), close=close)

    async def _send_text(self, text: str, close=False) -> None:
        """Send a message already encoded; a client that is already gone releases the seat instead of
        raising. Nothing more is sent once the socket was closed for a revoked user."""
        if self.revoked:
            return
        try:
            await self.send(text_data=text, close=close)
        except Exception:
            logger.debug("socket send failed; the client is gone", exc_info=True)
            await self._release()

    # ------------------------------------------------------------------------------- client -> server
    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        self.last_seen = time.monotonic()
        if not self.joined:
            return
        await self.voice_heard()
        data = text_data if text_data is not None else bytes_data
        if _too_large(data):
            await self.send_json({"type": "error", "code": "too_large",
                                  "detail": f"Message over {settings.MAX_BODY_BYTES // 1024} KiB."})
            return
        try:
            content = loads_strict(data)
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
                await db_call(_apply)(self.room_id, self.creds, content.get("action"), action_id)
            elif kind == "chat":
                data = {k: v for k, v in content.items() if k != "type"}
                await db_call(_chat)(self.code, self.creds, data)
            elif kind in ("voice_join", "voice_leave", "voice_signal"):
                await self.voice_receive(kind, content, lambda: _current_user(*self.creds))
            else:
                raise ApiError("invalid", "Unknown message type; send action, chat, ping or voice_*.", 400,
                               fields={"type": ["One of action, chat, ping, voice_join, voice_leave, "
                                                "voice_signal."]})
        except SocketRevoked as exc:
            await self._revoke(exc.close_code, exc.body)
        except Exception as exc:  # noqa: BLE001 - every failure is answered, only to the sender
            body = {"type": "error", **error_body(exc)}
            if kind == "action" and isinstance(action_id, str):
                body["action_id"] = action_id
            await self.send_json(body)

    async def _revoke(self, close_code: int, body: dict | None) -> None:
        """Tell the client why (``body`` as an ``error``), close with ``close_code``, release the seat;
        nothing is sent or applied on this socket after that."""
        if self.revoked:
            return
        if body:
            await self.send_json({"type": "error", **body})
        self.revoked = True
        try:
            await self.close(code=close_code)
        except Exception:  # the client is already gone
            logger.debug("close after revocation failed", exc_info=True)
        await self._release()

    # ------------------------------------------------------------------------------- server -> client
    async def _send_game(self, share: dict, after: int | None = None):
        """Send a ``game`` message (``share``: ``games.events.game_share``) so that the socket gets each
        seq once, in order, with its events.

        ``after``: the seq before the first one the message's events cover (the broadcast's ``after``;
        ``None``: the message stands alone, as the connect snapshot). A seq the socket already has is not
        sent again (its events came with it); events of seqs the socket already has are cut; when seqs are
        missing in between (their message was overtaken or lost), their events are read from the log and
        sent in front, so the message for a seq always carries every event since the previous one. The
        share's JSON text goes out as it is unless events are added or cut."""
        game_id, seq = share.get("id"), share.get("seq", -1)
        if self.game_id is not None and game_id is not None and game_id < self.game_id:
            return  # a late message of an earlier game of the room
        last = self.last_seq if game_id == self.game_id else -1
        if seq <= last:
            return
        text = share["text"]
        if after is not None and after > last and self.joined:
            missing = await db_call(games_selectors.game_events_between)(
                game_id=game_id, seat=self.seat, after=last, upto=after)
            payload = json.loads(text)
            text = json.dumps({**payload, "events": missing + list(payload.get("events") or [])})
        elif after is not None and after < last:
            payload = json.loads(text)
            text = json.dumps({**payload, "events": [e for e in payload.get("events") or [] if e.get("seq", 0) > last]})
        self.game_id, self.last_seq = game_id, seq
        await self._send_text(text)

    def _has(self, event) -> bool:
        """Whether this socket has sent the seq of a ``game.update`` already (its game and seq, read from
        any seat's share)."""
        share = next(iter((event.get("seats") or {}).values()), None)
        return share is not None and share.get("id") == self.game_id and share.get("seq", -1) <= self.last_seq

    async def game_update(self, event):
        """``{"type": "game.update", "after", "seats": {"<seat>": share}, "spectators"?: share, "unwatched"?:
        true}`` to the room's group (``games.events.broadcast_game``): only this socket's seat's share is
        sent (a spectator's: the spectators'), never another seat's. A spectator socket given a message
        built while nobody watched (``unwatched``: no spectators' share) reads its view from the database,
        unless it has that seq already (its connect snapshot came after the broadcast was built)."""
        if self.spectator:
            share = games_events.seat_share(event, None)
            if share is None and event.get("unwatched") and self.joined and not self._has(event):
                # Built when no spectator socket was counted yet (this one opened meanwhile): read it.
                game_msg = await db_call(_spectators_game)(self.room_id)
                if game_msg is not None:
                    share = games_events.game_share(game_msg)
                    await self._send_game(share, share["seq"] - 1)
                return
        elif self.seat is not None:  # another user's share (a start moved the party) is None
            share = games_events.seat_share(event, self.seat, self.user.pk)
        else:
            return
        if share is not None:
            await self._send_game(share, event.get("after"))

    async def room_update(self, event):
        """The new ``room``; a socket whose user no longer holds a seat (removed by the host, or left) is
        closed. A user moved to another seat (a ``seats: "auto"`` start puts the party in seats 0..k-1)
        follows it: the socket takes that seat's shares from then on and gets its current ``game`` (whose
        broadcast went out before the move).

        A room message no newer than the last this socket sent (its ``version``; the connect snapshot's
        included) is dropped: one published before the socket's snapshot was read can reach the group
        after it (a busy process sends its messages in turn, and another process's may come first), and
        it must neither take the client back to an older room nor, listing the seats as they were before
        this user joined, close the socket as if the user had been unseated. Whether the user still holds
        a seat is then read from the database before closing or moving."""
        payload = event["payload"]
        room = payload.get("room") or {}
        version = room.get("version")
        if isinstance(version, int):
            if version <= self.room_version:
                return
            self.room_version = version
        if not settings.PUBLIC_URL and room.get("code"):  # broadcast with a path: made absolute for this socket
            payload = {**payload, "room": {**room, "invite_url": invite_url(room["code"], self.base_url)}}
        await self.send_json(payload)
        if not self.joined:
            return
        if not self.spectator:
            await self.voice_room_changed(room)
        if self.spectator:
            if not room.get("spectators_allowed") or (room.get("ranked") and room.get("status") == "playing"):
                await self.close(code=CLOSE_NOT_A_PLAYER)  # watching turned off, or a ranked game started
                await self._release()  # off the room's spectators at once
            return
        seats = room.get("seats") or []
        mine = next((s.get("index") for s in seats if (s.get("user") or {}).get("id") == self.user.pk), None)
        if mine != self.seat:
            # The seat the user holds now is read from the database, not taken from the message: a
            # room message that arrives late (or out of order) must never make this socket forward the
            # views of a seat its user does not hold, nor close the socket of a user still seated.
            _room_msg, game_msg, mine = await db_call(_snapshot)(self.room_id, self.user.pk)
            if mine is None:
                await self.close(code=CLOSE_NOT_A_PLAYER)
                return
            if mine == self.seat:
                return
            self.seat = mine
            if game_msg is not None:
                self.game_id, self.last_seq = None, -1  # another seat's views: its snapshot starts them
                await self._send_game(games_events.game_share(game_msg))

    async def room_chat(self, event):
        """A chat ``message``."""
        await self.send_json(event["payload"])

    async def room_chat_hidden(self, event):
        """``{type: "chat_hidden", id}``: a moderator hid that chat message; clients remove it."""
        await self.send_json(event["payload"])

    async def room_closed(self, event):
        """A moderator closed the room: ``{type: "room_closed", detail}``, then the socket closes (4404)."""
        await self.send_json(event["payload"])
        await self.close(code=event["close_code"])

    async def room_kick(self, event):
        """A moderator kicked ``user_id`` from this room: that user's sockets get ``{type: "kicked",
        seat}`` and close (4403); the others ignore it (they get the new ``room``)."""
        if self.user.pk != event.get("user_id") or self.seat is None:
            return
        await self.send_json(event["payload"])
        await self.close(code=event["close_code"])

    async def room_presence(self, event):
        """``{type: "presence", seat, connected, away, cpu_playing}`` from the games app."""
        await self.send_json(event["payload"])

    async def room_achievement(self, event):
        """``{type: "achievement", seat, achievement}`` from the ranking app."""
        await self.send_json(event["payload"])

    async def user_revoked(self, event):
        """``{"type": "user.revoked", "close_code", "code"?, "detail"?, "until"?}`` to the group
        ``user-<id>`` (``accounts.sanctions``: ban 4409, suspension 4410, logout 4401)."""
        body = {k: event[k] for k in ("code", "detail", "until") if k in event} or None
        await self.voice_quit("sanction")
        await self._revoke(int(event["close_code"]), body)

    async def user_warning(self, event):
        """``{type: "warning", detail}`` to the group ``user-<id>``: a moderator's warning (a report's
        outcome)."""
        await self.send_json(event["payload"])

    async def user_notice(self, event):
        """``{type: "notice", id, kind, text}`` to the group ``user-<id>``: something the player is told
        and also finds at their next visit (``moderation.notices``: warnings, reports acted on, appeals)."""
        await self.send_json(event["payload"])

    async def game_voided(self, event):
        """``{type: "game_voided", game_id, coins, xp, rating}`` to the group ``user-<id>``: a moderator voided
        a finished game of this player (``moderation.voids``); its own reversed coins, XP and rating."""
        await self.send_json(event["payload"])

    async def queue_matched(self, event):
        """``{type: "queue", status: "matched", room}`` to the group ``user-<id>`` (ranking's queue)."""
        await self.send_json(event["payload"])

