"""Per-seat facts read from a finished game's event log, for statistics, XP and achievements (pure: no
Django).

Input: the events of every logged transition in ``seq`` order (``GameAction.events``, audiences kept),
flattened into one list. The event shapes are the engines' (``games/engine/chinchirorin.py`` and
``games/engine/chinchon.py`` module docstrings):

- Chinchirorin: ``hand {seat, hand, value}`` (``pinzoro``/``arashi``/``shigoro``/``point``/``hifumi``/
  ``no_point``/``out_of_bowl``), ``hand_settled {hand_number, points_after}``, ``resigned {seat}``.
- Chinchón: ``deal {hand_number, seats}``, ``discard {seat, card}``, ``score {hand_number, closer, kind,
  deltas, scores}`` (kind ``normal``/``minus_ten``/``chinchon``/``seven_run_wild``), ``out {seat}``,
  ``resign {seat}``.

Decisions: a *hand finished* is a chinchirorin hand settled, or a chinchón hand scored, while the seat
was in it (not resigned; for chinchón, dealt in). *Menos diez made* counts closes of kind ``minus_ten``
and ``seven_run_wild`` (all seven melded); *chinchón made* counts kind ``chinchon``. *Eliminated*: a
chinchón seat that went ``out``, a chinchirorin seat that reached 0 points. *Was last*: after some hand
the seat stood strictly last among the seats in it (fewest points / highest score) — with a win, a
comeback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class SeatFacts:
    """What one seat did in one game (counts are per game)."""

    hands_finished: int = 0
    cards_discarded: int = 0
    pinzoro: int = 0
    arashi: int = 0
    shigoro: int = 0
    hifumi: int = 0
    minus_ten: int = 0
    chinchon: int = 0
    resigned: bool = False
    eliminated: bool = False
    was_last: bool = False


def _seat(ev: dict, key: str = "seat") -> int | None:
    value = ev.get(key)
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _int_map(value: Any) -> dict[int, int]:
    out: dict[int, int] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            try:
                out[int(k)] = int(v)
            except (TypeError, ValueError):
                continue
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, int | float) and not isinstance(v, bool):
                out[i] = int(v)
    return out


def _strictly(values: dict[int, int], pick) -> int | None:
    """The seat with the strictly lowest (``pick=min``) or highest (``max``) value, None on a tie or with
    fewer than 2 seats."""
    if len(values) < 2:
        return None
    best = pick(values.values())
    seats = [s for s, v in values.items() if v == best]
    return seats[0] if len(seats) == 1 else None


def seat_facts(game_name: str, seats: int, events: list[dict], standing: list[dict] | None = None) -> dict[int, SeatFacts]:
    """``{seat: SeatFacts}`` for seats ``0..seats-1`` from the game's ``events`` (see the module
    docstring). ``standing``: the result's standing (its ``points`` of 0 mark an eliminated chinchirorin
    seat). Unknown or malformed events are ignored, never raised."""
    facts = {s: SeatFacts() for s in range(seats)}
    resigned: set[int] = set()
    dealt: set[int] = set(range(seats))
    for ev in events:
        if not isinstance(ev, dict):
            continue
        kind = ev.get("type")
        seat = _seat(ev)
        f = facts.get(seat) if seat is not None else None
        if kind in ("resigned", "resign") and f is not None:
            f.resigned = True
            resigned.add(seat)
        elif game_name == "chinchirorin":
            if kind == "hand" and f is not None:
                name = ev.get("hand")
                if name in ("pinzoro", "arashi", "shigoro", "hifumi"):
                    setattr(f, name, getattr(f, name) + 1)
            elif kind == "hand_settled":
                after = {s: v for s, v in _int_map(ev.get("points_after")).items() if s in facts and s not in resigned}
                for s in after:
                    facts[s].hands_finished += 1
                    if after[s] <= 0:
                        facts[s].eliminated = True
                last = _strictly(after, min)
                if last is not None:
                    facts[last].was_last = True
        elif game_name == "chinchon":
            if kind == "deal":
                dealt = {s for s in (ev.get("seats") or []) if isinstance(s, int) and s in facts}
            elif kind == "discard" and f is not None:
                f.cards_discarded += 1
            elif kind == "score":
                closer = facts.get(_seat(ev, "closer"))
                close_kind = ev.get("kind")
                if closer is not None and close_kind in ("minus_ten", "seven_run_wild"):
                    closer.minus_ten += 1
                elif closer is not None and close_kind == "chinchon":
                    closer.chinchon += 1
                in_hand = [s for s in dealt if s not in resigned]
                for s in in_hand:
                    facts[s].hands_finished += 1
                scores = {s: v for s, v in _int_map(ev.get("scores")).items() if s in in_hand}
                last = _strictly(scores, max)
                if last is not None:
                    facts[last].was_last = True
            elif kind == "out" and f is not None:
                f.eliminated = True
    if game_name == "chinchirorin":
        for row in standing or []:
            s = _seat(row)
            if s in facts and row.get("points") == 0:
                facts[s].eliminated = True
    return facts
