"""Shapes shared by both engines.

- An **action** is a plain dict, exactly the API body without ``seq``/``action_id``: ``{"type": "bet",
  "amount": 20}``.
- An **event** is a plain JSON dict ``{"type": str, "audience": "all" | [seat, ...], ...data}``; every
  event names its audience and :func:`events_for` is the only filter of events.
- A **state** is a plain JSON-able dict owned by its engine module (``to_dict``/``from_dict`` round-trip
  it with a ``schema`` version). It always carries ``"window"``: an int that grows by 1 whenever a
  decision window opens.
- An **outcome** is ``None`` while playing, else ``{"standing": [{"seat", "place", "points"|"score"}],
  "reason": str}``; place 1 first, drawn seats share a place.
"""

from typing import Any

from games.engine.errors import InvalidAction

Action = dict[str, Any]
Event = dict[str, Any]
State = dict[str, Any]

ALL = "all"


def event(type_: str, audience: str | list[int] = ALL, **data: Any) -> Event:
    """Build an event dict; ``audience`` is ``"all"`` or the list of seats that may see it."""
    if audience != ALL:
        audience = sorted(int(s) for s in audience)
    return {"type": type_, "audience": audience, **data}


def events_for(events: list[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see (``None``: a spectator, who sees only public events).

    The ``audience`` key is removed from what is returned.
    """
    out = []
    for ev in events:
        aud = ev.get("audience", ALL)
        if aud == ALL or (seat is not None and seat in aud):
            out.append({k: v for k, v in ev.items() if k != "audience"})
    return out


def copy_json(obj: Any) -> Any:
    """A deep copy of a JSON structure (dicts, lists, scalars): what ``to_dict``/``from_dict``/``outcome``
    hand out, so that no caller shares a container with a state."""
    if isinstance(obj, dict):
        return {k: copy_json(v) if isinstance(v, (dict, list)) else v for k, v in obj.items()}
    if isinstance(obj, list):
        return [copy_json(v) if isinstance(v, (dict, list)) else v for v in obj]
    return obj


def standing_places(ordered: list[tuple[int, Any]]) -> list[tuple[int, int]]:
    """Give places to seats already ordered best first, sharing a place where the keys are equal.

    ``ordered``: ``[(seat, key), ...]`` best first; equal ``key`` values (adjacent) draw.
    Returns ``[(seat, place), ...]`` with competition ranking (1, 1, 3, ...).
    """
    out: list[tuple[int, int]] = []
    prev_key: Any = object()
    place = 0
    for i, (seat, key) in enumerate(ordered):
        if i == 0 or key != prev_key:
            place = i + 1
        out.append((seat, place))
        prev_key = key
    return out


def check_fields(action: Any, fields_by_type: dict[str, dict[str, type]]) -> str:
    """Check an action body against ``{type: {field: int | bool | str}}``: a dict with a known ``type``
    and exactly that type's fields, each of its type (a bool is never an int). Returns the type.

    Raises ``InvalidAction`` naming the unknown type or the missing, unexpected or wrong-typed field.
    """
    if not isinstance(action, dict):
        raise InvalidAction("an action must be an object")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in fields_by_type:
        raise InvalidAction(f"unknown action type {kind!r}")
    fields = fields_by_type[kind]
    for name in action:
        if name != "type" and name not in fields:
            raise InvalidAction(f"unexpected field {name!r} for {kind}")
    for name, typ in fields.items():
        if name not in action:
            raise InvalidAction(f"missing field {name!r} for {kind}")
        value = action[name]
        if typ is bool:
            if not isinstance(value, bool):
                raise InvalidAction(f"{name} must be true or false")
        elif isinstance(value, bool) or not isinstance(value, typ):
            raise InvalidAction(f"{name} must be {'an integer' if typ is int else 'a string'}")
    return kind
