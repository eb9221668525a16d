"""Notifications (docs/party.md): what goes to a player's user socket (``/ws/me/``, group ``notify-<id>``)
and, when no user socket of theirs is open, to their browsers by Web Push; invitations to a room; push
subscriptions."""

from __future__ import annotations

import logging

from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from accounts.presence import online_key
from accounts.sanctions import user_standing
from config.errors import ApiError, invalid_field
from config.links import public_link
from games.events import group_send
from notify.models import PushSubscription
from notify.push import push_forget_if_none, push_key
from notify.tasks import push
from ranking.selectors import friend_ids
from rooms.models import RoomStatus, Seat
from rooms.selectors import room_get
from rooms.serializers import invite_url

log = logging.getLogger(__name__)


def notify_group(user_id: int) -> str:
    """The channel-layer group of one user's user sockets: ``notify-<id>``."""
    return f"notify-{user_id}"


def deliver(user_ids: list[int], payload: dict, *, push_title: str) -> None:
    """``payload`` to each user of ``user_ids``: on their user sockets (``{"type": "notify.message",
    "payload"}``) when one is open (``accounts.presence``), else by Web Push as ``{title, ...payload}``
    (a Celery task) when they have a subscription. One cache round trip for every user and no database
    query (it runs after the commit of game actions): the cache keeps a ``push:<id>`` mark per user with a
    subscription (set when one is saved, which the page does at each load). Never raises."""
    if not user_ids:
        return
    keys = {uid: (online_key(uid), push_key(uid)) for uid in user_ids}
    try:
        found = cache.get_many([k for pair in keys.values() for k in pair])
    except Exception:  # noqa: BLE001 - the cache is down: nobody to tell now, the game goes on
        log.warning("notify: cache unavailable", exc_info=True)
        return
    for uid, (online, subscribed) in keys.items():
        if online in found:
            group_send(notify_group(uid), {"type": "notify.message", "payload": payload})
        elif subscribed in found:
            push.delay(uid, {"title": push_title, **payload})


def room_code_of(group: str) -> str | None:
    """The room code of a game's live-delivery group ``room-<code>`` (None for another group)."""
    return group[5:] if group.startswith("room-") else None


def notify_turn(*, game_id: int, game: str, group: str, user_ids: list[int], deadline) -> None:
    """``{type: "turn", game_id, game, room, url, deadline}`` to each of ``user_ids`` (a decision
    window of game ``game_id`` awaits them). ``room``: the room's code (None for a game without a
    room); ``url``: the page's link to the room; ``deadline``: ISO 8601 or None."""
    code = room_code_of(group)
    payload = {"type": "turn", "game_id": game_id, "game": game, "room": code,
               "url": public_link(f"/room/{code}") if code else None,
               "deadline": deadline.isoformat().replace("+00:00", "Z") if deadline else None}
    deliver(user_ids, payload, push_title=gettext("Your turn"))


def room_invite(*, code: str, user, to_user_id: int, base_url: str | None = None) -> dict:
    """Invite friend ``to_user_id`` to room ``code``: ``{type: "invitation", room, invite_url, game,
    from: {id, display_name}}`` to the friend's user sockets (or by Web Push). The caller must hold a seat
    in the room, which must not be playing or closed. Returns ``{invited: {id, display_name}, room}``.

    Raises 404 ``not_found`` (no such room), 403 ``not_in_room`` (the caller has no seat there), 409
    ``already_started`` (a game is on), 400 ``invalid`` naming ``user_id`` (yourself, or not a friend:
    invitations go to friends only), 409 ``already_seated`` (the friend is at the table already)."""
    room = room_get(code=code)
    seats = list(Seat.objects.filter(room=room).values_list("user_id", flat=True))
    if user.pk not in seats:
        raise ApiError("not_in_room", gettext("Only a player at the table may invite."), 403)
    if room.status == RoomStatus.PLAYING:
        raise ApiError("already_started", gettext("The game is on; invite when it ends."), 409)
    if to_user_id == user.pk or to_user_id not in friend_ids(user.pk):
        raise invalid_field("user_id", gettext("Invitations go to your friends only."))
    if to_user_id in seats:
        raise ApiError("already_seated", gettext("That friend is at the table already."), 409)
    friend = User.objects.filter(pk=to_user_id).first()
    if friend is None or user_standing(friend) is not None:
        raise invalid_field("user_id", gettext("Invitations go to your friends only."))
    payload = {"type": "invitation", "room": room.code, "invite_url": invite_url(room.code, base_url),
               "game": room.game_name, "from": {"id": user.pk, "display_name": user.display_name}}
    transaction.on_commit(lambda: deliver([to_user_id], payload, push_title=gettext("An invitation")))
    return {"invited": {"id": friend.pk, "display_name": friend.display_name}, "room": room.code}


def push_subscribe(*, user, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """Save (or move to ``user``) the push subscription of ``endpoint``."""
    sub, _ = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth})
    cache.set(push_key(user.pk), 1, None)
    return sub


def push_unsubscribe(*, user, endpoint: str) -> bool:
    """Delete ``user``'s subscription of ``endpoint``; False if there was none."""
    deleted = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()[0] > 0
    push_forget_if_none(user.pk)
    return deleted


