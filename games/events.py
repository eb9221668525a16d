"""Live delivery of games (DESIGN.md "Live delivery", API.md "WebSocket").

Each seat's view goes to the group ``f"{game.group}-seat-{seat}"`` as ``{"type": "game.update", "payload":
{"type": "game", "view", "events"}}`` (the rooms consumer's ``game_update`` handler forwards ``payload``);
presence goes to ``game.group`` as ``{"type": "room.presence", "payload": {"type": "presence", "seat",
"connected", "away", "cpu_playing"}}``. Sending never raises: the database is the truth and clients
resync by ``seq``.
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games.selectors import game_view, log_entries

log = logging.getLogger(__name__)


def seat_group(group: str, seat: int) -> str:
    """The channel-layer group of one seat's view."""
    return f"{group}-seat-{seat}"


def group_send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` now; errors are logged, never raised."""
    if not group:
        return
    try:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(group, message)
    except Exception:
        log.exception("group_send to %s failed", group)


def group_send_many(messages: list[tuple[str, dict]]) -> None:
    """Send each ``(group, message)`` concurrently in one hop to the event loop; errors are logged, never
    raised (one failed group does not stop the others)."""
    messages = [(g, m) for g, m in messages if g]
    if not messages:
        return
    try:
        layer = get_channel_layer()
        if layer is None:
            return

        async def send_all() -> list:
            return await asyncio.gather(*(layer.group_send(g, m) for g, m in messages), return_exceptions=True)

        for (group, _msg), result in zip(messages, async_to_sync(send_all)(), strict=True):
            if isinstance(result, BaseException):
                log.error("group_send to %s failed: %r", group, result)
    except Exception:
        log.exception("group_send to %d groups failed", len(messages))


def group_send_on_commit(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: group_send(group, message))


def broadcast_game(game, events_by_seq: dict[int, list[dict]]) -> None:
    """After commit: send every seat its current view and the events of ``events_by_seq`` (``{seq:
    events with audiences}``) it may see, one message per seat. Call after the commit only."""
    if not game.group:
        return
    from games.engine.registry import get_engine
    from games.models import GameAction, GamePlayer

    players = list(GamePlayer.objects.filter(game=game).select_related("user"))
    bys = dict(GameAction.objects.filter(game=game, seq__in=list(events_by_seq)).values_list("seq", "by"))
    rows = [(seq, bys.get(seq), events_by_seq[seq]) for seq in sorted(events_by_seq)]
    state = get_engine(game.game).from_dict(game.state)
    messages = []
    for gp in players:
        view = game_view(game=game, seat=gp.seat, players=players, state=state)
        payload = {"type": "game", "view": view, "events": log_entries(rows, gp.seat)}
        messages.append((seat_group(game.group, gp.seat), {"type": "game.update", "payload": payload}))
    group_send_many(messages)


def broadcast_presence(game, seat: int) -> None:
    """After commit: a seat's presence to the room group."""
    from games.models import GamePlayer

    gp = GamePlayer.objects.filter(game=game, seat=seat).first()
    if gp is None or not game.group:
        return
    payload = {"type": "presence", "seat": seat, "connected": gp.connected, "away": gp.played_for,
               "cpu_playing": gp.cpu or gp.played_for}
    group_send(game.group, {"type": "room.presence", "payload": payload})
