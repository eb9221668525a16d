"""The one write path (DESIGN.md "One write path"): error order, locking, idempotency, hidden information."""

import json
import random
import threading

import pytest
from django.db import connection

from config.errors import ApiError
from games import services
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
    view = services.game_view(game=game, user=b)
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
        views = {s: services.game_view(game=game, user=u) for s, u in enumerate(users)}
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
    final = services.game_view(game=game, user=users[0])
    assert final["fairness"]["seed"] == bytes(game.seed).hex()
