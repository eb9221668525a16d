"""Chinchón: rules settings and presets, and the game as a pure state machine (rules/chinchon.md).

Implements the module interface of :mod:`games.engine.base`. Melds, the arrangement solver, closing,
lay-offs and the scoring of one hand live in :mod:`games.engine.chinchon_melds`.

Phases: ``draw`` → ``discard`` (one turn = one decision window: ``window`` grows when a turn starts, not
between its draw and its discard/close) → ... → a close scores the hand → ``reentry`` (when offers are
due) → the next deal → ... → ``finished``.

**State** (a plain JSON dict; seat numbers as dict keys are strings)::

    {"schema": 1, "game": "chinchon", "rules": {every setting}, "seats": N, "window": int,
     "phase": "draw"|"discard"|"reentry"|"finished", "awaiting": [seat], "turn": seat | None,
     "mano": seat, "hand_number": int (1 = the first deal),
     "stock": [card] (top = last), "discard": [card] (bottom to top since the last restock),
     "hands": [[card]] * N (after a close: the cards each seat still holds, i.e. its loose cards),
     "drawn": card | None, "taken_from_discard": card | None,     # this turn's draw
     "pickups": [{"seat": seat, "card": card}] (every card taken from the discard pile in this hand, oldest
     first; emptied at each deal, kept across a restock; public; a state saved without it reads as []),
     "turns": int (turns completed in this hand, i.e. discards; 0 at each deal, kept across a restock;
     public; a state saved without it reads as 0),
     "dealt": [seat] (dealt in this hand), "played": [seat] (completed a turn in this deal),
     "scores": [int] * N, "out": [bool] * N, "resigned": [bool] * N, "reentries": [int] * N,
     "exit_hand": [int | None] * N (hand of the last exit), "resign_order": [seat],
     "set_aside": [card] (a resigned seat's cards, face down), "laid": [[card]] (melds on the table after
     a close, lay-offs included), "face_down": card | None, "last_closer": seat | None,
     "reveal": {...} | None, "offers": {seat: bool | None}, "reentry_score": int | None,
     "result": None | outcome}

Cards: stock + discard + hands + laid + face_down + set_aside is always exactly the deck (a multiset).

**Events** (``audience`` "all" unless said): ``mano_draw {rounds: [{seat: card}], mano}`` (only with
``first_mano: high_card``, first of the game: every seat's card of each round of the draw for the first
mano, :func:`draw_first_mano`), ``mano {seat, hand_number}``, ``deal {hand_number, mano,
seats, discard, stock_size}``, ``hand {seat, cards}`` (audience: that seat), ``turn {seat}``,
``draw {seat, source, card?}`` (``card`` only from the discard pile; also recorded in ``pickups``), ``drawn {seat, card}`` (audience:
the drawer; a card from the stock), ``restock {stock_size}``, ``discard {seat, card}``, ``close {seat}``
(the face-down card is never shown), ``reveal {hand_number, closer, seats}``, ``score {hand_number,
closer, kind, deltas, scores}``, ``out {seat, score}``, ``reentry_offer {seats, score}``,
``reenter {seat, accept}``, ``resign {seat}``, ``game_end {standing, reason}``.

**Coins** (only with ``stake`` > 0 or a re-entry cost, :func:`has_coins`; without, none of this exists and
nothing changes). The pot is in-game coins; the wallets live outside the engine, which only reports the movements as events:

- at the start the host calls :func:`stake` with the seats that pay (its human seats): the state gains
  ``pot`` (coins) and ``stakers`` [seat] (absent: 0 and no seat, e.g. a table of CPUs only); event
  ``stake {seats, amount, pot}`` (seed 002: "before each game, each player adds the agreed amount into
  the pot");
- re-entry costs :func:`reentry_cost`: the ``reentry_fee`` setting (25 in ``wild_ace``), or the stake when
  it is None (seed 002 "putting the agreed amount back into the pot"; seed 003 "if they pay the necessary
  coins"): offers go only to stakers (the seats :func:`stake` was given, even with a stake of 0) that can
  pay. Before a transition that may open offers
  (:func:`solvency_needed`) the host says which seats can pay with :func:`set_solvent`; that
  ``solvent`` list is an input of the next :func:`apply` only (absent: every staker can pay) and is never
  kept in a state. An accepted offer pays at once: event ``reentry_paid {seat, amount, pot}`` right after
  ``reenter``. A seat that accepted and then resigns before the window closes does not
  re-enter; its coins stay in the pot;
- at the end the best-placed stakers share the pot (seed 002 "the winner ... takes the pot"; CPU seats
  never stake nor win): ``pot // n`` each, the remainder one coin each to the sharers in seat order;
  event ``pot_won {pot, payouts: [{seat, coins}]}`` before ``game_end``, and the result gains ``pot
  {total, payouts}``.
"""

from __future__ import annotations

from typing import Any

from games.engine import chinchon_melds as melds
from games.engine.cards import build_deck, is_card_code, parse_card, sort_cards
from games.engine.chinchon_melds import play_order
from games.engine.chinchon_rules import (  # noqa: F401 - re-exported: the game's settings and rules
    _ONE_CARD_LIMITS,
    _PRESETS,
    _SETTINGS,
    NAME,
    PRESET_NAMES,
    PRESET_TABLE,
    PRESETS,
    SEAT_RANGE,
    SETTINGS,
    STAKES,
    STANDARD,
    TRADITIONAL,
    WILD_ACE,
    Rules,
    _is_int,
    _rules_from_items,
    has_coins,
    reentry_cost,
    rules_from_dict,
    rules_to_dict,
    validate_rules,
)
from games.engine.errors import IllegalAction, InvalidAction, NotYourTurn
from games.engine.types import Action, Event, State, check_fields, copy_json, event, standing_places

# =========================================================================================== the game

SCHEMA = 1
PHASES = ("draw", "discard", "reentry", "finished")
ACTION_TYPES = ("draw", "discard", "close", "reenter", "resign")
_FIELDS: dict[str, dict[str, type]] = {
    "draw": {"source": str},
    "discard": {"card": str},
    "close": {"card": str},
    "reenter": {"accept": bool},
    "resign": {},
}
HAND_SIZE = 7


_LIST_KEYS = (
    "awaiting", "stock", "discard", "dealt", "played", "scores", "out", "resigned", "reentries",
    "exit_hand", "resign_order", "set_aside",
)


def _successor(state: State) -> State:
    """A copy of ``state`` safe to change: lists and dicts changed in place are copied; ``rules``,
    ``reveal``, ``laid``, ``result`` and the entries of ``pickups`` are only ever replaced, never changed
    in place, so they are shared."""
    s = dict(state)
    for k in _LIST_KEYS:
        s[k] = list(state[k])
    s["pickups"] = list(state.get("pickups") or [])
    s["hands"] = [list(h) for h in state["hands"]]
    s["offers"] = dict(state["offers"])
    return s


def rules_of(state: State) -> Rules:
    """The :class:`Rules` a game is played with (cached; for the solver functions of chinchon_melds)."""
    return rules_from_dict(state["rules"])


def _in(s: State) -> list[int]:
    """Seats still in: neither out nor resigned (rules file "Elimination", "Resigning")."""
    return [i for i in range(s["seats"]) if not s["out"][i] and not s["resigned"][i]]


def _next_in(s: State, seat: int) -> int:
    """The first seat still in after ``seat``'s place, in play order (seat s+1 follows seat s)."""
    n = s["seats"]
    for d in range(1, n + 1):
        p = (seat + d) % n
        if not s["out"][p] and not s["resigned"][p]:
            return p
    raise AssertionError("no seat is in")


def _first_round_complete(s: State) -> bool:
    """Every seat dealt in and still in has completed one turn of this deal (rules file "Closing")."""
    played = set(s["played"])
    return all(p in played for p in s["dealt"] if not s["resigned"][p])


def initial_state(rules: Rules | dict | None, seats: int, rng) -> tuple[State, list[Event]]:
    """A new game: the first mano drawn with ``rng`` (an event), then the first deal (rules file "A hand").

    ``first_mano: random`` picks the seat with ``rng.randrange(seats)``; ``high_card`` draws cards for it
    with ``rng`` (:func:`draw_first_mano`, event ``mano_draw`` before ``mano`` and ``deal``).

    ``rules``: :class:`Rules` or API settings (validated with ``seats``); ``seats``: the seat count
    (2-4; 2-8 in ``traditional``, two decks from 5); ``rng``: ``random.Random``.
    Raises ``InvalidRules`` (field ``"seats"``, ``"decks"`` or a setting).
    """
    settings = rules
    if isinstance(rules, Rules):
        settings = rules_to_dict(rules)
        if rules.preset == "traditional" and rules.decks == 1:
            del settings["decks"]  # one deck is the default: let the seat count decide
    r = validate_rules(settings, seats)
    s: State = {
        "schema": SCHEMA, "game": NAME, "rules": rules_to_dict(r), "seats": seats, "window": 0,
        "phase": "draw", "awaiting": [], "turn": None, "mano": 0, "hand_number": 0,
        "stock": [], "discard": [], "hands": [[] for _ in range(seats)],
        "drawn": None, "taken_from_discard": None, "pickups": [], "turns": 0, "dealt": [], "played": [],
        "scores": [0] * seats, "out": [False] * seats, "resigned": [False] * seats,
        "reentries": [0] * seats, "exit_hand": [None] * seats, "resign_order": [],
        "set_aside": [], "laid": [], "face_down": None, "last_closer": None, "reveal": None,
        "offers": {}, "reentry_score": None, "result": None,
    }
    events: list[Event] = []
    if r.first_mano == "high_card":
        s["mano"], rounds = draw_first_mano(r, seats, rng)
        events.append(event("mano_draw", rounds=rounds, mano=s["mano"]))
    else:  # "random": the rng is used exactly as before the setting existed
        s["mano"] = rng.randrange(seats)
    _deal(s, rng, events)
    return s, events


# ------------------------------------------------------------------------------- the first mano by cards


def draw_rank(card: str) -> int:
    """Where ``card`` stands in a draw for the mano: its rank number (seed 002 "ORDER AND VALUE OF THE
    CARDS": "king, knight, jack, nine, eight, seven, six… down to ace", i.e. 12 > 11 > 10 > 9 > 8 > 7 …
    > 1). Suits have no order: two cards of one rank tie. Raises ``ValueError`` for a joker (no rank)."""
    parsed = parse_card(card)
    if parsed is None:
        raise ValueError("a joker is never drawn for the mano")
    return parsed[0]


def first_mano(rounds: list[dict]) -> tuple[int | None, list[int]]:
    """Who is mano after the draw ``rounds`` (pure; the rules of ``first_mano: high_card``).

    ``rounds``: the draws in order, each ``{seat: card}`` (seat an int or its string): every seat draws in
    the first round; each later round is drawn by exactly the seats tied for highest in the round before.
    Returns ``(mano, [])`` when the last round has one highest card, else ``(None, tied seats sorted)``:
    those seats draw again. Raises ``ValueError`` for no round, a round of fewer than 2 seats, a round
    drawn by other seats than the tied ones, a round after the mano is known, or a joker."""
    if not isinstance(rounds, list) or not rounds:
        raise ValueError("draws must be a list of rounds, at least one")
    tied: list[int] | None = None
    for i, rnd in enumerate(rounds):
        if not isinstance(rnd, dict) or not all(isinstance(c, str) for c in rnd.values()):
            raise ValueError("each round must be an object of seat -> card")
        cards = {int(seat): card for seat, card in rnd.items()}
        if tied is not None and sorted(cards) != tied:
            if len(tied) == 1:
                raise ValueError(f"round {i + 1}: the mano was already seat {tied[0]}")
            raise ValueError(f"round {i + 1} must be drawn by the seats tied before: {tied}")
        if len(cards) < 2:
            raise ValueError("a round of the draw needs 2 seats or more")
        ranks = {seat: draw_rank(card) for seat, card in cards.items()}
        top = max(ranks.values())
        tied = sorted(seat for seat, rank in ranks.items() if rank == top)
    assert tied is not None
    return (tied[0], []) if len(tied) == 1 else (None, tied)


def draw_first_mano(rules: Rules, seats: int, rng) -> tuple[int, list[dict[str, str]]]:
    """The draw for the first mano (``first_mano: high_card``; seed 002 "DEALING THE CARDS": "each player
    draws one card from the pack, the hand being whoever draws the highest card").

    Each round shuffles a fresh pack with ``rng`` — the game's pack (``deck`` and ``decks``) without its
    jokers, which have no rank — and deals one card to each seat drawing, in seat order, from the top (the
    end of the shuffled list, as :func:`_deal` does); the seats tied for the highest rank
    (:func:`draw_rank`) draw again, until one is highest. Returns ``(mano, rounds)``, each round
    ``{seat (a string): card}`` as the ``mano_draw`` event shows them."""
    pack = build_deck(rules.deck, rules.decks, 0)
    drawing = list(range(seats))
    rounds: list[dict[str, str]] = []
    while True:
        deck = list(pack)
        rng.shuffle(deck)
        rounds.append({str(p): deck.pop() for p in drawing})
        mano, tied = first_mano(rounds)
        if mano is not None:
            return mano, rounds
        drawing = tied


def to_dict(state: State) -> dict:
    """The state as JSON-able data (a deep copy): ``from_dict(json.loads(json.dumps(to_dict(s)))) == s``."""
    return copy_json(state)


def from_dict(data: dict) -> State:
    """The state back from :func:`to_dict` data. Raises ``ValueError`` for another game or schema.

    Data saved before a key was added reads with its default: ``pickups`` ``[]``, ``turns`` 0."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ValueError("not a chinchon state")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"unsupported chinchon state schema {data.get('schema')!r}")
    s = copy_json(data)
    s.setdefault("pickups", [])
    s.setdefault("turns", 0)
    return s


def window(state: State) -> int:
    """The decision-window counter: +1 when a turn starts and when re-entry offers open."""
    return state["window"]


def awaiting(state: State) -> list[int]:
    """Seats whose decision the game awaits now, sorted (the turn's seat, or the seats offered re-entry)."""
    return sorted(state["awaiting"])


def outcome(state: State) -> dict | None:
    """``None`` while playing, else ``{"standing": [{"seat", "place", "score"}], "reason"}``; ``reason``:
    ``last_seat`` | ``chinchon`` | ``all_out`` | ``resignations`` (rules file "Elimination, re-entry, end")."""
    return copy_json(state["result"])


# --------------------------------------------------------------------------------------------- actions


def _can_draw_stock(s: State) -> bool:
    return bool(s["stock"]) or len(s["discard"]) >= 2


def legal_actions(state: State, seat: int) -> list[Action]:
    """Complete bodies answering what the game awaits from ``seat`` now; ``[]`` if nothing.

    ``draw``: ``{"type": "draw", "source": "stock"}`` (unless the stock is empty and the pile holds one
    card) and ``"discard"`` (unless the pile is empty). ``discard``: ``{"type": "discard", "card": c}``
    for each code held (not the only copy just taken from the pile), then ``{"type": "close", "card":
    c}`` for each legal face-down card. ``reentry``: ``{"type": "reenter", "accept": true}`` / ``false``.
    """
    if seat not in state["awaiting"]:
        return []
    phase = state["phase"]
    if phase == "draw":
        out = []
        if _can_draw_stock(state):
            out.append({"type": "draw", "source": "stock"})
        if state["discard"]:
            out.append({"type": "draw", "source": "discard"})
        return out
    if phase == "discard":
        hand = sort_cards(state["hands"][seat])
        taken = state["taken_from_discard"]
        out = [
            {"type": "discard", "card": c}
            for c in dict.fromkeys(hand)
            if not (c == taken and hand.count(c) == 1)
        ]
        out += [{"type": "close", "card": o["card"]} for o in _closes(state, seat)]
        return out
    if phase == "reentry":
        return [{"type": "reenter", "accept": True}, {"type": "reenter", "accept": False}]
    return []


def _closes(state: State, seat: int) -> list[dict[str, Any]]:
    """The legal closes of ``seat``'s 8 cards now (rules file "Closing"), one per face-down code."""
    return melds.close_options_unchecked(
        state["hands"][seat],
        rules_of(state),
        first_round_complete=_first_round_complete(state),
        taken_from_discard=state["taken_from_discard"],
    )


def other_actions(state: State, seat: int) -> list[Action]:
    """``[{"type": "resign"}]`` for any seat that has not resigned (also a seat that is out) until the game
    ends; ``[]`` otherwise."""
    if state["phase"] == "finished" or not _is_seat(state, seat) or state["resigned"][seat]:
        return []
    return [{"type": "resign"}]


def _is_seat(state: State, seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state["seats"]


def _tie_key(code: str, rules: Rules) -> tuple:
    """The default's tie order: higher value, then higher rank, then suit O, C, E, B (a joker: rank 0)."""
    parsed = parse_card(code)
    rank, suit = (0, "Z") if parsed is None else parsed
    return (-melds.value_unchecked(code, rules), -rank, "OCEBZ".index(suit))


def default_action(state: State, seat: int) -> Action:
    """The action of a timed-out or played-for awaited seat (rules file "Resigning, timeouts, absence").

    Must draw: draw from the stock (from the pile when the stock cannot be drawn). Has drawn: close if any
    close is legal, the one with the fewest loose points; else discard the card, other than the one just
    taken, whose removal leaves the fewest loose points in the best arrangement of the other 7; ties
    (closes too): higher value, then higher rank, then suit O, C, E, B. Re-entry: decline.
    Raises ``NotYourTurn`` when ``seat`` is not awaited.
    """
    if seat not in state["awaiting"]:
        raise NotYourTurn(f"seat {seat} is not awaited")
    phase = state["phase"]
    if phase == "reentry":
        return {"type": "reenter", "accept": False}
    if phase == "draw":
        return {"type": "draw", "source": "stock" if _can_draw_stock(state) else "discard"}
    rules = rules_of(state)
    closes = _closes(state, seat)
    if closes:
        best = min(closes, key=lambda o: (o["loose_points"], _tie_key(o["card"], rules)))
        return {"type": "close", "card": best["card"]}
    hand = sort_cards(state["hands"][seat])
    drawn = state["drawn"]
    cands = []
    for c in dict.fromkeys(hand):
        if c == drawn and hand.count(c) == 1:
            continue
        rest = list(hand)
        rest.remove(c)
        cands.append((melds.arrangement_points(rest, rules)[0], _tie_key(c, rules), c))
    return {"type": "discard", "card": min(cands)[2]}


def check_action(action: Any) -> None:
    """Check an action body's shape: a dict with a known ``type`` and exactly its fields, each well typed
    (``source`` "stock"/"discard", ``card`` a card code, ``accept`` a bool). Raises ``InvalidAction``."""
    kind = check_fields(action, _FIELDS)
    if kind == "draw" and action["source"] not in ("stock", "discard"):
        raise InvalidAction("source must be 'stock' or 'discard'")
    if kind in ("discard", "close") and not is_card_code(action["card"]):
        raise InvalidAction(f"{action['card']!r} is not a card code")


def apply(state: State, seat: int, action: Action, rng) -> tuple[State, list[Event]]:
    """Apply ``seat``'s ``action``; returns ``(new state, events)`` and never mutates ``state``.

    Raises ``InvalidAction`` (malformed body, or a seat not at the table), ``NotYourTurn`` (the type is
    not awaited from the seat nor in :func:`other_actions`, e.g. a draw after the draw, anything once
    finished; ``close`` is awaited after the draw even when no close is legal),
    ``IllegalAction`` (a listed type with a value not allowed: a card not held, the only copy just taken
    from the discard pile, a close that does not qualify, a source that cannot be drawn).
    ``rng``: ``random.Random`` for the shuffles of this transition (restock, next deal).
    """
    check_action(action)
    if not _is_seat(state, seat):
        raise InvalidAction(f"no seat {seat!r} at this table")
    legal = legal_actions(state, seat)
    offered = legal + other_actions(state, seat)
    kind = action["type"]
    if kind not in _awaited_types(state, seat) and not any(a["type"] == kind for a in offered):
        raise NotYourTurn(f"seat {seat} may not {kind} now")
    if action not in offered:
        raise IllegalAction(_why_illegal(state, seat, action))
    s = _successor(state)
    events: list[Event] = []
    if kind == "resign":
        _resign(s, seat, rng, events)
    elif kind == "draw":
        _draw(s, seat, action["source"], rng, events)
    elif kind == "discard":
        _discard(s, seat, action["card"], events)
    elif kind == "close":
        _close(s, seat, action["card"], rng, events)
    else:
        _answer_offer(s, seat, action["accept"], rng, events)
    s.pop("solvent", None)  # the host's input for this transition only (see "Coins"): never stored
    return s, events


def _awaited_types(state: State, seat: int) -> tuple[str, ...]:
    """The action types the game awaits from ``seat`` now, whether or not a value of it is legal: after
    the draw both ``discard`` and ``close`` answer the turn, so a close that does not qualify is an
    ``IllegalAction`` (API.md error table), not ``NotYourTurn``."""
    if seat not in state["awaiting"]:
        return ()
    return {"draw": ("draw",), "discard": ("discard", "close"), "reentry": ("reenter",)}.get(state["phase"], ())


def _why_illegal(state: State, seat: int, action: Action) -> str:
    kind = action["type"]
    if kind == "draw":
        return f"cannot draw from the {action['source']} now"
    card = action.get("card")
    hand = state["hands"][seat]
    if card not in hand:
        return f"card {card!r} is not held"
    if card == state["taken_from_discard"] and hand.count(card) == 1:
        return f"card {card!r} was just taken from the discard pile"
    if kind == "close":
        if rules_of(state).close_after_first_round and not _first_round_complete(state):
            return "nobody may close before every seat has completed one turn of this deal"
        return f"laying {card!r} face down does not qualify to close"
    return f"{action} is not allowed now"


# ------------------------------------------------------------------------------------------ transitions


def _start_turn(s: State, seat: int, events: list[Event]) -> None:
    """Open the decision window of ``seat``'s turn (its draw and its discard or close)."""
    s["phase"] = "draw"
    s["turn"] = seat
    s["awaiting"] = [seat]
    s["drawn"] = None
    s["taken_from_discard"] = None
    s["window"] += 1
    events.append(event("turn", seat=seat, hand_number=s["hand_number"]))


def _deal(s: State, rng, events: list[Event]) -> None:
    """Deal a new hand (rules file "A hand" 2): 7 cards each to the seats still in, one at a time from the
    mano, the next card face up on the discard pile, the rest the stock. The whole pack is gathered."""
    r = rules_of(s)
    s["hand_number"] += 1
    seats = play_order(_in(s), s["mano"])
    deck = build_deck(r.deck, r.decks, r.jokers)
    rng.shuffle(deck)
    s["hands"] = [[] for _ in range(s["seats"])]
    for _ in range(HAND_SIZE):
        for p in seats:
            s["hands"][p].append(deck.pop())
    s["discard"] = [deck.pop()]
    s["stock"] = deck
    s["pickups"] = []
    s["turns"] = 0
    s["dealt"] = sorted(seats)
    s["played"] = []
    s["set_aside"] = []
    s["laid"] = []
    s["face_down"] = None
    s["offers"] = {}
    s["reentry_score"] = None
    events.append(event("mano", seat=s["mano"], hand_number=s["hand_number"]))
    events.append(event(
        "deal", hand_number=s["hand_number"], mano=s["mano"], seats=sorted(seats),
        discard=s["discard"][-1], stock_size=len(s["stock"]),
    ))
    for p in sorted(seats):
        events.append(event("hand", [p], seat=p, cards=sort_cards(s["hands"][p])))
    _start_turn(s, s["mano"], events)


def _draw(s: State, seat: int, source: str, rng, events: list[Event]) -> None:
    """rules file "A hand" 3-4: take the top of the stock (restocking an empty stock from every discard but
    the top one) or of the discard pile."""
    if source == "stock":
        if not s["stock"]:
            pile = s["discard"]
            new = pile[:-1]
            rng.shuffle(new)
            s["stock"] = new
            s["discard"] = pile[-1:]
            events.append(event("restock", stock_size=len(new)))
        card = s["stock"].pop()
        events.append(event("draw", seat=seat, source="stock"))
        events.append(event("drawn", [seat], seat=seat, card=card))
    else:
        card = s["discard"].pop()
        s["taken_from_discard"] = card
        s["pickups"].append({"seat": seat, "card": card})
        events.append(event("draw", seat=seat, source="discard", card=card))
    s["drawn"] = card
    s["hands"][seat].append(card)
    s["phase"] = "discard"


def _discard(s: State, seat: int, card: str, events: list[Event]) -> None:
    s["hands"][seat].remove(card)
    s["discard"].append(card)
    events.append(event("discard", seat=seat, card=card))
    s["turns"] = s.get("turns", 0) + 1
    if seat not in s["played"]:
        s["played"].append(seat)
    _start_turn(s, _next_in(s, seat), events)


def _close(s: State, seat: int, card: str, rng, events: list[Event]) -> None:
    """rules file "Closing", "Laying off and scoring", "Elimination, re-entry, end"."""
    r = rules_of(s)
    s["hands"][seat].remove(card)
    s["face_down"] = card
    s["drawn"] = None
    s["taken_from_discard"] = None
    s["awaiting"] = []
    s["turn"] = None
    s["last_closer"] = seat
    events.append(event("close", seat=seat))
    in_hand = [p for p in s["dealt"] if not s["resigned"][p]]
    scored = melds.score_hand(seat, {p: s["hands"][p] for p in in_hand}, r)
    reveal = {
        "hand_number": s["hand_number"],
        "closer": seat,
        "seats": {str(p): v for p, v in scored["reveal"].items()},
    }
    s["reveal"] = reveal
    s["laid"] = scored["laid"]
    for p in in_hand:
        s["hands"][p] = list(scored["loose"][p])
    events.append(event("reveal", **copy_json(reveal)))
    for p, d in scored["deltas"].items():
        s["scores"][p] += d
    events.append(event(
        "score", hand_number=s["hand_number"], closer=seat, kind=scored["kind"],
        deltas={str(p): d for p, d in scored["deltas"].items()},
        scores={str(p): v for p, v in enumerate(s["scores"])},
    ))
    if scored["winner"] is not None:
        _finish(s, seat, "chinchon", events)
        return
    went_out = [p for p in in_hand if s["scores"][p] > r.elimination]
    for p in went_out:
        s["out"][p] = True
        s["exit_hand"][p] = s["hand_number"]
        events.append(event("out", seat=p, score=s["scores"][p]))
    still = _in(s)
    if not still:
        _finish(s, _all_out_winner(s, went_out, seat), "all_out", events)
        return
    if len(still) == 1:
        _finish(s, still[0], "last_seat", events)
        return
    offered = []
    if r.reentry != "off" and s["seats"] >= 3:
        offered = [p for p in went_out if (r.reentry == "unlimited" or s["reentries"][p] < 1) and _may_pay(s, p)]
    if offered:
        s["phase"] = "reentry"
        s["offers"] = {str(p): None for p in offered}
        s["reentry_score"] = max(s["scores"][p] for p in still)
        s["awaiting"] = sorted(offered)
        s["window"] += 1
        events.append(event("reentry_offer", seats=sorted(offered), score=s["reentry_score"]))
        return
    _next_hand(s, rng, events)


def _all_out_winner(s: State, went_out: list[int], closer: int) -> int:
    """rules file "end": lowest score; equal: the closer of that hand among them, else the first of them
    in play order from the mano."""
    low = min(s["scores"][p] for p in went_out)
    tied = [p for p in went_out if s["scores"][p] == low]
    if closer in tied:
        return closer
    order = play_order(range(s["seats"]), s["mano"])
    return min(tied, key=order.index)


def _next_hand(s: State, rng, events: list[Event]) -> None:
    """The next mano is the first seat still in after the previous mano's place; then deal."""
    s["mano"] = _next_in(s, s["mano"])
    _deal(s, rng, events)


def _answer_offer(s: State, seat: int, accept: bool, rng, events: list[Event]) -> None:
    """rules file "re-entry": one window for every offer; the next hand is dealt once all are answered."""
    s["offers"][str(seat)] = accept
    s["awaiting"] = [p for p in s["awaiting"] if p != seat]
    events.append(event("reenter", seat=seat, accept=accept))
    cost = reentry_cost(rules_of(s))
    if accept and cost:
        s["pot"] = s.get("pot", 0) + cost
        events.append(event("reentry_paid", seat=seat, amount=cost, pot=s["pot"]))
    _maybe_close_offers(s, rng, events)


def _maybe_close_offers(s: State, rng, events: list[Event]) -> None:
    if s["awaiting"]:
        return
    for key, accept in sorted(s["offers"].items(), key=lambda kv: int(kv[0])):
        p = int(key)
        if accept and not s["resigned"][p]:
            s["out"][p] = False
            s["scores"][p] = s["reentry_score"]
            s["reentries"][p] += 1
    _next_hand(s, rng, events)


def _resign(s: State, seat: int, rng, events: list[Event]) -> None:
    """rules file "Resigning": cards set aside face down until the next deal; play passes on; a pending
    re-entry offer is declined; one seat left in wins at once (reason ``resignations``)."""
    was_in = not s["out"][seat]
    s["resigned"][seat] = True
    s["resign_order"].append(seat)
    events.append(event("resign", seat=seat))
    if was_in:
        s["set_aside"].extend(s["hands"][seat])
        s["hands"][seat] = []
    still = _in(s)
    if was_in and len(still) == 1:
        _finish(s, still[0], "resignations", events)
        return
    phase = s["phase"]
    if phase == "reentry":
        if str(seat) in s["offers"]:
            s["offers"][str(seat)] = False
        s["awaiting"] = [p for p in s["awaiting"] if p != seat]
        _maybe_close_offers(s, rng, events)
    elif phase in ("draw", "discard") and s["turn"] == seat:
        _start_turn(s, _next_in(s, seat), events)


def _finish(s: State, winner: int, reason: str, events: list[Event]) -> None:
    """Final standing (rules file "end"): the winner; seats still in by score; the other seats that did not
    resign by the hand of their last exit (later better) then score; resigned seats, later higher."""
    still = sorted((p for p in _in(s) if p != winner), key=lambda p: (s["scores"][p], p))
    ordered: list[tuple[int, Any]] = [(winner, (0,))]
    ordered += [(p, (1, s["scores"][p])) for p in still]
    others = [
        p for p in range(s["seats"])
        if p != winner and p not in still and not s["resigned"][p]
    ]
    others.sort(key=lambda p: (-(s["exit_hand"][p] or 0), s["scores"][p], p))
    ordered += [(p, (2, -(s["exit_hand"][p] or 0), s["scores"][p])) for p in others]
    ordered += [(p, (3, i)) for i, p in enumerate(reversed(s["resign_order"]))]
    standing = [
        {"seat": p, "place": place, "score": s["scores"][p]} for p, place in standing_places(ordered)
    ]
    s["phase"] = "finished"
    s["awaiting"] = []
    s["turn"] = None
    s["offers"] = {}
    s["result"] = {"standing": standing, "reason": reason}
    if has_coins(rules_of(s)):
        pot = s.get("pot", 0)
        payouts = pot_payouts(pot, standing, s.get("stakers", []))
        s["result"]["pot"] = {"total": pot, "payouts": payouts}
        events.append(event("pot_won", pot=pot, payouts=copy_json(payouts)))
    events.append(event("game_end", standing=copy_json(standing), reason=reason))


# ----------------------------------------------------------------------------------------------- coins


def stake(state: State, seats: list[int]) -> tuple[State, list[Event]]:
    """At the start: each of ``seats`` (the host's paying seats: its human ones) puts the stake into the
    pot; they are the seats that may pay a re-entry. Returns ``(new state, [stake {seats, amount, pot}])``
    (no event with ``stake`` 0: only a re-entry fee, the pot starts empty); with no coins at all
    (:func:`has_coins`) the state unchanged. Never mutates ``state``. Raises ``InvalidAction`` for a seat
    not at the table."""
    rules = rules_of(state)
    if not has_coins(rules):
        return state, []
    amount = rules.stake
    seats = sorted(set(seats))
    if not all(_is_seat(state, p) for p in seats):
        raise InvalidAction(f"no such seats: {seats!r}")
    s = dict(state)
    s["stakers"] = seats
    s["pot"] = amount * len(seats)
    if not amount:
        return s, []
    return s, [event("stake", seats=list(seats), amount=amount, pot=s["pot"])]


def solvency_needed(state: State) -> int:
    """The coins a re-entry would cost when a transition from ``state`` may open re-entry offers (a
    staked game in its ``discard`` phase whose rules offer re-entry), else 0: the host then refreshes
    :func:`set_solvent` before applying it."""
    r = rules_of(state)
    if not reentry_cost(r) or r.reentry == "off" or state["seats"] < 3 or state["phase"] != "discard":
        return 0
    return reentry_cost(r)


def set_solvent(state: State, seats: list[int]) -> State:
    """A copy of ``state`` whose ``solvent`` seats (those that can pay a re-entry now) are ``seats``, for
    the next :func:`apply` only. ``state`` itself when a re-entry costs nothing."""
    if not reentry_cost(rules_of(state)):
        return state
    return {**state, "solvent": sorted(set(seats))}


def _may_pay(s: State, seat: int) -> bool:
    """Whether ``seat`` may be offered re-entry as far as coins go: always when it costs nothing; else a
    seat that staked (a paying seat at the start) and can pay."""
    if not reentry_cost(rules_of(s)):
        return True
    stakers = s.get("stakers", ())
    return seat in stakers and seat in s.get("solvent", stakers)


def pot_payouts(pot: int, standing: list[dict], stakers: list[int]) -> list[dict]:
    """How ``pot`` coins go: the stakers with the best place in ``standing`` share it, ``pot // n`` each,
    and the remainder one coin each to the sharers in seat order. ``[{seat, coins}]`` in seat order
    (``[]`` with no staker or an empty pot). E.g. pot 100, three sharers: seats 34, 33, 33."""
    places = {row["seat"]: row["place"] for row in standing}
    ranked = [p for p in stakers if p in places]
    if not pot or not ranked:
        return []
    best = min(places[p] for p in ranked)
    sharers = sorted(p for p in ranked if places[p] == best)
    share, rest = divmod(pot, len(sharers))
    return [{"seat": p, "coins": share + (1 if i < rest else 0)} for i, p in enumerate(sharers)]


# ------------------------------------------------------------------------------------------------ view


def view_for(state: State, seat: int | None) -> dict:
    """What ``seat`` (or a spectator, ``None``) sees (API.md "Games", ``table`` — chinchón).

    ``{"phase", "awaiting": [seat], "turn": seat | None, "players": [{"seat", "score", "resigned", "out",
    "reentries"}], "table": {"hand": own cards sorted O, C, E, B then rank, JK last (None for a
    spectator), "taken_from_discard": own card taken from the pile this turn or None, "hand_sizes":
    {seat: n}, "stock_size", "discard_pile": [card] bottom to top since the last restock, "pickups":
    [{"seat", "card"}] every card taken from the discard pile in this hand, oldest first (public: the
    pile's top is taken face up; kept across a restock, emptied at each deal), "turns": turns completed in
    this hand (discards; public; 0 at each deal, kept across a restock: how long the hand has gone on),
    "scores": {seat: points}, "mano",
    "hand_number", "first_round_complete", "reveal": {"hand_number", "closer", "seats": {seat: {"melds",
    "loose", "laid_off": [{"card", "onto": {"seat", "meld"}}], "points", "kind"?}}} | None (from a close
    until the next close), "pot": {"stake", "reentry_fee", "total", "stakers": [seat]} (only in a game with coins:
    coins each staker put in, coins a re-entry costs, coins in the pot now, the seats that staked)}, "result"}``. Never the stock's order,
    another seat's hand, the face-down card or cards set aside. A fresh copy.
    """
    own = _is_seat(state, seat)
    aw = sorted(state["awaiting"])
    n = state["seats"]
    view = {
        "phase": state["phase"],
        "awaiting": aw,
        "turn": aw[0] if len(aw) == 1 else None,
        "players": [
            {
                "seat": i, "score": state["scores"][i], "resigned": state["resigned"][i],
                "out": state["out"][i], "reentries": state["reentries"][i],
            }
            for i in range(n)
        ],
        "table": {
            "hand": sort_cards(state["hands"][seat]) if own else None,
            "taken_from_discard": state["taken_from_discard"] if own and state["turn"] == seat else None,
            "hand_sizes": {str(i): len(state["hands"][i]) for i in range(n)},
            "stock_size": len(state["stock"]),
            "discard_pile": list(state["discard"]),
            "pickups": [dict(p) for p in state.get("pickups") or ()],
            "turns": state.get("turns", 0),
            "scores": {str(i): state["scores"][i] for i in range(n)},
            "mano": state["mano"],
            "hand_number": state["hand_number"],
            "first_round_complete": _first_round_complete(state),
            "reveal": copy_json(state["reveal"]),
        },
        "result": copy_json(state["result"]),
    }
    rules = rules_of(state)
    if has_coins(rules):
        view["table"]["pot"] = {"stake": rules.stake, "reentry_fee": reentry_cost(rules), "total": state.get("pot", 0),
                                "stakers": list(state.get("stakers", []))}
    return view
