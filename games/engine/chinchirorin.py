"""Chinchirorin: the game as a pure state machine (rules file ``rules/chinchirorin.md``, "The flow of a
game"). Implements the module interface of :mod:`games.engine.base`.

Phases (``state["phase"]``): ``first_dealer`` → (``step_down``) → ``betting`` → ``rolling`` → ... →
``finished``. A hand is settled inside the transition of its last throw; ``table.last_hand`` shows it.

**State** (a plain JSON dict; seat numbers as keys are strings)::

    {"schema": 1, "game": "chinchirorin", "rules": {every setting}, "seats": N,
     "window": int,              # +1 whenever a decision window opens
     "phase": str, "awaiting": [seat, ...],
     "points": [int] * N, "resigned": [bool] * N, "resign_order": [seat, ...],
     "dealer": int | None, "first_dealer_rolls": {seat: [die, ...]},
     "contenders": [seat, ...], "round_rolls": {seat: die},   # first-dealer roll-off in progress
     "hand_number": int, "dealer_streak": int, "moves": int,   # moves: times the role has moved
     "bets": {seat: amount}, "last_bets": {seat: amount},      # last_bets: latest bet in any hand
     "roll_order": [seat, ...], "roller": int | None, "opening": str | None,
     "rolls": {seat: [[d1, d2, d3] | None, ...]}, "hands": {seat: {"hand", "value"}},
     "payments": [{"from", "to", "amount"}], "last_hand": {...} | None, "result": None | outcome}

**Events** (all public): ``first_dealer_roll {seat, die}``, ``first_dealer_tie {seats}``,
``dealer {seat, previous, reason: first_dealer|rotation|step_down|resigned}``, ``step_down_offered
{seat}``, ``step_down {seat, down}``, ``hand_started {hand_number, dealer, dealer_streak}``,
``bet {seat, amount}``, ``betting_closed {bets, roll_order}``, ``throw {seat, throw, dice}`` (dice
``None``: out of the bowl), ``hand {seat, hand, value}``, ``opening {dealer, outcome}``,
``payment {from, to, amount}``, ``hand_settled {hand_number, points_after}``, ``resigned {seat}``,
``game_over {standing, reason}``.
"""

from __future__ import annotations

from typing import Any

from games.engine.chinchirorin_rules import (  # noqa: F401  (re-exported: the engine's public rules API)
    COMMON,
    DEFAULT_RULES,
    HAND_NAMES,
    PLAYERS_ROLL,
    PRESET_TABLE,
    SEAT_RANGE,
    SETTINGS,
    STREAMER,
    Hand,
    Rules,
    compare,
    dealer_keeps,
    hand_of,
    multiplier,
    normalize_hand,
    opening,
    roll_order,
    rules_from_dict,
    rules_to_dict,
    settle_hand,
    settle_opening,
    settle_player,
    settle_streamer,
    strength,
    throw,
    turn_distribution,
    turn_hand,
    validate_rules,
)
from games.engine.errors import IllegalAction, InvalidAction, NotYourTurn
from games.engine.types import Action, Event, State, check_fields, copy_json, event, standing_places

NAME = "chinchirorin"
SCHEMA = 1
PHASES = ("first_dealer", "step_down", "betting", "rolling", "finished")

ROLL: Action = {"type": "roll"}
RESIGN: Action = {"type": "resign"}
STAY: Action = {"type": "step_down", "down": False}
STEP_DOWN: Action = {"type": "step_down", "down": True}

# action type -> {field: type}; bool is never accepted for int
_FIELDS: dict[str, dict[str, type]] = {
    "roll": {},
    "bet": {"amount": int},
    "step_down": {"down": bool},
    "resign": {},
}


# ----------------------------------------------------------------------------------------- copying
def _copy_rolls(rolls: dict) -> dict:
    return {k: [t and t[:] for t in v] for k, v in rolls.items()}  # a throw is a list of 3 dice or None


def _copy_hands(hands: dict) -> dict:
    return {k: v.copy() for k, v in hands.items()}


def _copy_last_hand(last: dict | None) -> dict | None:
    if last is None:
        return None
    return {
        "hand_number": last["hand_number"],
        "dealer": last["dealer"],
        "bets": dict(last["bets"]),
        "rolls": _copy_rolls(last["rolls"]),
        "hands": _copy_hands(last["hands"]),
        "payments": [p.copy() for p in last["payments"]],
        "points_after": last["points_after"].copy(),
    }


def _successor(state: State) -> State:
    """A copy of ``state`` safe for a transition to change: every container changed in place is copied;
    ``rules``, ``last_hand`` and ``result`` are only ever replaced whole, and a throw's dice, a hand and a
    payment never change once made, so those are shared."""
    s = dict(state)
    for key in ("awaiting", "points", "resigned", "resign_order", "contenders", "roll_order"):
        s[key] = state[key][:]
    for key in ("round_rolls", "bets", "last_bets"):
        s[key] = dict(state[key])
    if state["phase"] == "first_dealer":  # only changed in place while the first dealer is decided
        s["first_dealer_rolls"] = {k: v[:] for k, v in state["first_dealer_rolls"].items()}
    # a throw's dice, a hand and a payment are never changed once made: only their containers are copied
    s["rolls"] = {k: v[:] for k, v in state["rolls"].items()}
    s["hands"] = dict(state["hands"])
    s["payments"] = state["payments"][:]
    return s


_RULES_CACHE: dict[int, tuple[dict, Rules]] = {}


def _successor_for_throw(state: State) -> State:
    """:func:`_successor` for a throw in the ``rolling`` phase, which changes in place only the rolls,
    hands, points, payments (and replaces whole what else it changes)."""
    s = dict(state)
    s["rolls"] = {k: v[:] for k, v in state["rolls"].items()}
    s["hands"] = dict(state["hands"])
    s["points"] = state["points"][:]
    s["payments"] = state["payments"][:]
    return s


_THROW_ONLY = [ROLL]


def _rules(state: State) -> Rules:
    """The state's :class:`Rules`, cached by the identity of its (shared, never changed) rules dict."""
    data = state["rules"]
    hit = _RULES_CACHE.get(id(data))
    if hit is not None and hit[0] is data:
        return hit[1]
    if len(_RULES_CACHE) > 256:
        _RULES_CACHE.clear()
    rules = rules_from_dict(data)
    _RULES_CACHE[id(data)] = (data, rules)
    return rules


def _playing(state: State) -> list[int]:
    return [i for i, r in enumerate(state["resigned"]) if not r]


# ------------------------------------------------------------------------------------ construction
def initial_state(rules: Rules | dict, seats: int, rng) -> tuple[State, list[Event]]:
    """A new game (rules file, "Table", "First dealer").

    ``rules``: a :class:`Rules` (or API settings, validated); ``seats``: 2..8; ``rng``: ``random.Random``
    (unused unless needed later; the first-dealer dice are thrown by the seats' ``roll`` actions).
    Every seat starts with ``starting_points``. With ``first_dealer: seat`` seat 0 deals at once and the
    betting of hand 1 opens; with ``roll`` seat 0 is awaited for its die.
    Raises ``InvalidRules`` (field ``seats``, or a setting).
    """
    rules = validate_rules(rules, seats)
    state: State = {
        "schema": SCHEMA,
        "game": NAME,
        "rules": rules_to_dict(rules),
        "seats": seats,
        "window": 0,
        "phase": "first_dealer",
        "awaiting": [],
        "points": [rules.starting_points] * seats,
        "resigned": [False] * seats,
        "resign_order": [],
        "dealer": None,
        "first_dealer_rolls": {},
        "contenders": list(range(seats)),
        "round_rolls": {},
        "hand_number": 0,
        "dealer_streak": 0,
        "moves": 0,
        "bets": {},
        "last_bets": {},
        "roll_order": [],
        "roller": None,
        "opening": None,
        "rolls": {},
        "hands": {},
        "payments": [],
        "last_hand": None,
        "result": None,
    }
    events: list[Event] = []
    if rules.first_dealer == "seat":
        _set_first_dealer(state, 0, events)
    else:
        _await(state, [0])
    return state, events


def to_dict(state: State) -> dict:
    """The state as JSON-able data (a deep copy); ``from_dict(json.loads(json.dumps(to_dict(s)))) == s``."""
    return copy_json(state)


def from_dict(data: dict) -> State:
    """The state back from :func:`to_dict` data. Raises ``ValueError`` for another game or schema."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ValueError("not a chinchirorin state")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"unsupported chinchirorin state schema {data.get('schema')!r}")
    return copy_json(data)


def window(state: State) -> int:
    """The decision-window counter (DESIGN.md "The engine")."""
    return state["window"]


def awaiting(state: State) -> list[int]:
    """Seats whose decision the game awaits now, sorted (empty when finished)."""
    return sorted(state["awaiting"])


def outcome(state: State) -> dict | None:
    """``None`` while playing, else ``{"standing": [{"seat", "place", "points"}], "reason"}`` (rules
    file, "End of the game": by points, equal points draw; resigned seats below, later resignation
    higher). ``reason``: ``rounds_complete`` | ``zero_points`` | ``resignations``."""
    return copy_json(state["result"])


# ------------------------------------------------------------------------------------------ actions
def legal_actions(state: State, seat: int) -> list[Action]:
    """Complete action bodies answering what the game awaits from ``seat`` now; ``[]`` if nothing.

    first_dealer / rolling: ``[{"type": "roll"}]``; step_down (the dealer): ``{"type": "step_down",
    "down": false}`` and ``... true``; betting (a player not yet chosen): ``{"type": "bet", "amount": a}``
    for every ``a`` in ``bet_options`` (rules file, "Points in").
    """
    if seat not in state["awaiting"]:
        return []
    phase = state["phase"]
    if phase in ("first_dealer", "rolling"):
        return [dict(ROLL)]
    if phase == "step_down":
        return [dict(STAY), dict(STEP_DOWN)]
    return [{"type": "bet", "amount": a} for a in state["rules"]["bet_options"]]


def other_actions(state: State, seat: int) -> list[Action]:
    """Bodies ``seat`` may send without being awaited: while the betting is open, a player that has
    chosen may change to any other option (its current bet is not listed); every playing seat may
    ``{"type": "resign"}`` until the game ends (rules file, "Points in", "End of the game")."""
    if state["phase"] == "finished" or not 0 <= seat < state["seats"] or state["resigned"][seat]:
        return []
    out: list[Action] = []
    if state["phase"] == "betting":
        current = state["bets"].get(str(seat))
        if current is not None:
            out = [{"type": "bet", "amount": a} for a in state["rules"]["bet_options"] if a != current]
    out.append(dict(RESIGN))
    return out


def default_action(state: State, seat: int) -> Action:
    """The action a timed-out or played-for awaited seat takes (rules file, "Timers and absent players"):
    roll for a die or a throw; bet = the seat's latest bet in any earlier hand, else the smallest option;
    step down = stay. Raises ``NotYourTurn`` when ``seat`` is not awaited."""
    if seat not in state["awaiting"]:
        raise NotYourTurn(f"seat {seat} is not awaited")
    phase = state["phase"]
    if phase == "step_down":
        return dict(STAY)
    if phase == "betting":
        last = state["last_bets"].get(str(seat))
        options = state["rules"]["bet_options"]
        return {"type": "bet", "amount": last if last in options else options[0]}
    return dict(ROLL)


def check_action(action: Any) -> None:
    """Check an action body's shape: a dict with a known ``type`` and exactly its fields, each of the
    right type (``bet.amount`` an int, never a bool; ``step_down.down`` a bool).
    Raises ``InvalidAction``."""
    check_fields(action, _FIELDS)


def apply(state: State, seat: int, action: Action, rng) -> tuple[State, list[Event]]:
    """Apply ``seat``'s ``action``; returns ``(new state, events)`` and never mutates ``state``.

    Raises ``InvalidAction`` (malformed body or a seat that is not an int of the table),
    ``NotYourTurn`` (the type is in neither :func:`legal_actions` nor :func:`other_actions` of the seat,
    e.g. anything once the game is finished), ``IllegalAction`` (a listed type with a value not offered:
    a bet amount not in ``bet_options``, re-posting the bet already placed).
    ``rng``: ``random.Random`` for the dice of this transition.
    """
    check_action(action)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["seats"]:
        raise InvalidAction(f"no seat {seat!r} at this table")
    kind = action["type"]
    if kind == "roll" and seat in state["awaiting"] and state["phase"] in ("first_dealer", "rolling"):
        offered = _THROW_ONLY  # the common case, without building every list
    else:
        offered = legal_actions(state, seat) + other_actions(state, seat)
    if not any(a["type"] == kind for a in offered) and not _has_bet(state, seat, kind):
        raise NotYourTurn(f"seat {seat} may not {action['type']} now")
    if action not in offered:
        raise IllegalAction(f"{action} is not offered to seat {seat} now")
    s = _successor_for_throw(state) if offered is _THROW_ONLY and state["phase"] == "rolling" else _successor(state)
    events: list[Event] = []
    if kind == "resign":
        _resign(s, seat, events)
    elif kind == "bet":
        _bet(s, seat, action["amount"], events)
    elif kind == "step_down":
        _step_down(s, seat, action["down"], events)
    elif s["phase"] == "first_dealer":
        _first_dealer_roll(s, seat, rng, events)
    else:
        _throw(s, seat, rng, events)
    return s, events


def _has_bet(state: State, seat: int, kind: str) -> bool:
    """A playing seat that has placed its bet while the betting is open: another bet is a listed type even
    when ``bet_options`` has no other amount to offer, so re-posting it is illegal (API.md "Games")."""
    return (
        kind == "bet" and state["phase"] == "betting" and not state["resigned"][seat] and str(seat) in state["bets"]
    )


# -------------------------------------------------------------------------------------- transitions
def _await(s: State, seats: list[int]) -> None:
    """Open a decision window for ``seats``."""
    s["awaiting"] = list(seats)
    s["window"] += 1


def _first_dealer_roll(s: State, seat: int, rng, events: list[Event]) -> None:
    """rules file "First dealer" / flow 1: one die, in seat order; tied highest seats roll again."""
    die = rng.randint(1, 6)
    s["first_dealer_rolls"].setdefault(str(seat), []).append(die)
    s["round_rolls"][str(seat)] = die
    events.append(event("first_dealer_roll", seat=seat, die=die))
    _first_dealer_next(s, events)


def _first_dealer_next(s: State, events: list[Event]) -> None:
    live = [c for c in s["contenders"] if not s["resigned"][c]]
    if not live:  # every contender of a re-roll resigned: the seats still playing start over
        live = _playing(s)
        s["contenders"], s["round_rolls"] = list(live), {}
    if len(live) == 1:
        _set_first_dealer(s, live[0], events)
        return
    pending = [c for c in live if str(c) not in s["round_rolls"]]
    if pending:
        _await(s, [pending[0]])
        return
    high = max(s["round_rolls"][str(c)] for c in live)
    top = [c for c in live if s["round_rolls"][str(c)] == high]
    if len(top) == 1:
        _set_first_dealer(s, top[0], events)
        return
    s["contenders"], s["round_rolls"] = top, {}
    events.append(event("first_dealer_tie", seats=list(top)))
    _await(s, [top[0]])


def _set_first_dealer(s: State, seat: int, events: list[Event]) -> None:
    s["dealer"] = seat
    s["contenders"], s["round_rolls"] = [], {}
    s["dealer_streak"] = 0
    events.append(event("dealer", seat=seat, previous=None, reason="first_dealer"))
    _start_hand(s, events, kept=False)


def _start_hand(s: State, events: list[Event], kept: bool) -> None:
    """Flow 2-3: a dealer who kept the role is asked to step down (common only); else the betting."""
    if kept and s["rules"]["style"] == COMMON:
        s["phase"] = "step_down"
        events.append(event("step_down_offered", seat=s["dealer"]))
        _await(s, [s["dealer"]])
    else:
        _open_betting(s, events)


def _open_betting(s: State, events: list[Event]) -> None:
    s["hand_number"] += 1
    s["phase"] = "betting"
    s["bets"], s["roll_order"], s["rolls"], s["hands"], s["payments"] = {}, [], {}, {}, []
    s["roller"], s["opening"] = None, None
    events.append(
        event("hand_started", hand_number=s["hand_number"], dealer=s["dealer"], dealer_streak=s["dealer_streak"])
    )
    _await(s, [p for p in _playing(s) if p != s["dealer"]])


def _step_down(s: State, seat: int, down: bool, events: list[Event]) -> None:
    """Flow 2: ``down`` moves the role on (a move that counts); the new dealer is not asked."""
    events.append(event("step_down", seat=seat, down=down))
    if down:
        _move_role(s, events, "step_down")
    else:
        _open_betting(s, events)


def _bet(s: State, seat: int, amount: int, events: list[Event]) -> None:
    """rules file "Points in" / flow 3: a choice, changeable until the last awaited seat chooses."""
    s["bets"][str(seat)] = amount
    s["last_bets"][str(seat)] = amount
    events.append(event("bet", seat=seat, amount=amount))
    if seat in s["awaiting"]:
        s["awaiting"].remove(seat)
        if not s["awaiting"]:
            _close_betting(s, events)


def _close_betting(s: State, events: list[Event]) -> None:
    rules = _rules(s)
    bettors = {p: s["bets"][str(p)] for p in _playing(s) if str(p) in s["bets"]}
    s["roll_order"] = roll_order(rules, s["seats"], s["dealer"], bettors)
    s["phase"] = "rolling"
    events.append(event("betting_closed", bets=dict(s["bets"]), roll_order=list(s["roll_order"])))
    first = s["roll_order"][0] if rules.style == STREAMER else s["dealer"]
    s["roller"] = first
    _await(s, [first])


def _throw(s: State, seat: int, rng, events: list[Event]) -> None:
    """rules file "Throwing" / flow 4: one throw; a hand, out of the bowl or a third throw ends the turn."""
    rules = _rules(s)
    dice = throw(rules, rng)
    throws = s["rolls"].setdefault(str(seat), [])
    throws.append(dice)
    events.append({"type": "throw", "audience": "all", "seat": seat, "throw": len(throws), "dice": dice and dice[:]})
    hand = turn_hand(throws)
    if hand is None:
        _await(s, [seat])
        return
    s["hands"][str(seat)] = hand
    events.append(event("hand", seat=seat, hand=hand["hand"], value=hand["value"]))
    _after_turn(s, rules, seat, events)


def _bets_of(s: State, seats: list[int]) -> dict[int, int]:
    return {p: s["bets"][str(p)] for p in seats}


def _pay_events(payments: list[dict], events: list[Event], s: State) -> None:
    s["payments"].extend(payments)
    for p in payments:
        events.append(event("payment", **p))


def _after_turn(s: State, rules: Rules, seat: int, events: list[Event]) -> None:
    dealer = s["dealer"]
    hands = s["hands"]
    if rules.style == STREAMER:
        if seat != dealer:
            _next_roller(s, events)
            return
        players = [p for p in s["roll_order"][:-1] if not s["resigned"][p] and str(p) in hands]
        payments = settle_streamer(
            rules, dealer, s["points"], _bets_of(s, players), {int(k): v for k, v in hands.items()}, players
        )
        _pay_events(payments, events, s)
        _end_hand(s, events)
        return
    dealer_hand = hands[str(dealer)]
    if seat == dealer:
        players = [p for p in s["roll_order"] if not s["resigned"][p]]
        outcome_, payments = settle_opening(rules, dealer, s["points"], _bets_of(s, players), dealer_hand, players)
        s["opening"] = outcome_
        events.append(event("opening", dealer=dealer, outcome=outcome_))
        _pay_events(payments, events, s)
        if outcome_ == PLAYERS_ROLL:
            _next_roller(s, events)
        else:
            _end_hand(s, events)
        return
    payments = settle_player(rules, dealer, s["points"], s["bets"][str(seat)], dealer_hand, seat, hands[str(seat)])
    _pay_events(payments, events, s)
    if s["points"][dealer] == 0:
        _end_hand(s, events)
    else:
        _next_roller(s, events)


def _next_roller(s: State, events: list[Event]) -> None:
    """The next seat in ``roll_order`` still playing and without a hand; none left ends the hand."""
    for p in s["roll_order"]:
        if not s["resigned"][p] and str(p) not in s["hands"]:
            s["roller"] = p
            _await(s, [p])
            return
    _end_hand(s, events)


def _record_hand(s: State, events: list[Event]) -> None:
    s["last_hand"] = {
        "hand_number": s["hand_number"],
        "dealer": s["dealer"],
        "bets": s["bets"],  # handed over: the current hand's parts are replaced just below
        "rolls": s["rolls"],
        "hands": s["hands"],
        "payments": s["payments"],
        "points_after": {str(i): p for i, p in enumerate(s["points"])},
    }
    events.append(
        event("hand_settled", hand_number=s["hand_number"], points_after=dict(s["last_hand"]["points_after"]))
    )
    s["bets"], s["roll_order"], s["rolls"], s["hands"], s["payments"] = {}, [], {}, {}, []
    s["roller"], s["opening"] = None, None
    s["awaiting"] = []


def _end_hand(s: State, events: list[Event], dealer_resigned: bool = False) -> None:
    """Flow 5: settle is done; then a seat at 0 points or fewer than 2 playing ends the game; else the
    role moves (or stays, common); a move reaching N × rounds ends the game; else the next hand."""
    _record_hand(s, events)
    if any(p == 0 for p in s["points"]):
        _finish(s, events, "zero_points")
        return
    if len(_playing(s)) < 2:
        _finish(s, events, "resignations")
        return
    rules = _rules(s)
    dealer_hand = s["last_hand"]["hands"].get(str(s["dealer"]))
    if dealer_resigned:
        _move_role(s, events, "resigned")
    elif dealer_keeps(rules, dealer_hand, s["dealer_streak"]):
        s["dealer_streak"] += 1
        _start_hand(s, events, kept=True)
    else:
        _move_role(s, events, "rotation")


def _move_role(s: State, events: list[Event], reason: str) -> None:
    """The role moves to the next playing seat; every move counts towards N × rounds (rules file
    "End of the game", flow 5)."""
    previous = s["dealer"]
    n = s["seats"]
    new = next((previous + k) % n for k in range(1, n + 1) if not s["resigned"][(previous + k) % n])
    s["dealer"], s["dealer_streak"] = new, 0
    s["moves"] += 1
    events.append(event("dealer", seat=new, previous=previous, reason=reason))
    if s["moves"] >= n * s["rules"]["rounds"]:
        _finish(s, events, "rounds_complete")
    else:
        _start_hand(s, events, kept=False)


def _resign(s: State, seat: int, events: list[Event]) -> None:
    """rules file "Resigning": the seat leaves at once; no payment for it in this hand; a resigning
    roller passes the turn, a resigning last bettor closes the betting, a resigning dealer ends the hand
    and the role moves on; fewer than 2 seats playing ends the game at once."""
    s["resigned"][seat] = True
    s["resign_order"].append(seat)
    events.append(event("resigned", seat=seat))
    phase = s["phase"]
    was_awaited = seat in s["awaiting"]
    if was_awaited:
        s["awaiting"].remove(seat)
    if len(_playing(s)) < 2:
        if phase in ("betting", "rolling"):
            _record_hand(s, events)
        _finish(s, events, "resignations")
        return
    if phase == "first_dealer":
        live = [c for c in s["contenders"] if not s["resigned"][c]]
        if was_awaited or len(live) <= 1:
            _first_dealer_next(s, events)
    elif phase == "step_down":
        if seat == s["dealer"]:
            _move_role(s, events, "resigned")
    elif seat == s["dealer"]:
        _end_hand(s, events, dealer_resigned=True)
    elif phase == "betting":
        s["bets"].pop(str(seat), None)
        if was_awaited and not s["awaiting"]:
            _close_betting(s, events)
    elif phase == "rolling" and seat == s["roller"]:
        _next_roller(s, events)


def _finish(s: State, events: list[Event], reason: str) -> None:
    playing = sorted(_playing(s), key=lambda p: (-s["points"][p], p))
    ordered = [(p, ("playing", s["points"][p])) for p in playing]
    ordered += [(p, ("resigned", i)) for i, p in enumerate(reversed(s["resign_order"]))]
    standing = [{"seat": p, "place": place, "points": s["points"][p]} for p, place in standing_places(ordered)]
    s["phase"] = "finished"
    s["awaiting"] = []
    s["roller"] = None
    s["result"] = {"standing": standing, "reason": reason}
    events.append(event("game_over", standing=copy_json(standing), reason=reason))


# --------------------------------------------------------------------------------------------- view
def view_for(state: State, seat: int | None) -> dict:
    """What ``seat`` (or a spectator, ``None``) sees; Chinchirorin hides nothing but the rng internals.

    ``{"phase", "awaiting": [seat], "turn": seat | None (exactly one awaited), "players": [{"seat",
    "points", "resigned", "out": False, "reentries": 0}], "table": {"dealer", "first_dealer_rolls",
    "hand_number", "dealer_streak", "bets", "roll_order", "rolls", "hands", "last_hand"}, "result"}``
    (API.md "Games", ``table`` — chinchirorin). Seat keys of ``table`` dicts are strings. A fresh copy.
    """
    aw = sorted(state["awaiting"])
    return {
        "phase": state["phase"],
        "awaiting": aw,
        "turn": aw[0] if len(aw) == 1 else None,
        "players": [
            {"seat": i, "points": p, "resigned": r, "out": False, "reentries": 0}
            for i, (p, r) in enumerate(zip(state["points"], state["resigned"], strict=True))
        ],
        "table": {
            "dealer": state["dealer"],
            "first_dealer_rolls": {k: v[:] for k, v in state["first_dealer_rolls"].items()},
            "hand_number": state["hand_number"],
            "dealer_streak": state["dealer_streak"],
            "bets": dict(state["bets"]),
            "roll_order": list(state["roll_order"]),
            "rolls": _copy_rolls(state["rolls"]),
            "hands": _copy_hands(state["hands"]),
            "last_hand": _copy_last_hand(state["last_hand"]),
        },
        "result": copy_json(state["result"]),
    }
