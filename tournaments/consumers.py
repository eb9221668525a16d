"""The tournament socket ``/ws/tournaments/{code}/`` (docs/tournaments.md "Socket"): read-only, live.

Any signed-in user holding the code may open it (the code is the invitation). It is accepted and then
closed with **4401** when not authenticated, **4409** banned, **4410** suspended (after an ``error``
naming why), **4404** for an unknown code. On connect it joins the groups ``tournament-<code>`` and
``user-<id>`` and sends ``{"type": "tournament", "tournament"}`` (the REST shape); every change of the
tournament (an entrant, a start, a table's end, a new round, the end) sends it again, whole, with a higher
``version``. Client → server: ``{"type": "ping"}`` → ``{"type": "pong"}``; anything else gets ``{"type":
"error", "code": "invalid"}``. A ban, suspension or logout (``user.revoked`` on ``user-<id>``) closes it
with its close code.
"""

import logging

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from accounts.sanctions import CLOSE_CODES, CLOSE_SIGNED_OUT, user_group, user_standing
from config.asyncdb import db_call
from config.errors import ApiError
from config.parsers import loads_strict
from tournaments import services

logger = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4404


def _snapshot(code: str) -> dict | None:
    try:
        t = services.tournament_get(code=code)
    except ApiError:
        return None
    return services.tournament_view(t)


class TournamentConsumer(AsyncJsonWebsocketConsumer):
    """One socket watching one tournament."""

    groups_joined: tuple[str, ...] = ()

    async def connect(self):
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_SIGNED_OUT)
            return
        refusal = user_standing(user)
        if refusal is not None:
            await self.send_json({"type": "error", **refusal})
            await self.close(code=CLOSE_CODES[refusal["code"]])
            return
        code = self.scope["url_route"]["kwargs"]["code"].upper()
        snapshot = await db_call(_snapshot)(code)
        if snapshot is None:
            await self.send_json({"type": "error", "code": "not_found", "detail": "No such tournament."})
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.groups_joined = (f"tournament-{code}", user_group(user.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        # A change committed between the read and the joins is sent again by the next one; read after
        # joining so that nothing is missed.
        snapshot = await db_call(_snapshot)(code) or snapshot
        self.version = snapshot["version"]
        await self.send_json({"type": "tournament", "tournament": snapshot})

    async def disconnect(self, code):
        for group in self.groups_joined:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:  # noqa: BLE001 - the layer is down: nothing to leave
                logger.debug("group_discard %s failed", group, exc_info=True)
        self.groups_joined = ()

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        try:
            content = loads_strict(text_data if text_data is not None else bytes_data)
        except (ValueError, TypeError):
            await self.send_json({"type": "error", "code": "parse_error", "detail": "Malformed JSON."})
            return
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.send_json({"type": "error", "code": "invalid", "detail": "This socket takes ping only."})

    async def tournament_update(self, event):
        """``{type: "tournament", tournament}``; an older version than the one sent is dropped."""
        data = event["payload"]["tournament"]
        if data.get("version", 0) > getattr(self, "version", -1):
            self.version = data["version"]
            await self.send_json(event["payload"])

    async def user_revoked(self, event):
        """A ban, suspension or logout of the user (``accounts.sanctions``): the error, then the close."""
        body = {k: event[k] for k in ("code", "detail", "until") if k in event}
        if body:
            await self.send_json({"type": "error", **body})
        await self.close(code=int(event["close_code"]))

    async def user_warning(self, event):
        await self.send_json(event["payload"])

    async def user_notice(self, event):
        """``{type: "notice", id, kind, text}`` (``moderation.notices``), as on a room socket."""
        await self.send_json(event["payload"])

    async def queue_matched(self, event):
        await self.send_json(event["payload"])
