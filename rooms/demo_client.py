"""A scripted client of the public API: plays whole games against a running server over HTTP and
WebSocket, one client per seat, exactly as a phone app would (``play_demo`` and the end-to-end test).

Per seat: a token (a guest made over HTTP, or given), one socket ``/ws/rooms/{code}/?token=…`` that keeps
the latest ``game`` view (by ``seq``) and pings every 20 s, and an HTTP client that posts the chosen
action to ``POST /api/games/{id}/actions`` with the view's ``seq`` (``actions="rest"``), or sends it on
the socket as ``{type: "action", action, action_id}`` as the play page does (``actions="socket"``: the
answer is the ``game`` message of the next seq, or an ``error`` naming the ``action_id``). A ``409
stale_seq`` answer (or socket error) carries the current ``seq`` and view: the seat decides again from it
and retries. The action is chosen among the
view's ``legal_actions`` by the games' CPU policy at level ``normal`` (a client-side helper that sees only
the view; Chinchón seats draw from the stock), so Chinchón hands get closed and games end.

Only public endpoints are used: ``/api/auth/guest``, ``/api/rooms…``, ``/api/games/{id}…``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from httpx_retries import Retry, RetryTransport

from games.bots import chinchirorin as chinchirorin_policy
from games.bots import chinchon as chinchon_policy

PING_SECONDS = 20
REFETCH_ON = ("not_your_turn", "game_over", "illegal_action")  # refusals after which a seat refetches its view
ACTION_PATHS = ("rest", "socket")  # how a seat sends its actions: POST /api/games/{id}/actions, or its socket
# A seat waiting for others with no game or room message for this long refetches its view over HTTP (a
# message lost on the way). Longer than a player's thinking time: at 3 s, seats whose turn was not near
# polled the view every 3 s of a paced game (bench/README.md "Server": most of the web CPU of a paced
# phase that was not the actions' own).
RESYNC_SECONDS = 10.0


# A 503 changed nothing (client guide: `unavailable`; `server_busy` asks for another try too): the request
# goes again after its Retry-After (at most UNAVAILABLE_WAIT_MAX seconds; without one, a growing jittered
# backoff), up to UNAVAILABLE_RETRIES times, POSTs included (an action names its seq and action_id).
UNAVAILABLE_RETRIES = 3
UNAVAILABLE_WAIT_MAX = 10.0


def api_client(base_url: str, transport: httpx.AsyncBaseTransport | None = None, **kwargs) -> httpx.AsyncClient:
    """An HTTP client of the API at ``base_url`` that sends a request answered 503 again, as
    :data:`UNAVAILABLE_RETRIES` says; other answers and errors are returned or raised as they come.
    ``transport``: what sends each try (default: :class:`httpx.AsyncHTTPTransport`, so the client's own
    ``verify``, ``limits``, ``http2`` and proxy settings do not apply); ``kwargs`` go to
    :class:`httpx.AsyncClient` (``timeout``, ``headers``...)."""
    retry = Retry(total=UNAVAILABLE_RETRIES, status_forcelist=[503], allowed_methods=["GET", "POST", "PATCH", "PUT", "DELETE"],
                  retry_on_exceptions=(), respect_retry_after_header=True, max_backoff_wait=UNAVAILABLE_WAIT_MAX,
                  backoff_factor=1.0, backoff_jitter=0.5)
    return httpx.AsyncClient(base_url=base_url, transport=RetryTransport(transport or httpx.AsyncHTTPTransport(), retry=retry),
                             **kwargs)


class DemoError(RuntimeError):
    """The server answered something a well-behaved client cannot go on from."""


@dataclass
class SeatClient:
    """One seat's client: ``token``, ``seat``; counts what it sent and received."""

    server: str
    token: str
    seat: int = -1
    messages: int = 0
    actions: int = 0
    retries: int = 0
    view: dict | None = None
    log: list[str] = field(default_factory=list)
    ws: Any = None  # the seat's socket, once open
    pending: str | None = None  # the action_id of the action sent on the socket and not yet settled
    error: dict | None = None  # the socket's ``error`` message for ``pending``

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.token}"}

    @property
    def ws_base(self) -> str:
        return "ws" + self.server[len("http"):] if self.server.startswith("http") else self.server

    def take(self, view: dict | None) -> None:
        """Keep ``view`` if it is newer than the one held: a later game of the room (a rematch: a higher
        game id), or the same game at a higher or equal seq. A late message of an earlier game is ignored."""
        if not view:
            return
        held = self.view
        if held is None or view["id"] > held["id"] or (view["id"] == held["id"] and view["seq"] >= held["seq"]):
            self.view = view


def _choose(view: dict, rng: random.Random, memory: dict) -> dict:
    """One of ``view["legal_actions"]``: the games' ``normal`` policy (uniform if it cannot decide), except
    that a Chinchón seat always draws from the stock when it may (two seats taking each other's discard
    could otherwise swap the same cards for ever)."""
    legal = view["legal_actions"]
    try:
        if view["game"] == "chinchon":
            stock = [a for a in legal if a["type"] == "draw" and a.get("source") == "stock"]
            if stock:
                return dict(stock[0])
            return chinchon_policy.choose(view, legal, "normal", rng, memory=memory)
        return chinchirorin_policy.choose(view, legal, "normal", rng)
    except Exception:  # noqa: BLE001 - a client falls back to any legal action
        return dict(rng.choice(legal))


async def _check(res: httpx.Response, *ok: int) -> dict:
    if res.status_code not in ok:
        raise DemoError(f"{res.request.method} {res.request.url.path}: {res.status_code} {res.text[:300]}")
    return res.json() if res.content else {}


async def new_guest(http: httpx.AsyncClient, name: str) -> str:
    """A guest's token (``POST /api/auth/guest``)."""
    body = await _check(await http.post("/api/auth/guest", json={"display_name": name}), 201)
    return body["token"]


async def _socket_reader(client: SeatClient, ws, changed: asyncio.Event, ready: asyncio.Event) -> None:
    """Keep the latest ``game`` view of the socket ``ws`` in ``client`` (``changed`` set on each ``game`` or
    ``room`` message); ``ready`` is set at the first ``room`` message (the socket's snapshot)."""
    async for raw in ws:
        client.messages += 1
        msg = json.loads(raw)
        if msg.get("type") == "game":
            client.take(msg.get("view"))
            changed.set()
        elif msg.get("type") == "error" and isinstance(msg.get("action_id"), str):
            client.actions -= 1  # counted when sent on the socket: refused
            client.retries += 1
            if msg["action_id"] == client.pending:
                client.error = msg
                changed.set()
        elif msg.get("type") == "room":
            ready.set()
            changed.set()


async def _wake_on(stop: asyncio.Event, events: list[asyncio.Event]) -> None:
    """Once ``stop`` is set, wake every seat waiting for a message, so that it sees ``stop`` at once."""
    await stop.wait()
    for event in events:
        event.set()


async def _pinger(ws) -> None:
    """A ``ping`` every ``PING_SECONDS`` until the socket closes (then it ends quietly)."""
    with contextlib.suppress(websockets.ConnectionClosed):
        while True:
            await asyncio.sleep(PING_SECONDS)
            await ws.send(json.dumps({"type": "ping"}))


async def send_action(client: SeatClient, game_id: int, message: dict) -> None:
    """Send ``message`` (``{type: "action", action, action_id}``, for the game ``game_id``) on the seat's
    socket (the benchmark wraps this to time it)."""
    await client.ws.send(json.dumps(message))


async def _refetch(client: SeatClient, http: httpx.AsyncClient, game_id: int) -> None:
    client.take(await _check(await http.get(f"/api/games/{game_id}", headers=client.headers), 200))


async def _act_on_socket(client: SeatClient, http: httpx.AsyncClient, game_id: int, action: dict,
                         changed: asyncio.Event) -> bool:
    """Send ``action`` on the seat's socket with the held view's ``seq`` and a new ``action_id``, and wait
    until it is settled: the held view moved past that seq (an action applies only at the seq it names,
    so it was applied, or another seat's came first and it will be refused), or the socket's ``error`` for
    its ``action_id`` came. Returns ``True`` when the seat decides anew (it may think first), ``False``
    for a retry at once: ``stale_seq`` (the error's view is taken), ``not_your_turn`` / ``game_over`` /
    ``illegal_action`` (the view is fetched). No message for ``RESYNC_SECONDS``: the view is fetched.
    Raises :class:`DemoError` for any other error."""
    seq = client.view["seq"]
    client.actions += 1  # undone by the reader if the socket refuses it
    client.pending, client.error = f"{game_id}:{client.seat}:{seq}:{client.actions + client.retries}", None
    await send_action(client, game_id, {"type": "action", "action": {**action, "seq": seq}, "action_id": client.pending})
    try:
        while True:
            if client.error is not None:
                code = client.error.get("code")
                if code == "stale_seq":
                    client.take(client.error.get("view"))
                elif code in REFETCH_ON:
                    await _refetch(client, http, game_id)
                else:
                    raise DemoError(f"seat {client.seat}: {client.error}")
                return False
            view = client.view
            if view["id"] != game_id or view["seq"] > seq:
                return True
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), RESYNC_SECONDS)
            except TimeoutError:
                await _refetch(client, http, game_id)
    finally:
        client.pending = None


async def _play_seat(client: SeatClient, http: httpx.AsyncClient, game_id: int, rng: random.Random,
                     changed: asyncio.Event, think: tuple[float, float] | None = None,
                     stop: asyncio.Event | None = None, actions: str = "rest") -> None:
    """Act whenever the held view awaits this seat, until the game is over (or ``stop`` is set).
    ``think``: ``(low, high)`` seconds, drawn uniformly, that the seat waits before each decision it has
    not tried yet (a retry after ``409 stale_seq`` goes at once). ``actions``: ``"rest"`` (POST) or
    ``"socket"`` (:func:`_act_on_socket`)."""
    memory: dict[str, Any] = {}
    fresh = True  # the next decision is a new one (not a retry): think first
    while True:
        view = client.view
        if view is not None and view["id"] == game_id and view["status"] != "playing":
            return
        if stop is not None and stop.is_set():
            return
        if view is None or view["id"] != game_id or not view["legal_actions"]:
            fresh = True
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), RESYNC_SECONDS)
            except TimeoutError:  # the layer may drop messages: the database is the truth
                await _refetch(client, http, game_id)
            continue
        if think is not None and fresh:
            await asyncio.sleep(rng.uniform(*think))
            fresh = False
            continue  # decide from the view held after thinking
        action = _choose(view, rng, memory)
        if actions == "socket":
            fresh = await _act_on_socket(client, http, game_id, action, changed)
            continue
        res = await http.post(f"/api/games/{game_id}/actions", headers=client.headers,
                              json={**action, "seq": view["seq"]})
        body = res.json()
        if res.status_code == 200:
            client.actions += 1
            client.take(body)
            fresh = True
        elif res.status_code == 409 and body.get("code") == "stale_seq":
            client.retries += 1
            client.take(body.get("view"))  # decide again from the current view (its seq), at once
        elif body.get("code") in REFETCH_ON:
            client.retries += 1
            fresh = True
            await _refetch(client, http, game_id)
        else:
            raise DemoError(f"seat {client.seat}: {res.status_code} {body}")


async def play_game(server: str, *, game: str, seats: int = 2, rules: dict | None = None,
                    tokens: list[str] | None = None, seed: int = 0, timeout: float = 600.0,
                    servers: list[str] | None = None, think: tuple[float, float] | None = None,
                    before_start: Callable[[], Awaitable[Any]] | None = None, stop: asyncio.Event | None = None,
                    rematch: bool = False, actions: str = "rest",
                    before_close: Callable[[list[SeatClient], int], Awaitable[Any]] | None = None) -> dict:
    """Play one whole game of ``game`` with ``seats`` client seats (or, with ``rematch``, games back to
    back in one room) and return a summary.

    ``tokens``: the players' tokens in seat order (default: new guests); the first creates the room and
    hosts. ``servers``: base URLs of several servers of one service; seat ``i`` plays (its socket and its
    actions) through ``servers[i % len(servers)]`` (default: all through ``server``). ``think``: seconds ``(low, high)``
    each seat waits before a decision (default: none). ``before_start``: awaited once every seat's socket
    is open, before the host starts the game (a benchmark starts many games together). ``stop``: once it
    is set the seats stop acting and the game is left as it is (``result`` None while it is playing).
    ``rematch``: each time a game ends and ``stop`` is not set, the host asks for a rematch
    (``POST /api/rooms/{code}/rematch``) and the same seats, sockets still open, play the new game; so
    the room always has a game in play until ``stop`` (``timeout`` then bounds each game).
    ``actions``: ``"rest"`` (each action a ``POST``) or ``"socket"`` (sent on the seat's socket, as the play
    page does). ``before_close``: awaited with the seats' clients and the last game's id once the seats stopped,
    before their sockets close. Returns, for the last game, ``{"game_id", "room", "game", "result",
    "seq", "actions", "retries", "messages", "players": [{seat, display_name}], "games": [{game_id,
    seq, status}, ...]}`` (``seq`` = the game's applied actions; ``actions``, ``retries`` and ``messages``
    (socket messages received by all seats) count every game; ``games``: each game played, in order).
    Raises :class:`DemoError` or ``TimeoutError``; ``ValueError`` for an unknown ``actions``.
    """
    if actions not in ACTION_PATHS:
        raise ValueError(f"actions must be one of {ACTION_PATHS}")
    server = server.rstrip("/")
    servers = [s.rstrip("/") for s in servers or [server]]
    async with contextlib.AsyncExitStack() as https, api_client(server, timeout=30) as http:
        seat_http = {s: await https.enter_async_context(api_client(s, timeout=30)) for s in servers}
        if tokens is None:
            tokens = [await new_guest(http, f"Demo {i + 1}") for i in range(seats)]
        clients = [SeatClient(server=servers[i % len(servers)], token=t) for i, t in enumerate(tokens)]
        host = clients[0]
        room = await _check(await http.post("/api/rooms", headers=host.headers,
                                            json={"game": game, "seats": seats, "rules": rules or {}}), 201)
        code = room["code"]
        for c in clients[1:]:
            await _check(await http.post(f"/api/rooms/{code}/join", headers=c.headers), 200)
        async with contextlib.AsyncExitStack() as stack:
            events, tasks, ready = [], [], []
            for c in clients:
                ws = await stack.enter_async_context(websockets.connect(f"{c.ws_base}/ws/rooms/{code}/?token={c.token}",
                                                                        open_timeout=10))
                c.ws = ws
                changed, snapshot = asyncio.Event(), asyncio.Event()
                tasks.append(asyncio.create_task(_socket_reader(c, ws, changed, snapshot)))
                tasks.append(asyncio.create_task(_pinger(ws)))
                events.append(changed)
                ready.append(snapshot)
            # A socket is live once its snapshot came (API.md: ``room`` first): the server has then put it
            # in the room's group; a game started before that would reach it only as a later snapshot,
            # without the first seqs' events.
            try:
                await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), 30)
            except TimeoutError:
                for t in tasks:  # a reader that ended (the server refused the socket) says why
                    if t.done() and not t.cancelled() and t.exception() is not None:
                        raise t.exception() from None
                raise
            if stop is not None:
                tasks.append(asyncio.create_task(_wake_on(stop, events)))
            if before_start is not None:
                await before_start()
            started = await _check(await http.post(f"/api/rooms/{code}/start", headers=host.headers), 201)
            played: list[int] = []
            try:
                while True:
                    game_id = started["game_id"]
                    players = []
                    for i, c in enumerate(clients):
                        c.seat = i  # the host sits in seat 0 and each joiner takes the lowest free seat
                        rng = random.Random(f"{seed}:{i}" if not played else f"{seed}:{i}:{len(played)}")
                        players.append(asyncio.create_task(_play_seat(c, seat_http[c.server], game_id, rng, events[i],
                                                                      think=think, stop=stop, actions=actions)))
                    tasks.extend(players)
                    await asyncio.wait_for(asyncio.gather(*players), timeout)
                    played.append(game_id)
                    if not rematch or stop is None or stop.is_set():
                        break
                    started = await _check(await http.post(f"/api/rooms/{code}/rematch", headers=host.headers), 201)
                if before_close is not None:
                    await before_close(clients, game_id)
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finals = [await _check(await http.get(f"/api/games/{g}", headers=host.headers), 200) for g in played]
    final = finals[-1]
    return {
        "game_id": game_id, "room": code, "game": game, "result": final["result"], "seq": final["seq"],
        "actions": sum(c.actions for c in clients), "retries": sum(c.retries for c in clients),
        "messages": sum(c.messages for c in clients),
        "players": [{"seat": p["seat"], "display_name": p["display_name"]} for p in final["players"]],
        "games": [{"game_id": f["id"], "seq": f["seq"], "status": f["status"]} for f in finals],
    }


def standing_text(summary: dict) -> str:
    """A printable final standing: ``1. Demo 1 (seat 0) 1130 points``."""
    names = {p["seat"]: p["display_name"] for p in summary["players"]}
    result = summary["result"] or {}
    lines = [f"{summary['game']} game {summary['game_id']} in room {summary['room']}: {result.get('reason')}"]
    for row in result.get("standing", []):
        value = row.get("points", row.get("score"))
        unit = "points" if "points" in row else "score"
        lines.append(f"  {row['place']}. {names.get(row['seat'])} (seat {row['seat']}) {unit} {value}")
    lines.append(f"  actions applied: {summary['seq']} (posted by the clients: {summary['actions']}, "
                 f"stale/refused and retried: {summary['retries']}); socket messages: {summary['messages']}")
    return "\n".join(lines)
