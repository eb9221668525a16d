"""The read side of games (no locks, no writes): lookups, the log, and a seat's view.

:func:`game_view` builds what a seat (or a spectator) may see from the engine's ``view_for``;
:func:`log_entries` filters events by audience. Both are pure reads over rows and a decoded state the
caller may already hold (the write path passes what it loaded under its lock, so a broadcast costs no
query). Nothing here imports :mod:`games.services` or :mod:`games.events`: an action's trip runs
services -> events -> selectors, one way.
"""

from __future__ import annotations

from django.db.models import Count, QuerySet

from config.textpolicy import names_told_apart
from config.timefmt import iso_ms
from games.engine import rng as rngmod
from games.engine.cards import SUIT_NAMES
from games.engine.registry import get_engine
from games.engine.types import events_for
from games.models import Game, GameAction, GamePlayer, SweepHeartbeat

LOG_PAGE = 100


def log_entries(rows: list[tuple[int, str | None, list[dict]]], seat: int | None) -> list[dict]:
    """Log/broadcast entries ``{seq, index, by?, type, ...}`` of ``(seq, by, events)`` rows that ``seat``
    may see (``events_for`` is the only filter). ``index`` is the event's place in its seq; ``by``
    (player/timeout/away/cpu) is on every event of a seat's action, absent on system rows."""
    out = []
    for seq, by, events in rows:
        for index, ev in enumerate(events):
            seen = events_for([ev], seat)
            if not seen:
                continue
            entry = {"seq": seq, "index": index}
            if by and by != "system":
                entry["by"] = by
            entry.update(seen[0])
            out.append(entry)
    return out


def _display_name(gp: GamePlayer) -> str:
    """A seat's shown name: the user's display name (else username), ``CPU <n>`` for a CPU seat."""
    if gp.cpu or gp.user is None:
        return f"CPU {gp.seat + 1}"
    return gp.user.display_name or gp.user.username


def game_fairness(game: Game) -> dict:
    """``{commitment, seed, scheme}``: sha256(seed) hex from the start; the seed (64 hex) only once the
    game is finished or aborted, else null."""
    seed = bytes(game.seed)
    return {
        "commitment": rngmod.commitment(seed),
        "seed": seed.hex() if game.status != Game.PLAYING else None,
        "scheme": rngmod.SCHEME,
    }


def game_view(*, game: Game, user=None, seat: int | None = None, players: list[GamePlayer] | None = None,
              state: dict | None = None) -> dict:
    """The API.md view of ``game`` for ``seat`` (or ``user``'s seat; neither: a spectator's view, with no
    hidden information and no actions).

    ``{id, game, seq, status, phase, you, turn, awaiting, deadline, players: [{seat, display_name (with
    `` #<seat + 1>`` when it looks like another player's: ``config.textpolicy.names_told_apart``),
    points|score, connected, cpu, cpu_playing, away, resigned, out, reentries}], table, legal_actions,
    other_actions, fairness {commitment, seed, scheme}, result}``. Built from the engine's ``view_for``,
    never from the raw state. Reads only (no lock). ``players``/``state``: already loaded rows / decoded
    state, to save queries.
    """
    engine = get_engine(game.game)
    if players is None:
        players = list(GamePlayer.objects.filter(game=game).select_related("user"))
    if seat is None and user is not None:
        seat = next((p.seat for p in players if p.user_id == user.pk and not p.cpu), None)
    if state is None:
        state = engine.from_dict(game.state)
    ev = engine.view_for(state, seat)
    playing = game.status == Game.PLAYING
    by_seat = {p.seat: p for p in players}
    out_players = []
    for vp in ev.get("players", []):
        gp = by_seat.get(vp["seat"])
        row = {"seat": vp["seat"], "display_name": _display_name(gp) if gp else f"Seat {vp['seat'] + 1}"}
        row.update({k: v for k, v in vp.items() if k != "seat"})
        row.update({
            "connected": bool(gp and gp.connected),
            "cpu": bool(gp and gp.cpu),
            "cpu_playing": bool(gp and (gp.cpu or gp.played_for)),
            "away": bool(gp and gp.played_for),
        })
        row.setdefault("resigned", False)
        row.setdefault("out", False)
        row.setdefault("reentries", 0)
        out_players.append(row)
    humans = {p.seat for p in players if not p.cpu and p.user is not None}
    shown = names_told_apart({row["seat"]: row["display_name"] for row in out_players if row["seat"] in humans})
    for row in out_players:
        row["display_name"] = shown.get(row["seat"], row["display_name"])
    if game.status == Game.ABORTED:  # the stored result may add the refunded pot
        result = game.result or {"standing": [], "reason": "aborted"}
    else:
        result = game.result if game.result is not None else ev.get("result")
    awaiting = list(ev.get("awaiting", [])) if playing else []
    return {
        "id": game.pk,
        "game": game.game,
        "seq": game.seq,
        "status": game.status,
        "phase": ev.get("phase"),
        "you": seat,
        "turn": (ev.get("turn") if playing else None),
        "awaiting": awaiting,
        "deadline": iso_ms(game.deadline) if playing else None,
        "players": out_players,
        "table": ev.get("table", {}),
        "legal_actions": engine.legal_actions(state, seat) if playing and seat is not None else [],
        "other_actions": engine.other_actions(state, seat) if playing and seat is not None else [],
        "fairness": game_fairness(game),
        "result": result,
    }


def game_get(*, game_id) -> Game | None:
    """The game with this id, or ``None`` (also for an id that is not an integer)."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
        return None
    return Game.objects.filter(pk=game_id).first()


def game_seat_of(*, game: Game, user) -> int | None:
    """``user``'s seat in ``game``, or ``None`` if not seated (or kicked from it by a moderator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return (GamePlayer.objects.filter(game=game, user=user, cpu=False, kicked=False)
            .values_list("seat", flat=True).first())


def game_log(*, game: Game, user=None, seat: int | None = None, after: int = -1, limit: int = LOG_PAGE) -> dict:
    """A page of the events with ``seq > after`` that ``user``'s seat (or ``seat``) may see.

    ``{"events": [{seq, index, by?, type, ...}], "next_after": int, "more": bool}``: whole seqs only (a
    page never splits a seq; it ends after the seq that reaches ``limit`` events); ``next_after`` is the last
    seq read (pass it as ``after`` for the next page; ``after`` itself when nothing was read); ``more``:
    seqs remain after it.
    """
    if seat is None and user is not None:
        seat = game_seat_of(game=game, user=user)
    rows = []
    count = 0
    last = after
    more = False
    qs = GameAction.objects.filter(game=game, seq__gt=after).order_by("seq").values_list("seq", "by", "events")
    for seq, by, events in qs.iterator(chunk_size=200):
        if count >= limit:
            more = True
            break
        entries = log_entries([(seq, by, events)], seat)
        rows.extend(entries)
        count += len(entries)
        last = seq
    return {"events": rows, "next_after": last, "more": more}


def game_events_between(*, game_id: int, seat: int | None, after: int, upto: int) -> list[dict]:
    """The log entries (:func:`log_entries`) of ``seat`` for ``after < seq <= upto``, in seq order; one query."""
    rows = (GameAction.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto).order_by("seq")
            .values_list("seq", "by", "events"))
    return log_entries(list(rows), seat)


def games_for_user(*, user, status: str | None = None) -> QuerySet[Game]:
    """The games ``user`` holds a seat in, newest first; optionally only those with ``status``."""
    qs = Game.objects.filter(players__user=user, players__cpu=False).distinct().order_by("-id")
    if status:
        qs = qs.filter(status=status)
    return qs


def game_for_group(*, group: str) -> Game | None:
    """The newest game of a live-delivery group (a room's current or last game)."""
    return Game.objects.filter(group=group).order_by("-id").first()


# ------------------------------------------------------------------------------------------ timeline
def _card(code) -> str:
    """``"7O"`` -> ``"7 of Oros"``; ``"JK"`` -> ``"joker"``."""
    if code == "JK":
        return "joker"
    if not isinstance(code, str) or len(code) < 2:
        return str(code)
    return f"{code[:-1]} of {SUIT_NAMES.get(code[-1], code[-1])}"


def _dice(dice) -> str:
    return "out of the bowl" if dice is None else "-".join(str(d) for d in dice)


def _describe(action: dict, events: list[dict]) -> str:
    """One log row in words, from its action and the events shown (public ones while the game is on)."""
    kind = action.get("type")
    by_type: dict[str, list[dict]] = {}
    for ev in events:
        by_type.setdefault(ev.get("type", ""), []).append(ev)
    if kind == "start":
        return "game started"
    if kind == "abort":
        return f"game aborted ({action.get('reason', '')})"
    if kind == "resign":
        return "resigns"
    if kind == "bet":
        return f"bets {action.get('amount')}"
    if kind == "step_down":
        return "steps down as dealer" if action.get("down") else "keeps the bank"
    if kind == "roll":
        if by_type.get("first_dealer_roll"):
            return f"rolls {by_type['first_dealer_roll'][0].get('die')} for first dealer"
        parts = [_dice(ev.get("dice")) for ev in by_type.get("throw", [])]
        text = "rolls " + ", ".join(parts) if parts else "rolls"
        hands = by_type.get("hand", [])
        if hands:
            text += f" → {hands[-1].get('hand')}"
        return text
    if kind == "draw":
        if action.get("source") == "discard":
            card = next((ev.get("card") for ev in by_type.get("draw", []) if ev.get("card")), None)
            return f"takes {_card(card)} from the discard pile" if card else "takes from the discard pile"
        drawn = by_type.get("drawn", [])
        return f"draws {_card(drawn[0].get('card'))} from the stock" if drawn else "draws from the stock"
    if kind == "discard":
        return f"discards {_card(action.get('card'))}"
    if kind == "close":
        return f"closes, {_card(action.get('card'))} face down"
    if kind == "reenter":
        return "re-enters" if action.get("accept") else "declines to re-enter"
    return str(action)


def game_timeline(game: Game) -> list[dict]:
    """The game's log as a readable timeline for moderators, oldest first: ``[{seq, at, by, seat, who,
    text, events}]`` where ``by`` is player / timeout / away / cpu / system, ``who`` the seat's player
    ("CPU" for a CPU seat), ``text`` the action in words and ``events`` the types of what followed.

    While the game is playing only public events are read (as a spectator sees them, ``events_for(...,
    None)``): no hidden card, not the card a closer lays face down; once it is over everything is shown.
    """
    over = game.status != Game.PLAYING
    names = {p.seat: ("CPU" if p.cpu else str(p.user) if p.user else f"seat {p.seat}")
             for p in GamePlayer.objects.filter(game=game).select_related("user")}
    out = []
    for row in GameAction.objects.filter(game=game).order_by("seq"):
        events = [{k: v for k, v in ev.items() if k != "audience"} for ev in row.events] if over \
            else events_for(row.events, None)
        # The closer's face-down card is never shown while the game is on.
        hidden_close = not over and row.action.get("type") == "close"
        text = "closes" if hidden_close else _describe(row.action, events)
        out.append({"seq": row.seq, "at": row.created_at, "by": row.by, "seat": row.seat,
                    "who": names.get(row.seat, "—") if row.seat is not None else "—", "text": text,
                    "events": ", ".join(ev.get("type", "") for ev in events)})
    return out


def sweep_heartbeat_at():
    """When the timers' sweeper last ran (``SweepHeartbeat`` row 1), or ``None`` before its first run."""
    return SweepHeartbeat.objects.filter(pk=1).values_list("at", flat=True).first()


def games_in_progress() -> dict[str, int]:
    """``{game kind: games playing}``, every kind present (0 for none); one query."""
    counts = dict(Game.objects.filter(status=Game.PLAYING).values_list("game").annotate(n=Count("id"))
                  .values_list("game", "n"))
    return {kind: counts.get(kind, 0) for kind, _name in Game.GAME_CHOICES}
