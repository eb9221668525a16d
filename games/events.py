"""Live delivery of games (DESIGN.md "Live delivery", API.md "WebSocket").

One message per broadcast, to the room's group ``game.group`` (every socket of the room, seated or
watching, is in it): ``{"type": "game.update", "after", "seats": {"<seat>": share, ...}, "spectators"?:
share}``, a share being that seat's ``{"type": "game", "view", "events"}`` message already encoded
(:func:`game_share`); each socket's consumer forwards only its own seat's share (:func:`seat_share`; the
spectators' for a spectator, none while a ranked game is in progress; when no spectator socket was open,
the spectators' share is not built and the message says ``"unwatched": true``), so the channel layer
carries one publish per action however many seats there are, and no JSON is encoded per socket.
Presence goes to the same group as ``{"type": "room.presence", "payload": {"type": "presence", "seat",
"connected", "away", "cpu_playing"}}``. Sending never raises: the database is the truth and clients
resync by ``seq``.
"""

from __future__ import annotations

import asyncio
import logging
import os

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

from config import fastjson
from games.models import Game
from games.selectors import game_view, log_entries

log = logging.getLogger(__name__)


def game_share(payload: dict, user_id: int | None = None) -> dict:
    """A ``game`` message ready for a socket: ``{"id": game id, "seq": the view's seq, "user": the seat's
    user id (``user_id``; None for the spectators' share or a CPU seat), "text": the message as JSON
    text}``. Encoded once where it is built: the consumer sends the text as it is (and decodes it only in
    the rare case it must add or cut events), so a broadcast's channel-layer message, decoded by every
    socket of the room in the process, holds strings, not every seat's view as nested objects. ``user``
    lets a socket check that a seat's share is its own user's (a start that moves the party's seats
    broadcasts the new game before the socket hears of its new seat). The text is orjson's
    (:mod:`config.fastjson`: compact, UTF-8)."""
    view = payload.get("view") or {}
    return {"id": view.get("id"), "seq": view.get("seq", -1), "user": user_id, "text": fastjson.dumps(payload)}


def seat_share(message: dict, seat: int | None, user_id: int | None = None) -> dict | None:
    """One socket's share of a ``game.update`` ``message`` (:func:`broadcast_game`), as :func:`game_share`:
    for a seated socket (``seat``, its user ``user_id``) that seat's ``game`` message, only when the share
    names that user (a start that moves the party's seats broadcasts the new game before the socket hears
    of its new seat: the share of its old seat is another user's); for ``seat=None`` (a spectator) the
    spectators' one (spectator view, public events). ``None`` when the message holds none for it (a seat
    not in the game or another user's, a ranked game in progress for a spectator)."""
    if seat is None:
        return message.get("spectators")
    share = (message.get("seats") or {}).get(str(seat))
    return share if share is not None and share.get("user") == user_id else None


def group_send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` without making the caller wait: through :func:`publish`, so from a
    request's thread a task on the server's event loop sends it (after every message published before it
    in this process) and the HTTP answer does not wait for Redis; elsewhere (a Celery worker, a command,
    the test client) it is sent before this returns. Errors are logged, never raised."""
    if group:
        publish(lambda: [(group, message)])


def group_send_many(messages: list[tuple[str, dict]]) -> None:
    """Send each ``(group, message)`` concurrently in one hop to the event loop; errors are logged, never
    raised (one failed group does not stop the others)."""
    messages = [(g, m) for g, m in messages if g]
    if not messages:
        return
    try:
        async_to_sync(_send_all)(messages)
    except Exception:
        log.exception("group_send to %d groups failed", len(messages))


async def _send_all(messages: list[tuple[str, dict]]) -> None:
    """Send every ``(group, message)`` concurrently on the running loop; a failed group is logged."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    results = await asyncio.gather(*(layer.group_send(g, m) for g, m in messages), return_exceptions=True)
    for (group, _msg), result in zip(messages, results, strict=True):
        if isinstance(result, BaseException):
            log.error("group_send to %s failed: %r", group, result)


def publish(build) -> None:
    """Send the ``(group, message)`` list that ``build()`` returns, without making the caller wait.

    Called from a request's thread (Django's sync code under an ASGI server, after the commit): the
    messages are built and sent by a task on the server's event loop, and the HTTP answer goes at once.
    The tasks send one after another, in the order of the calls (:func:`_send_lock`): a message never
    overtakes one published before it in this process, whatever the channel layer (the list layer's
    ``group_send`` takes several Redis round trips, which concurrent tasks would interleave). With no
    such loop (a Celery worker, a management command, the test client) they are built and sent here,
    before returning. Errors are logged, never raised. Tasks are kept until done (asyncio holds only weak
    references to them); those still waiting when the server process stops are lost, as any message of
    the layer may be: clients resync by ``seq`` and the room's ``version``."""
    loop = _server_loop()
    if loop is None:
        try:
            messages = build()
        except Exception:
            log.exception("building a broadcast failed")
            return
        group_send_many(messages)
        return

    async def build_and_send() -> None:
        try:
            messages = [(g, m) for g, m in build() if g]
        except Exception:
            log.exception("building a broadcast failed")
            return
        async with _send_lock(loop):
            await _send_all(messages)

    def spawn() -> None:
        task = loop.create_task(build_and_send())
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)

    try:
        loop.call_soon_threadsafe(spawn)
    except RuntimeError:  # the loop closed since it was found (the server stopping): nothing can be sent
        log.warning("the event loop closed before a broadcast was handed to it")


_PENDING: set = set()
_SEND_LOCK: list = [None, None]  # [loop, its asyncio.Lock]


def _send_lock(loop) -> asyncio.Lock:
    """The lock that :func:`publish`'s tasks on ``loop`` send under, one at a time and first come, first
    served (asyncio's lock is FIFO, and a task reaches it without awaiting anything before: in the order
    the tasks were made). A new loop (tests) gets a new lock: asyncio's primitives keep to one loop."""
    if _SEND_LOCK[0] is not loop:
        _SEND_LOCK[:] = [loop, asyncio.Lock()]
    return _SEND_LOCK[1]


def _server_loop():
    """The running event loop this thread's sync code was called from (asgiref's ``sync_to_async`` records
    it, as its ``async_to_sync`` does), or ``None`` outside one / on that loop's own thread."""
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    try:
        if asyncio.get_running_loop() is loop:
            return None
    except RuntimeError:
        pass
    return loop


def broadcast_game(game, *, players: list, state, rows: list[tuple[int, str | None, list[dict]]],
                   views: dict[int, dict] | None = None, watched: bool = True) -> None:
    """After commit: the transaction's seqs to every socket of the game's room, built from what it held in
    memory.

    ``players``: the game's ``GamePlayer`` rows (users loaded); ``state``: the decoded final state;
    ``rows``: ``(seq, by, events with audiences)`` of the seqs the transaction produced, in order;
    ``views``: seat -> the view already built for the final state (the actor's answer), reused;
    ``watched``: whether a spectator socket was open on the room when the game was locked. Each seat's
    view is built once, and the spectators' only when someone watches (never while a ranked game is in
    progress: it is never watched). ONE message goes to ``game.group``: ``{"type": "game.update",
    "after": first seq - 1, "seats": {"<seat>": share}, "spectators"?: share, "unwatched"?: true}``, each
    share the ``{"type": "game", "view", "events"}`` message encoded by :func:`game_share` (``after``: the
    consumer checks that the socket has every seq before; ``rooms.consumers`` sends each socket only its
    own share, :func:`seat_share`). ``unwatched``: the spectators' share was left out because nobody
    watched; a spectator socket that opened meanwhile reads its view from the database instead. Sent
    through :func:`publish`: no query, and the caller does not wait."""
    if not game.group or not rows:
        return
    after = rows[0][0] - 1
    views = dict(views or {})

    def build() -> list[tuple[str, dict]]:
        seats = {}
        for gp in players:
            view = views.get(gp.seat)
            if view is None:
                view = game_view(game=game, seat=gp.seat, players=players, state=state)
            seats[str(gp.seat)] = game_share({"type": "game", "view": view, "events": log_entries(rows, gp.seat)},
                                             user_id=gp.user_id)
        message = {"type": "game.update", "after": after, "seats": seats}
        if game.ranked and game.status == Game.PLAYING:
            pass  # never watched: spectators are closed out when a ranked game starts
        elif watched:
            view = game_view(game=game, seat=None, players=players, state=state)
            message["spectators"] = game_share({"type": "game", "view": view, "events": log_entries(rows, None)})
        else:
            message["unwatched"] = True
        return [(game.group, message)]

    publish(build)


def presence_payload(gp) -> dict:
    """A seat's ``presence`` message: ``{type: "presence", seat, connected, away, cpu_playing}``."""
    return {"type": "presence", "seat": gp.seat, "connected": gp.connected, "away": gp.played_for,
            "cpu_playing": gp.cpu or gp.played_for}


def broadcast_presence(game, players: list) -> None:
    """After commit: each of ``players``' (``GamePlayer`` rows, as committed) presence to the room group,
    the only message a presence change sends (seat views are not re-sent)."""
    if not game.group or not players:
        return
    messages = [(game.group, {"type": "room.presence", "payload": presence_payload(gp)}) for gp in players]
    publish(lambda: messages)
