"""The one write path (DESIGN.md "One write path"): error order, locking, idempotency, hidden information."""

import json
import random
import threading
from collections import Counter

import pytest
from django.db import connection

from config.errors import ApiError
from games import selectors, services
from games.engine.cards import sort_cards
from games.engine.registry import get_engine
from games.models import Game, GameAction
from tests.factories import UserFactory
from tests.games.factories import GameFactory, human


def _err(fn, **kwargs) -> ApiError:
    with pytest.raises(ApiError) as info:
        fn(**kwargs)
    return info.value


def _snapshot(game):
    game.refresh_from_db()
    return (game.seq, json.dumps(game.state, sort_keys=True), GameAction.objects.filter(game=game).count())


def _two_humans():
    a, b = UserFactory(), UserFactory()
    return GameFactory(seats=[human(a), human(b)]), a, b


# ---------------------------------------------------------------------------------- start / view
@pytest.mark.django_db
def test_start_stores_seq0_row_and_view_shape():
    game, a, b = _two_humans()
    assert game.seq == 0 and game.status == "playing"
    row = GameAction.objects.get(game=game, seq=0)
    assert row.seat is None and row.by == "system"
    view = selectors.game_view(game=game, user=b)
    assert set(view) == {"id", "game", "seq", "status", "phase", "you", "turn", "awaiting", "deadline", "players",
                         "table", "legal_actions", "other_actions", "fairness", "result"}
    # first_dealer "seat": seat 0 deals, seat 1 bets first (rules/chinchirorin.md "The flow of a game").
    assert view["you"] == 1 and view["phase"] == "betting" and view["awaiting"] == [1] and view["turn"] == 1
    assert view["legal_actions"] == [{"type": "bet", "amount": x} for x in (10, 20, 50, 100)]
    assert view["other_actions"] == [{"type": "resign"}]
    assert view["deadline"] is None and view["result"] is None
    p = view["players"][1]
    assert p["display_name"] == b.display_name and p["points"] == 1000
    assert (p["connected"], p["cpu"], p["cpu_playing"], p["away"]) == (False, False, False, False)


@pytest.mark.django_db
def test_start_rejects_bad_rules_naming_the_field():
    err = _err(services.game_start, game="chinchirorin", rules={"pinzoro_multiplier": 11},
               seats=[human(), human()], turn_seconds=None, cpu_speed="normal", ranked=False, group="")
    assert (err.status_code, err.error_code) == (400, "invalid")
    assert "rules.pinzoro_multiplier" in err.fields
    err = _err(services.game_start, game="chinchirorin", rules={}, seats=[human()], turn_seconds=None,
               cpu_speed="normal", ranked=False, group="")
    assert "seats" in err.fields
    err = _err(services.game_start, game="chinchirorin", rules={}, seats=[human(), human()], turn_seconds=45,
               cpu_speed="normal", ranked=False, group="")
    assert "turn_seconds" in err.fields
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_shape_errors_come_before_the_lock_and_change_nothing():
    game, a, b = _two_humans()
    before = _snapshot(game)
    for body in ({"type": "bet"}, {"type": "bet", "amount": "10"}, {"type": "bet", "amount": True},
                 {"type": "fly"}, ["bet"], {"type": "bet", "amount": 10, "extra": 1}):
        err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=0, action=body)
        assert (err.status_code, err.error_code) == (400, "invalid_action"), body
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq="0", action={"type": "roll"})
    assert err.error_code == "invalid_action"
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=0,
               action={"type": "bet", "amount": 10}, action_id="x" * 65)
    assert err.error_code == "invalid_action"
    stranger = UserFactory()
    err = _err(services.game_apply_action, game_id=game.pk, actor=stranger, expected_seq=0, action={"type": "fly"})
    assert (err.status_code, err.error_code) == (403, "not_a_player")
    err = _err(services.game_apply_action, game_id=game.pk + 99, actor=b, expected_seq=0, action={"type": "fly"})
    assert (err.status_code, err.error_code) == (404, "not_found")
    assert _snapshot(game) == before


# --------------------------------------------------------------------------- under the lock (PG)
@pytest.mark.postgres
@pytest.mark.django_db
def test_stale_seq_is_409_with_current_seq_and_view_and_changes_nothing():
    game, a, b = _two_humans()
    before = _snapshot(game)
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=3, action={"type": "bet", "amount": 10})
    assert (err.status_code, err.error_code) == (409, "stale_seq")
    body = err.body()
    assert body["seq"] == 0 and body["view"]["you"] == 1 and body["view"]["seq"] == 0
    assert _snapshot(game) == before


@pytest.mark.postgres
@pytest.mark.django_db
def test_not_your_turn_is_409_and_illegal_is_400():
    game, a, b = _two_humans()
    before = _snapshot(game)
    # Seat 0 deals: a bet is in neither of its lists.
    err = _err(services.game_apply_action, game_id=game.pk, actor=a, expected_seq=0, action={"type": "bet", "amount": 10})
    assert (err.status_code, err.error_code) == (409, "not_your_turn")
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=0, action={"type": "roll"})
    assert (err.status_code, err.error_code) == (409, "not_your_turn")
    # A bet of 30 is not among the options 10/20/50/100.
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=0, action={"type": "bet", "amount": 30})
    assert (err.status_code, err.error_code) == (400, "illegal_action")
    assert _snapshot(game) == before
    view = services.game_apply_action(game_id=game.pk, actor=b, expected_seq=0, action={"type": "bet", "amount": 20})
    assert view["seq"] == 1 and view["table"]["bets"] == {"1": 20}  # betting closed: the hand rolls
    assert view["phase"] == "rolling"
    row = GameAction.objects.get(game=game, seq=1)
    assert (row.seat, row.by, row.user_id, row.action) == (1, "player", b.pk, {"type": "bet", "amount": 20})


@pytest.mark.postgres
@pytest.mark.django_db
def test_game_over_is_409():
    game, a, b = _two_humans()
    services.game_apply_action(game_id=game.pk, actor=a, expected_seq=0, action={"type": "resign"})
    game.refresh_from_db()
    assert game.status == "finished" and game.result["reason"] == "resignations"
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=1, action={"type": "resign"})
    assert (err.status_code, err.error_code) == (409, "game_over")


@pytest.mark.postgres
@pytest.mark.django_db
def test_action_id_replays_the_first_answer_and_rejects_another_body():
    game, a, b = _two_humans()
    body = {"type": "bet", "amount": 50}
    first = services.game_apply_action(game_id=game.pk, actor=b, expected_seq=0, action=body, action_id="k1")
    again = services.game_apply_action(game_id=game.pk, actor=b, expected_seq=0, action=body, action_id="k1")
    assert again == first
    assert GameAction.objects.filter(game=game).count() == 2  # start + one bet
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=0,
               action={"type": "bet", "amount": 10}, action_id="k1")
    assert (err.status_code, err.error_code) == (409, "action_id_reused")
    err = _err(services.game_apply_action, game_id=game.pk, actor=b, expected_seq=1, action=body, action_id="k1")
    assert err.error_code == "action_id_reused"  # the seq is part of the body
    # Another user may use the same key: it is scoped to game and user.
    err = _err(services.game_apply_action, game_id=game.pk, actor=a, expected_seq=0, action={"type": "roll"},
               action_id="k1")
    assert err.error_code == "stale_seq"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("action_id", [None, "same"])
def test_the_same_action_from_two_threads_is_applied_once(action_id):
    game, a, b = _two_humans()
    barrier = threading.Barrier(2)
    answers = []

    def post():
        try:
            barrier.wait()
            answers.append(services.game_apply_action(game_id=game.pk, actor=b, expected_seq=0,
                                                      action={"type": "bet", "amount": 10}, action_id=action_id))
        except ApiError as exc:
            answers.append(exc.error_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert GameAction.objects.filter(game=game).exclude(seq=0).count() == 1
    game.refresh_from_db()
    assert game.seq == 1
    views = [x for x in answers if isinstance(x, dict)]
    if action_id is None:
        assert sorted(map(str, answers)).count("stale_seq") == 1 and len(views) == 1
    else:
        assert len(views) == 2 and views[0] == views[1]


# --------------------------------------------------------------------------- hidden information
def _strings(obj):
    """Every string anywhere in a JSON value."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _without_reveal(obj):
    """A view or payload without the last close's ``reveal`` (cards of a hand already over, which are
    dealt again in the next hand and so may legitimately share codes with today's hidden cards)."""
    if isinstance(obj, dict):
        return {k: _without_reveal(v) for k, v in obj.items() if k != "reveal" and obj.get("type") != "reveal"}
    if isinstance(obj, list):
        return [_without_reveal(v) for v in obj if not (isinstance(v, dict) and v.get("type") in ("reveal", "score"))]
    return obj


def _secret_cards(state, seat, public):
    """With one deck and no jokers every card code is unique: what ``seat`` must not see while a hand is
    played: the stock, the face-down card and the other seats' hands, less the cards shown to everyone in
    this deal (a card taken from the discard pile is known to be in the taker's hand)."""
    if state.get("phase") not in ("draw", "discard"):
        return set(state.get("stock", [])) - public
    out = set(state["stock"])
    if state.get("face_down"):
        out.add(state["face_down"])
    for other, hand in enumerate(state["hands"]):
        if other != seat:
            out.update(hand)
    return out - public


def _public_cards(game, seq, public):
    """Add the card codes of the public events of ``seq`` to ``public``; a new deal starts it afresh."""
    for row in GameAction.objects.filter(game=game, seq=seq):
        for ev in row.events:
            if ev["type"] == "deal":
                public.clear()
            if ev.get("audience") == "all" and ev["type"] not in ("reveal", "score"):
                public.update(_strings(ev))
    return public


def _engines():
    out = []
    for name in ("chinchirorin", "chinchon"):
        try:
            get_engine(name)
            out.append(name)
        except Exception:
            pass
    return out


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("name", _engines())
def test_no_view_or_broadcast_shows_another_seats_hand_or_the_stock(name, sent, monkeypatch):
    # A fixed seed keeps the game's length (and the test's time) the same on every run.
    monkeypatch.setattr("games.engine.rng.new_seed", lambda: bytes([29]) * 32)
    rng = random.Random(7)
    users = [UserFactory() for _ in range(3)]
    rules = {"first_dealer": "roll"} if name == "chinchirorin" else {"jokers": 0, "elimination": 50}
    game = GameFactory(game=name, rules=rules, seats=[human(u) for u in users])
    engine = get_engine(name)
    public = _public_cards(game, 0, set())
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != "playing":
            break
        state = game.state
        _public_cards(game, game.seq, public)
        views = {s: selectors.game_view(game=game, user=u) for s, u in enumerate(users)}
        for s, view in views.items():
            assert view["fairness"]["seed"] is None
            leaked = set(_strings(_without_reveal(view))) & _secret_cards(state, s, public) if name == "chinchon" else set()
            assert not leaked, (s, leaked, view)
        for group, msg in sent:
            if "-seat-" in group:
                s = int(group.rsplit("-", 1)[1])
                assert msg["payload"]["view"]["you"] == s
                if name == "chinchon":
                    assert not set(_strings(_without_reveal(msg["payload"]))) & _secret_cards(state, s, public), msg
        sent.clear()
        seat = engine.awaiting(engine.from_dict(state))[0]
        legal = views[seat]["legal_actions"]
        # Mostly the engine's sensible default (hands end by a close), sometimes any legal action.
        action = engine.default_action(engine.from_dict(state), seat) if rng.random() < 0.9 else rng.choice(legal)
        services.game_apply_action(game_id=game.pk, actor=users[seat], expected_seq=game.seq, action=action)
    game.refresh_from_db()
    assert game.status == "finished"
    final = selectors.game_view(game=game, user=users[0])
    assert final["fairness"]["seed"] == bytes(game.seed).hex()


# ------------------------------------------- hidden information: whole Chinchón games, every way out
def _cards_in(obj) -> list[str]:
    """Every card code anywhere in a JSON value (keys included), with repeats."""
    from games.engine.cards import is_card_code

    return [s for s in _strings(obj) if is_card_code(s)]


def _reveal_cards(reveal: dict) -> list[str]:
    out = []
    for seat in reveal["seats"].values():
        out += [c for meld in seat["melds"] for c in meld] + list(seat["loose"])
        out += [lo["card"] for lo in seat["laid_off"]]
    return out


def _unseen(state: dict, seat: int | None) -> set[str]:
    """Card codes ``seat`` (``None``: a spectator) may not see in ``state`` (stock, face-down card, cards set
    aside, other hands until a close of this hand shows them), less every code it may see (its hand, the
    discard pile, the public pick-ups, this hand's reveal): with jokers a code can be both."""
    hidden = set(state["stock"]) | set(state.get("set_aside") or [])
    if state.get("face_down"):
        hidden.add(state["face_down"])
    reveal = state.get("reveal")
    shown = reveal is not None and reveal["hand_number"] == state["hand_number"]
    if not shown:
        for other, hand in enumerate(state["hands"]):
            if other != seat:
                hidden.update(hand)
    seen = (set(state["hands"][seat]) if seat is not None else set()) | set(state["discard"])
    seen |= {p["card"] for p in state.get("pickups") or []}
    if shown:
        seen |= set(_reveal_cards(reveal))
    return hidden - seen


_NO_CARDS = {"mano", "turn", "restock", "close", "score", "out", "reentry_offer", "reenter", "resign", "game_end",
             "game_aborted"}


def _check_event(ev: dict, seat: int, before: dict, action: dict, actor: int, reveals: dict) -> None:
    """What an event of the seq whose previous state is ``before`` (``actor``'s ``action``) may show
    ``seat``, from the rules of the game, not from the engine's audiences."""
    kind = ev["type"]
    cards = _cards_in({k: v for k, v in ev.items() if k not in ("seq", "index", "by")})
    if kind in _NO_CARDS:
        assert not cards, ev
    elif kind == "hand":
        assert ev["seat"] == seat, ("another seat's deal", seat, ev)
    elif kind == "drawn":
        assert ev["seat"] == seat == actor and action == {"type": "draw", "source": "stock"}, (seat, ev)
    elif kind == "draw":
        if ev["source"] == "discard":
            assert cards == [before["discard"][-1]], ev
        else:
            assert not cards, ev
    elif kind == "discard":
        assert cards == [action["card"]] and ev["seat"] == actor, ev
    elif kind == "deal":
        assert len(cards) == 1 and ev["discard"] == cards[0], ev
    elif kind == "reveal":
        assert Counter(_reveal_cards(ev)) == reveals[ev["hand_number"]], ("reveal is not the hands less the "
                                                                          "face-down card", ev)
    else:
        raise AssertionError(f"an event type this test does not know: {ev}")


def _check_logged(ev: dict, seat: int, before: dict, reveals: dict) -> None:
    """:func:`_check_event` for a logged event; seq 0 is the first deal."""
    if ev["seq"] == 0:
        assert ev["type"] in ("mano", "deal", "hand", "turn") and (ev["type"] != "hand" or ev["seat"] == seat), ev
        assert ev["type"] != "deal" or len(_cards_in(ev)) == 1, ev
    else:
        _check_event(ev, seat, *before[ev["seq"]], reveals)


def _check_view(view: dict, seat: int | None, state: dict, reveals: dict, game) -> None:
    """A seat's view, or a spectator's (``seat`` None: no hand, no card taken, no action)."""
    table = view["table"]
    assert view["you"] == seat
    if seat is None:
        assert table["hand"] is None and table["taken_from_discard"] is None, table
        assert view["legal_actions"] == view["other_actions"] == []
    else:
        assert table["hand"] == sort_cards(state["hands"][seat])
    assert table["discard_pile"] == state["discard"]
    leaked = set(_cards_in({**view, "table": {k: v for k, v in table.items() if k != "reveal"}})) & _unseen(state, seat)
    assert not leaked, (seat, leaked, view)
    if table.get("reveal"):
        assert Counter(_reveal_cards(table["reveal"])) == reveals[table["reveal"]["hand_number"]], table["reveal"]
    if view["status"] == "playing":
        assert view["fairness"]["seed"] is None
        assert bytes(game.seed).hex() not in json.dumps(view)


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(("seats", "rules", "resign"), [
    (2, {"jokers": 2, "elimination": 50}, None),
    (4, {"jokers": 2, "elimination": 50, "reentry": "once"}, 2),
])
def test_chinchon_hidden_cards_never_reach_a_seat_in_views_logs_or_socket_messages(seats, rules, resign, sent,
                                                                                  monkeypatch, make_client):
    """Whole games with jokers (2 and 4 seats; closes, re-entry offers, a resignation mid-hand): at every
    seq each seat's view (service and REST), each socket message and, at the end, each seat's whole log
    (REST, every page) are checked against what that seat could know from the rules: its own hand, the
    discard pile and pick-ups, the reveal of a close (exactly the hands less the face-down card); never the
    stock, another hand, the face-down card or cards set aside. A spectator (the room lets users watch) is
    checked the same way on every path — REST view, the spectators' socket messages, the whole log — with
    no hand of its own. The seed stays null until the end."""
    from rooms.models import Room, Seat, Spectator

    monkeypatch.setattr("games.engine.rng.new_seed", lambda: bytes([41 + seats]) * 32)
    rng = random.Random(seats)
    users = [UserFactory() for _ in range(seats)]
    clients = [make_client(u) for u in users]
    game = GameFactory(game="chinchon", rules=rules, seats=[human(u) for u in users])
    room = Room.objects.create(code="WATCH2", host=users[0], game_name="chinchon", seat_count=seats, rules=rules,
                               status="playing", game=game, spectators_allowed=True)
    Seat.objects.bulk_create([Seat(room=room, index=i, user=u) for i, u in enumerate(users)])
    watcher_user = UserFactory()
    watcher = make_client(watcher_user)
    Spectator.objects.create(room=room, user=watcher_user, connections=1)  # its socket is open: shares built
    engine = get_engine("chinchon")
    before = {}  # seq -> (state before it, action, actor)
    reveals: dict[int, Counter] = {}
    resigned_mid_hand = False
    for step in range(3000):
        game.refresh_from_db()
        state = game.state
        if step % 3 == 0:  # every seat's service view is in the broadcasts below
            rest = clients[step % seats].get(f"/api/games/{game.pk}").json()
            _check_view(rest, step % seats, state, reveals, game)
            _check_view(watcher.get(f"/api/games/{game.pk}").json(), None, state, reveals, game)
        assert {g.rsplit("-", 1)[1] for g, _ in sent} == {str(s) for s in range(seats)} | {"spectators"}
        for group, msg in sent:
            s = None if group.endswith("-spectators") else int(group.rsplit("-", 1)[1])
            payload = msg["payload"]
            assert payload["view"]["seq"] == game.seq  # on_commit runs at once in these tests
            _check_view(payload["view"], s, state, reveals, game)
            for ev in payload["events"]:
                _check_logged(ev, s, before, reveals)
        sent.clear()
        if game.status != "playing":
            break
        st = engine.from_dict(state)
        if resign is not None and not resigned_mid_hand and step > 30 and state["phase"] == "discard" \
                and state["turn"] != resign and not state["out"][resign]:
            seat, action = resign, {"type": "resign"}
            resigned_mid_hand = True
            assert state["hands"][resign], "a resignation with cards in hand"
        else:
            seat = engine.awaiting(st)[0]
            legal = engine.legal_actions(st, seat)
            action = engine.default_action(st, seat) if rng.random() < 0.85 else rng.choice(legal)
        if action["type"] == "close":
            reveals[state["hand_number"]] = Counter(c for hand in state["hands"] for c in hand) - Counter([action["card"]])
        before[game.seq + 1] = (state, action, seat)
        services.game_apply_action(game_id=game.pk, actor=users[seat], expected_seq=game.seq, action=action)
    game.refresh_from_db()
    assert game.status == "finished" and reveals and (resign is None or resigned_mid_hand)
    final = selectors.game_view(game=game, seat=0)
    assert final["fairness"]["seed"] == bytes(game.seed).hex()
    for s, client in [*enumerate(clients), (None, watcher)]:
        after, count = -1, 0
        while True:
            page = client.get(f"/api/games/{game.pk}/log?after={after}").json()
            for ev in page["events"]:
                _check_logged(ev, s, before, reveals)
                assert bytes(game.seed).hex() not in json.dumps(ev)
                count += 1
            if not page["more"]:
                break
            after = page["next_after"]
        assert count > game.seq
