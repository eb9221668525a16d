"""Voice at the table (docs/voice.md): the server relays WebRTC signalling between the seated players of
a room who joined voice; the audio goes peer to peer and never passes the server.

Who is in voice is kept in the cache (Redis in production: every server process sees it), one key per
seat, ``voice:<room id>:<seat>`` → ``{user_id, channel, session, since}`` (``channel``: the channel-layer
name of the socket in voice for that seat; ``session``: its :class:`~rooms.models.VoiceSession` row, the
moderators' record). A key lives ``VOICE_TTL_SECONDS`` (twice ``WS_IDLE_SECONDS``) and the socket renews
it while it talks, so the seat of a server process that died leaves voice by itself; a socket that closes
leaves at once (:func:`voice_leave`).

Errors (:class:`~config.errors.ApiError`, sent as the socket's ``error``): 400 ``invalid`` (a malformed
``voice_signal``, ``fields`` naming the key), 413 ``too_large`` (a signal over ``VOICE_SIGNAL_MAX_BYTES``),
403 ``not_a_player`` (a spectator, or no seat), 403 ``muted`` / ``banned`` / ``suspended``, 409
``voice_off`` (the host turned voice off), 409 ``voice_not_joined`` (a signal before ``voice_join``), 409
``not_in_voice`` (``to_seat`` is not in voice), 404 ``not_found`` (the room closed); 429 ``throttled``
comes from :class:`SignalBucket`.
"""

from __future__ import annotations

import json
import time

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from accounts.sanctions import standing_error, user_mute_status, user_standing
from config.errors import ApiError, invalid_field
from rooms import selectors
from rooms.models import Room, RoomStatus, Seat, VoiceSession

MAX_SEATS = 8  # the most seats a room has (the engines' seat ranges): a full mesh of 8
SDP_TYPES = ("offer", "answer")
CANDIDATE_KEYS = {"candidate", "sdpMid", "sdpMLineIndex", "usernameFragment"}


def voice_ttl() -> int:
    """Seconds a seat's voice key lives without being renewed: ``VOICE_TTL_SECONDS``, by default twice
    ``WS_IDLE_SECONDS`` (a live socket hears from its client at least that often)."""
    return int(getattr(settings, "VOICE_TTL_SECONDS", 2 * int(getattr(settings, "WS_IDLE_SECONDS", 60))))


def voice_key(room_id: int, seat: int) -> str:
    """The cache key of seat ``seat``'s place in the voice of room ``room_id``."""
    return f"voice:{room_id}:{seat}"


def voice_members(room_id: int) -> dict[int, dict]:
    """``{seat: {user_id, channel, session, since}}`` of the seats in the room's voice now. One cache read."""
    keys = {voice_key(room_id, seat): seat for seat in range(MAX_SEATS)}
    return {keys[key]: entry for key, entry in cache.get_many(list(keys)).items()}


def voice_seats(room_id: int) -> list[int]:
    """The seats in the room's voice now, in order."""
    return sorted(voice_members(room_id))


def peers_message(members: dict[int, dict]) -> dict:
    """The ``voice_peers`` message of ``members`` (:func:`voice_members`): ``{type, seats, peers: [{seat,
    session}]}`` in seat order (``session``: the id of that seat's join, growing with each join)."""
    seats = sorted(members)
    return {"type": "voice_peers", "seats": seats,
            "peers": [{"seat": seat, "session": members[seat].get("session")} for seat in seats]}


def _end_session(entry: dict, reason: str) -> None:
    VoiceSession.objects.filter(pk=entry.get("session"), left_at__isnull=True).update(
        left_at=timezone.now(), left_reason=reason)


def voice_join(*, room_id: int, user, seat: int, channel: str) -> tuple[dict[int, dict], int, str | None]:
    """Put seat ``seat`` of ``user`` (read fresh by the caller) in the room's voice through the socket
    ``channel``; returns ``(voice_members now, this join's session id, the channel of this seat's socket
    that was in voice before and is replaced, or None)``. Idempotent for the same socket. Records a
    :class:`VoiceSession`.

    Raises 403 ``banned`` / ``suspended`` / ``muted`` (``until``), 404 ``not_found`` (room closed), 409
    ``voice_off``, 403 ``not_a_player`` (the user does not hold that seat)."""
    refusal = user_standing(user) or user_mute_status(user)
    if refusal is not None:
        raise standing_error(refusal)
    room = Room.objects.filter(pk=room_id).only("voice_allowed", "status").first()
    if room is None or room.status == RoomStatus.CLOSED:
        raise ApiError("not_found", "No such room.", 404)
    if not room.voice_allowed:
        raise ApiError("voice_off", "The host turned voice off in this room.", 409)
    if not Seat.objects.filter(room_id=room_id, index=seat, user=user, left=False).exists():
        raise ApiError("not_a_player", "Only the seated players have voice.", 403)
    key = voice_key(room_id, seat)
    old = cache.get(key)
    if old is not None and old.get("channel") == channel:
        cache.touch(key, voice_ttl())
        return voice_members(room_id), old.get("session"), None
    session = VoiceSession.objects.create(room_id=room_id, user=user, seat=seat)
    cache.set(key, {"user_id": user.pk, "channel": channel, "session": session.pk, "since": time.time()},
              timeout=voice_ttl())
    replaced = None
    if old is not None:
        _end_session(old, "replaced")
        replaced = old.get("channel")
    return voice_members(room_id), session.pk, replaced


def voice_leave(*, room_id: int, seat: int, channel: str, reason: str) -> bool:
    """Take seat ``seat`` out of the room's voice if the socket ``channel`` is the one in voice for it
    (another socket that replaced it stays); ends its :class:`VoiceSession` with ``reason``. Whether it
    left."""
    key = voice_key(room_id, seat)
    entry = cache.get(key)
    if entry is None or entry.get("channel") != channel:
        return False
    cache.delete(key)
    _end_session(entry, reason)
    return True


def voice_touch(*, room_id: int, seat: int, channel: str) -> bool:
    """Renew the seat's voice key when the socket ``channel`` holds it; whether it does (False: it was
    replaced by another socket, or expired)."""
    key = voice_key(room_id, seat)
    entry = cache.get(key)
    if entry is None or entry.get("channel") != channel:
        return False
    return bool(cache.touch(key, voice_ttl()))


def voice_route(*, room_id: int, seat: int, channel: str, to_seat: int) -> str:
    """The channel of the socket in voice for ``to_seat``, for a signal from seat ``seat``'s socket
    ``channel``. Raises 409 ``voice_not_joined`` (the sender is not in voice), 409 ``not_in_voice``
    (``to_seat`` is not, or is the sender's own seat)."""
    members = voice_members(room_id)
    mine = members.get(seat)
    if mine is None or mine.get("channel") != channel:
        raise ApiError("voice_not_joined", "Join voice first (voice_join).", 409)
    if to_seat == seat or to_seat not in members:
        raise ApiError("not_in_voice", "That seat is not in voice.", 409,
                       fields={"to_seat": ["A seat in voice, not yours."]})
    return members[to_seat]["channel"]


def _opt_str(value, name: str, most: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > most:
        raise invalid_field(name, "A short string, or null.")
    return value


def clean_signal(content: dict) -> tuple[int, dict]:
    """``(to_seat, payload)`` of a ``voice_signal`` message ``{type, to_seat, sdp | candidate}``: ``sdp``
    ``{type: "offer" | "answer", sdp: str}``, or ``candidate`` ``{candidate: str, sdpMid?: str | null,
    sdpMLineIndex?: int | null, usernameFragment?: str | null}`` or null (no more candidates). The payload
    holds only these keys. Raises 413 ``too_large`` (over ``VOICE_SIGNAL_MAX_BYTES`` as JSON), 400
    ``invalid`` naming the key."""
    most = settings.VOICE_SIGNAL_MAX_BYTES
    if len(json.dumps(content, ensure_ascii=False).encode("utf-8", "surrogatepass")) > most:
        raise ApiError("too_large", "The voice signal is too large.", 413, extra={"max_bytes": most})
    to_seat = content.get("to_seat")
    if type(to_seat) is not int or not 0 <= to_seat < MAX_SEATS:
        raise invalid_field("to_seat", "A seat index, 0 to 7.")
    extra = sorted(set(content) - {"type", "to_seat", "sdp", "candidate"})
    if extra:
        raise invalid_field(extra[0], "Unknown field; send to_seat and one of sdp, candidate.")
    if ("sdp" in content) == ("candidate" in content):
        raise ApiError("invalid", "Send exactly one of sdp, candidate.", 400,
                       fields={"sdp": ["Exactly one of sdp, candidate."]})
    if "sdp" in content:
        sdp = content["sdp"]
        if (not isinstance(sdp, dict) or set(sdp) != {"type", "sdp"} or sdp["type"] not in SDP_TYPES
                or not isinstance(sdp["sdp"], str) or not sdp["sdp"]):
            raise invalid_field("sdp", "An object {type: offer | answer, sdp: the session description}.")
        return to_seat, {"sdp": {"type": sdp["type"], "sdp": sdp["sdp"]}}
    candidate = content["candidate"]
    if candidate is None:
        return to_seat, {"candidate": None}
    if not isinstance(candidate, dict) or not isinstance(candidate.get("candidate"), str) or (
            set(candidate) - CANDIDATE_KEYS):
        raise invalid_field("candidate", "An object {candidate, sdpMid?, sdpMLineIndex?, usernameFragment?}, "
                            "or null.")
    index = candidate.get("sdpMLineIndex")
    if index is not None and (type(index) is not int or not 0 <= index <= 65535):
        raise invalid_field("candidate.sdpMLineIndex", "An integer 0..65535, or null.")
    return to_seat, {"candidate": {
        "candidate": candidate["candidate"],
        "sdpMid": _opt_str(candidate.get("sdpMid"), "candidate.sdpMid", 64),
        "sdpMLineIndex": index,
        "usernameFragment": _opt_str(candidate.get("usernameFragment"), "candidate.usernameFragment", 256),
    }}


class SignalBucket:
    """The rate of one socket's voice messages: a bucket of ``burst`` tokens refilled at ``per_second``;
    :meth:`take` answers ``None`` (taken) or the seconds until ``cost`` tokens are there (nothing taken)."""

    def __init__(self, burst: int, per_second: float, clock=time.monotonic):
        self.burst, self.per_second, self.clock = burst, per_second, clock
        self.tokens, self.at = float(burst), clock()

    def take(self, cost: int = 1) -> float | None:
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens >= cost:
            self.tokens -= cost
            return None
        return (cost - self.tokens) / self.per_second


def voice_state(*, code: str, user) -> dict:
    """``GET /api/rooms/{code}/voice`` for a seated player: ``{voice_allowed, seats (in voice now),
    ice_servers (VOICE_ICE_SERVERS), signal_max_bytes}``. Raises 404 (no such live room), 403
    ``not_a_player`` (the caller holds no seat)."""
    room = selectors.room_get(code=code)
    if not Seat.objects.filter(room=room, user=user, left=False).exists():
        raise ApiError("not_a_player", "Only the seated players have voice.", 403)
    return {"voice_allowed": room.voice_allowed, "seats": voice_seats(room.pk),
            "ice_servers": settings.VOICE_ICE_SERVERS, "signal_max_bytes": settings.VOICE_SIGNAL_MAX_BYTES}
