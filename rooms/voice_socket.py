"""The voice messages of the room socket (docs/voice.md), mixed into :class:`rooms.consumers.RoomConsumer`.

Client → server: ``{type: "voice_join"}``, ``{type: "voice_leave"}``, ``{type: "voice_signal", to_seat,
sdp | candidate}`` (:func:`rooms.voice.clean_signal`). Each counts against the socket's
:class:`~rooms.voice.SignalBucket` (a join costs ``VOICE_JOIN_COST``); a spectator's is refused (403
``not_a_player``).

Server → client: ``voice_peers {seats, peers: [{seat, session}]}`` (the seats in voice: the answer to
``voice_join``, and on connect when anyone is in voice), ``voice_joined {seat, session}`` and ``voice_left
{seat, reason, session}`` (to every seated socket of the room; ``session``: the id of that join, growing; ``reason``: ``left``, ``closed``, ``voice_off``, ``muted``, ``seat``, ``replaced``),
``voice_signal {from_seat, sdp | candidate}`` (only to the socket in voice for ``to_seat``).

Group messages: ``voice.presence`` (``{payload}`` to ``room-<code>``), ``voice.signal`` (``{room_id,
from_seat, payload}`` to one channel), ``voice.replaced`` (to the channel another socket of the same seat
took voice from), ``voice.revoke`` (``{code, detail, until}`` to ``user-<id>``: a mute; the socket leaves
voice and sends the ``error``).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from rest_framework import exceptions

from config.asyncdb import db_call
from config.errors import ApiError
from rooms import voice

logger = logging.getLogger(__name__)


class VoiceSocketMixin:
    """Voice for a room socket: needs ``room_id``, ``room_group``, ``seat``, ``spectator``, ``user``,
    ``channel_name``, ``channel_layer`` and ``send_json`` of the consumer."""

    voice_seat: int | None = None  # the seat this socket is in voice for
    voice_session: int | None = None  # the id of its join (rooms.models.VoiceSession)
    voice_bucket: voice.SignalBucket | None = None
    voice_renewed = 0.0

    async def voice_receive(self, kind: str, content: dict, current_user) -> None:
        """Handle a client's ``voice_*`` message; ``current_user``: a sync callable answering the socket's
        user read fresh (raising the consumer's revocation when signed out, banned or suspended)."""
        if self.voice_bucket is None:
            self.voice_bucket = voice.SignalBucket(settings.VOICE_SIGNAL_BURST, settings.VOICE_SIGNAL_PER_SECOND)
        wait = self.voice_bucket.take(settings.VOICE_JOIN_COST if kind == "voice_join" else 1)
        if wait is not None:
            raise exceptions.Throttled(wait)
        if self.spectator or self.seat is None:
            raise ApiError("not_a_player", "Only the seated players have voice.", 403)
        if kind == "voice_join":
            user = await db_call(current_user)()
            members, session, replaced = await db_call(voice.voice_join)(
                room_id=self.room_id, user=user, seat=self.seat, channel=self.channel_name)
            joined = self.voice_seat != self.seat
            self.voice_seat, self.voice_session, self.voice_renewed = self.seat, session, time.monotonic()
            if replaced is not None:
                await self.channel_layer.send(replaced, {"type": "voice.replaced", "room_id": self.room_id})
            if joined or replaced is not None:  # published before the joiner can send its offers
                await self._voice_announce({"type": "voice_joined", "seat": self.seat, "session": session})
            await self.send_json(voice.peers_message(members))
        elif kind == "voice_leave":
            await self.voice_quit("left")
        else:
            to_seat, payload = voice.clean_signal(content)
            if self.voice_seat is None:
                raise ApiError("voice_not_joined", "Join voice first (voice_join).", 409)
            target = await db_call(voice.voice_route)(
                room_id=self.room_id, seat=self.voice_seat, channel=self.channel_name, to_seat=to_seat)
            await self.channel_layer.send(target, {"type": "voice.signal", "room_id": self.room_id,
                                                   "from_seat": self.voice_seat, "payload": payload})

    async def voice_heard(self) -> None:
        """The client spoke: renew the seat's voice key now and then (a third of its life)."""
        if self.voice_seat is None or time.monotonic() - self.voice_renewed < voice.voice_ttl() / 3:
            return
        self.voice_renewed = time.monotonic()
        try:
            held = await db_call(voice.voice_touch)(room_id=self.room_id, seat=self.voice_seat,
                                                     channel=self.channel_name)
        except Exception:
            logger.warning("could not renew the voice of room %s seat %s", self.room_id, self.voice_seat,
                           exc_info=True)
            return
        if not held:  # expired: out of voice, as the others see it
            seat, self.voice_seat = self.voice_seat, None
            await self.send_json({"type": "voice_left", "seat": seat, "reason": "closed",
                                  "session": self.voice_session})

    async def voice_quit(self, reason: str) -> None:
        """Leave voice (if in it) and tell the room's seated sockets ``voice_left``. Never raises."""
        if self.voice_seat is None:
            return
        seat, self.voice_seat = self.voice_seat, None
        try:
            left = await db_call(voice.voice_leave)(room_id=self.room_id, seat=seat, channel=self.channel_name,
                                                    reason=reason)
            if left:
                await self._voice_announce({"type": "voice_left", "seat": seat, "reason": reason,
                                            "session": self.voice_session})
        except Exception:
            logger.exception("could not take room %s seat %s out of voice", self.room_id, seat)

    async def voice_room_changed(self, room: dict) -> None:
        """A newer ``room``: leave voice when the host turned it off or this user no longer holds the seat."""
        if self.voice_seat is None:
            return
        if not room.get("voice_allowed", True):
            await self.voice_quit("voice_off")
            return
        holder = next((s for s in room.get("seats") or [] if s.get("index") == self.voice_seat), None)
        if holder is None or (holder.get("user") or {}).get("id") != self.user.pk or holder.get("left"):
            await self.voice_quit("seat")

    async def voice_snapshot(self) -> None:
        """On connect, for a seated socket: ``voice_peers`` when anyone is in the room's voice."""
        members = await db_call(voice.voice_members)(self.room_id)
        if members:
            await self.send_json(voice.peers_message(members))

    async def _voice_announce(self, payload: dict) -> None:
        await self.channel_layer.group_send(self.room_group, {"type": "voice.presence", "payload": payload})

    # ---------------------------------------------------------------------------- group messages
    async def voice_presence(self, event) -> None:
        """``voice_joined`` / ``voice_left`` to the seated sockets (spectators get no voice)."""
        if not self.spectator:
            await self.send_json(event["payload"])

    async def voice_signal(self, event) -> None:
        """A peer's signal to this socket: forwarded while this socket is in the room's voice."""
        if self.voice_seat is not None and event.get("room_id") == self.room_id:
            await self.send_json({"type": "voice_signal", "from_seat": event["from_seat"], **event["payload"]})

    async def voice_replaced(self, event) -> None:
        """Another socket of the same seat joined voice: this one is out (its record ended already)."""
        if self.voice_seat is not None and event.get("room_id") == self.room_id:
            seat, self.voice_seat = self.voice_seat, None
            await self.send_json({"type": "voice_left", "seat": seat, "reason": "replaced",
                                  "session": self.voice_session})

    async def voice_revoke(self, event) -> None:
        """The user was muted: out of voice at once, with the ``error`` saying why."""
        if self.voice_seat is None:
            return
        await self.send_json({"type": "error", **{k: event[k] for k in ("code", "detail", "until") if k in event}})
        await self.voice_quit(event.get("code") or "muted")
