"""The interface every game module of the engine offers (DESIGN.md "The engine").

A game module (``games.engine.chinchirorin``, ``games.engine.chinchon``) defines these module-level
names; :class:`GameEngine` documents them and is what the registry hands out.

- ``NAME: str`` — ``"chinchirorin"`` / ``"chinchon"``.
- ``SEAT_RANGE(settings: dict) -> tuple[int, int]`` — the seat counts the (validated) rules allow.
- ``SETTINGS: tuple[Setting, ...]`` — every rules setting as data (:mod:`games.engine.settings`: type,
  allowed values or range, default, value per preset, English label and description); the one source
  ``validate_rules`` checks values against and the catalogue API lists.
- ``PRESET_TABLE: tuple[Preset, ...]`` — the game's presets (id, texts, seat range); ``()`` for none.
- ``validate_rules(settings: dict, seats: int | None = None) -> Rules`` — build the frozen rules
  dataclass from API settings (presets applied, defaults filled); raises ``InvalidRules(field, msg)``
  naming the setting (``"seats"`` for a seat count the rules do not allow).
- ``rules_to_dict(rules) -> dict`` — every setting resolved, API names.
- ``initial_state(rules, seats: int, rng) -> tuple[State, list[Event]]``.
- ``awaiting(state) -> list[int]`` — seats whose decision the game awaits now (sorted).
- ``legal_actions(state, seat) -> list[Action]`` — complete bodies answering what is awaited from seat.
- ``other_actions(state, seat) -> list[Action]`` — bodies the seat may send unawaited (a changed bet,
  ``resign``).
- ``apply(state, seat: int, action: Action, rng) -> tuple[State, list[Event]]`` — never mutates
  ``state``; raises ``InvalidAction`` (malformed), ``NotYourTurn`` (type in neither list),
  ``IllegalAction`` (listed type, value not allowed).
- ``check_action(action) -> None`` — the shape check alone (no state): raises ``InvalidAction`` for an
  unknown type or a missing, extra or wrong-typed field; the service runs it before taking the row lock.
- ``default_action(state, seat) -> Action`` — the deterministic default for a timed-out / played-for seat.
- ``outcome(state) -> dict | None``.
- ``view_for(state, seat | None) -> dict`` — ``{"phase", "awaiting", "turn", "players": [...],
  "table": {...}, "result"}``; the one place hidden things are removed.
- ``to_dict(state) -> dict`` / ``from_dict(data) -> State`` — JSON with a ``schema`` version.
- ``window(state) -> int`` — the decision-window counter.
"""

from types import ModuleType

GameEngine = ModuleType
