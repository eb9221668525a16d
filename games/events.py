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

from config import fastjson, groups
from config.groups import group_send_many
from games.models import Game
from games.selectors import game_view, log_entries


def group_send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` without making the caller wait (:func:`config.groups.group_send`)."""
    if group:
        publish(lambda: [(group, message)])


def publish(build) -> None:
    """:func:`config.groups.publish`, sending through this module's :func:`group_send_many` when no event
    loop takes the messages (so that what replaces it here sees every message of the games app)."""
    groups.publish(build, send_many=lambda messages: group_send_many(messages))


__all__ = ["broadcast_game", "broadcast_presence", "game_share", "group_send", "group_send_many", "presence_payload",
           "publish", "seat_share"]


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
