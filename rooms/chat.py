"""A room's chat: list and post (REST and socket alike), a moderator hiding a message. Lock contract:
:mod:`rooms.locking` (a hide locks the message row).
"""


from django.db import transaction
from django.utils import timezone

from accounts.sanctions import standing_error, user_check_standing, user_mute_status
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from rooms import selectors
from rooms.chat_catalogue import EMOJI, PHRASE_IDS
from rooms.locking import (
    _reason,
    send_on_commit,
)
from rooms.models import (
    ChatMessage,
    Room,
    RoomStatus,
    Seat,
)
from rooms.serializers import ChatPostSerializer, message_data
from rooms.throttles import chat_throttle_check


def _chat_body(data) -> dict:
    """Exactly one of ``text`` (the text policy: trimmed, 1–200 grapheme clusters), ``emoji`` (of the
    catalogue), ``phrase`` (an id)."""
    if not isinstance(data, dict):
        raise ApiError("invalid", "A chat message is an object.", 400)
    ser = ChatPostSerializer(data=data)
    ser.is_valid(raise_exception=True)
    given = {k: v for k, v in ser.validated_data.items() if k in ("text", "emoji", "phrase")}
    if len(given) != 1:
        raise ApiError("invalid", "Send exactly one of text, emoji, phrase.", 400,
                       fields={"non_field_errors": ["Send exactly one of text, emoji, phrase."]})
    key, value = next(iter(given.items()))
    if key == "emoji" and value not in EMOJI:
        raise invalid_field("emoji", "Not in the catalogue.")
    if key == "phrase" and value not in PHRASE_IDS:
        raise invalid_field("phrase", "Not in the catalogue.")
    return {key: value}


def _chat_seat(room: Room, user) -> Seat:
    """The caller's seat for chat; raises 403 ``banned``/``suspended``, ``not_a_player`` (no seat, or
    left)."""
    user_check_standing(user)
    seat = Seat.objects.filter(room=room, user=user, left=False).first()
    if seat is None:
        raise ApiError("not_a_player", "Only players seated in the room may chat.", 403)
    return seat


def chat_list(*, code: str, user, before: int | None = None) -> list[ChatMessage]:
    """The room's last 50 messages (before message id ``before``), oldest first; seated players only.
    Raises 404, 403 ``banned``/``not_a_player``."""
    room = selectors.room_get(code=code)
    _chat_seat(room, user)
    return selectors.chat_messages(room=room, before=before)


@transaction.atomic
def chat_post(*, code: str, user, data) -> ChatMessage:
    """Post a chat message (REST and WebSocket alike) and send it to ``room-<code>`` after the commit.

    Raises 404, 403 ``banned``/``suspended``/``not_a_player``/``muted`` (with ``until``), 400 ``invalid`` (not exactly one field, text
    not 1–200 after trimming, emoji or phrase not in the catalogue), 429 ``throttled`` (DRF ``Throttled``;
    5 per 10 s per user by default).
    """
    room = selectors.room_get(code=code)
    seat = _chat_seat(room, user)
    muted = user_mute_status(user)
    if muted is not None:
        raise standing_error(muted, user)
    body = _chat_body(data)
    chat_throttle_check(user)
    message = ChatMessage.objects.create(room=room, user=user, seat=seat.index, **body)
    Room.objects.filter(pk=room.pk).update(last_activity=timezone.now())
    payload = {"type": "chat", "message": message_data(message, selectors.chat_names(room=room, messages=[message]))}
    send_on_commit(room.group, {"type": "room.chat", "payload": payload})
    return message


@transaction.atomic
def chat_message_hide(*, message_id: int, by, reason: str) -> ChatMessage:
    """Hide a chat message (a moderator ``by``, with ``reason``): it leaves the room's history
    (``GET .../messages``) and, after the commit, every socket of the room gets ``{"type": "chat_hidden",
    "id"}`` so clients remove it. The row stays for the record; one audit row. Idempotent (hiding a hidden
    message changes nothing). Raises 404 ``not_found``, 400 ``invalid`` naming ``reason`` (empty)."""
    reason = _reason(reason)
    message = ChatMessage.objects.select_for_update(of=("self",)).select_related("room").filter(
        pk=message_id).first()
    if message is None:
        raise ApiError("not_found", "No such message.", 404)
    if message.hidden_at is not None:
        return message
    message.hidden_at, message.hidden_by, message.hidden_reason = timezone.now(), by, reason
    message.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
    audit_record(actor=by, action="chat_hide", target=message, reason=reason,
                 changes={"hidden_at": [None, message.hidden_at]}, text=message.text or message.emoji
                 or message.phrase)
    room = message.room
    if room.status != RoomStatus.CLOSED:
        payload = {"type": "chat_hidden", "id": message.pk}
        send_on_commit(room.group, {"type": "room.chat_hidden", "payload": payload})
    return message
