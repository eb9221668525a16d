"""The user socket ``/ws/me/`` (docs/party.md "The user socket"): a signed-in player's own socket, open
whatever room is in front of them.

Authentication as the room socket's (``config.ws_auth``): accepted, then closed with **4401** when not
signed in, **4409** banned, **4410** suspended (after an ``error`` message naming why). On connect it
joins the groups ``user-<id>`` (sanctions close it; the ranked queue's ``queue`` and a moderator's
``warning`` messages come through it) and ``notify-<id>``, marks the user online
(``accounts.presence``) and sends ``{type: "hello", turns: [{game_id, game, room, url}]}``: the games
awaiting the user now. Then, server → client: ``turn`` and ``invitation`` (``notify.services``), ``queue``,
``warning``. Client → server: ``{type: "ping"}`` → ``{type: "pong"}`` (keeps the user online); anything
else is answered ``{type: "error", code: "invalid"}``. A socket silent for ``WS_IDLE_SECONDS`` (60) is
closed with **4408**.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from accounts.presence import mark_offline, mark_online
from accounts.sanctions import CLOSE_CODES, CLOSE_SIGNED_OUT, user_group, user_standing
from config.asyncdb import db_call
from config.links import public_link
from config.parsers import loads_strict
from config.sockets import close_when_silent
from games.engine.registry import get_engine
from games.models import Game, GamePlayer
from notify.services import notify_group, room_code_of

logger = logging.getLogger(__name__)



def awaiting_turns(user_id: int) -> list[dict]:
    """``[{game_id, game, room, url}]``: the games in progress whose current window awaits ``user_id``'s
    seat, newest first (at most 50)."""
    rows = (GamePlayer.objects.filter(user_id=user_id, cpu=False, game__status=Game.PLAYING)
            .select_related("game").order_by("-game_id")[:50])
    out = []
    for gp in rows:
        engine = get_engine(gp.game.game)
        if gp.seat in engine.awaiting(engine.from_dict(gp.game.state)):
            code = room_code_of(gp.game.group)
            out.append({"game_id": gp.game_id, "game": gp.game.game, "room": code,
                        "url": public_link(f"/room/{code}") if code else None})
    return out


class UserConsumer(AsyncJsonWebsocketConsumer):
    """One user socket of one signed-in user (several per user are allowed)."""

    joined = False
    revoked = False
    watchdog = None

    async def connect(self):
        self.user = self.scope.get("user")
        self.last_seen = time.monotonic()
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_SIGNED_OUT)
            return
        refusal = user_standing(self.user)
        if refusal is not None:
            await self.send_json({"type": "error", **refusal})
            await self.close(code=CLOSE_CODES[refusal["code"]])
            return
        self.groups_joined = (user_group(self.user.pk), notify_group(self.user.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        self.joined = True
        await db_call(mark_online)(self.user.pk)
        await self.send_json({"type": "hello", "turns": await db_call(awaiting_turns)(self.user.pk)})
        self.watchdog = asyncio.ensure_future(close_when_silent(self))

    async def disconnect(self, code):
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.joined:
            self.joined = False
            with contextlib.suppress(Exception):
                await db_call(mark_offline)(self.user.pk)
            for group in self.groups_joined:
                with contextlib.suppress(Exception):
                    await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        self.last_seen = time.monotonic()
        if not self.joined or self.revoked:
            return
        try:
            content = loads_strict(text_data if text_data is not None else bytes_data)
        except (ValueError, TypeError):
            await self.send_json({"type": "error", "code": "parse_error", "detail": "Malformed JSON."})
            return
        if isinstance(content, dict) and content.get("type") == "ping":
            await db_call(mark_online)(self.user.pk)
            await self.send_json({"type": "pong"})
        else:
            await self.send_json({"type": "error", "code": "invalid", "detail": "Send ping.",
                                  "fields": {"type": ["Only ping."]}})

    async def send_json(self, content, close=False):
        if self.revoked:
            return
        try:
            await super().send_json(content, close=close)
        except Exception:  # the client is gone
            logger.debug("user socket send failed", exc_info=True)

    # --------------------------------------------------------------------------------- group messages
    async def notify_message(self, event):
        """``turn`` / ``invitation`` (``notify.services.deliver``)."""
        await self.send_json(event["payload"])

    async def queue_matched(self, event):
        await self.send_json(event["payload"])

    async def user_warning(self, event):
        await self.send_json(event["payload"])

    async def user_revoked(self, event):
        """Ban 4409, suspension 4410, logout 4401 (``accounts.sanctions``): the error, then the close."""
        body = {k: event[k] for k in ("code", "detail", "until") if k in event}
        if body:
            await self.send_json({"type": "error", **body})
        self.revoked = True
        with contextlib.suppress(Exception):
            await self.close(code=int(event["close_code"]))
