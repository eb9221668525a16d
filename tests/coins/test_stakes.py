"""Stakes and the pot through the games write path: who pays at the start, a start refused before the
game begins, the pot to the winner, refunds on abort, ranked stakes among friends, paid re-entry in the
action's transaction, and a whole staked game played over the REST API."""

import io

import pytest
from django.core.management import call_command
from django.db.models import Sum

from coins.models import LedgerEntry, Wallet
from coins.services import wallet_move
from config.errors import ApiError
from games import locking, selectors, services
from games.engine import chinchon as C
from games.models import Game, GameAction
from rooms.models import Room
from tests.factories import UserFactory
from tests.games.engine.test_chinchon_game import EXAMPLE7, LOSER, OTHER, rig
from tests.games.factories import GameFactory, cpu, human

pytestmark = pytest.mark.django_db


def balance(user) -> int:
    return Wallet.objects.get(pk=user.pk).balance


def ledger(user) -> list[tuple[int, str]]:
    return list(LedgerEntry.objects.filter(wallet_id=user.pk).exclude(reason="start_grant").order_by("id")
                .values_list("amount", "reason"))


def assert_books_balance(*users) -> None:
    for u in users:
        assert balance(u) == LedgerEntry.objects.filter(wallet_id=u.pk).aggregate(s=Sum("amount"))["s"]


def staked_game(users, rules, seats=None):
    return GameFactory(game="chinchon", rules=rules, seats=seats or [human(u) for u in users])


def rig_game(game, state) -> None:
    """Replace a started game's state by a rigged one (its stake bookkeeping kept)."""
    old = game.state
    state = dict(state, pot=old["pot"], stakers=old["stakers"])
    Game.objects.filter(pk=game.pk).update(state=state, window=state["window"])
    game.refresh_from_db()


def test_human_seats_pay_the_stake_cpu_seats_do_not():
    a, b = UserFactory(), UserFactory()
    game = staked_game([], {"preset": "traditional", "stake": 25}, seats=[human(a), cpu(), human(b)])
    assert balance(a) == balance(b) == 475
    assert ledger(a) == [(-25, "stake")] and LedgerEntry.objects.get(wallet_id=a.pk, reason="stake").game_id == game.pk
    start = GameAction.objects.get(game=game, seq=0).events
    assert start[0] == {"type": "stake", "audience": "all", "seats": [0, 2], "amount": 25, "pot": 50}
    view = selectors.game_view(game=game, user=a)
    assert view["table"]["pot"] == {"stake": 25, "reentry_fee": 25, "total": 50, "stakers": [0, 2]}


def test_an_unstaked_game_moves_no_coins():
    a, b = UserFactory(), UserFactory()
    game = staked_game([a, b], {"preset": "traditional"})
    assert ledger(a) == ledger(b) == [] and "pot" not in game.state
    assert all(e["type"] != "stake" for e in GameAction.objects.get(game=game, seq=0).events)


def test_a_start_a_seat_cannot_pay_is_refused_and_charges_nothing(make_client):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    wallet_move(user_id=c.pk, amount=-490, reason="adjustment", note="test")  # 10 left
    host = make_client(a)
    room = host.post("/api/rooms", {"game": "chinchon", "seats": 4, "rules": {"preset": "traditional", "stake": 25}},
                     format="json").json()
    assert room["rules"]["stake"] == 25
    for u in (b, c):
        assert make_client(u).post(f"/api/rooms/{room['code']}/join").status_code == 200
    res = host.post(f"/api/rooms/{room['code']}/start")
    assert res.status_code == 409, res.json()
    body = res.json()
    assert (body["code"], body["seats"], body["needed"]) == ("insufficient_coins", [2], 25)
    assert Game.objects.count() == 0 and ledger(a) == ledger(b) == []
    r = Room.objects.get(code=room["code"])
    assert r.status == "open" and not r.seats.filter(cpu=True).exists()  # the CPU fill rolled back too
    host.patch(f"/api/rooms/{room['code']}", {"rules": {"preset": "traditional", "stake": 10}}, format="json")
    assert host.post(f"/api/rooms/{room['code']}/start").status_code == 201
    assert (balance(a), balance(b), balance(c)) == (490, 490, 0)


def test_an_aborted_game_refunds_every_stake_and_reentry():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = staked_game([a, b, c], {"preset": "traditional", "stake": 50})
    wallet_move(user_id=b.pk, amount=-50, reason="reentry", key=f"reentry:{game.pk}:7", game_id=game.pk)
    assert services.game_abort(game_id=game.pk, reason="test")
    assert services.game_abort(game_id=game.pk, reason="again") is False
    assert (balance(a), balance(b), balance(c)) == (500, 500, 500)
    assert ledger(b) == [(-50, "stake"), (-50, "reentry"), (100, "refund")]
    game.refresh_from_db()
    refunds = [{"seat": 0, "coins": 50}, {"seat": 1, "coins": 100}, {"seat": 2, "coins": 50}]
    assert game.result == {"standing": [], "reason": "aborted", "pot": {"total": 200, "refunds": refunds}}
    assert selectors.game_view(game=game, user=a)["result"] == game.result
    events = GameAction.objects.get(game=game, seq=game.seq).events
    assert events[-1] == {"type": "pot_refunded", "audience": "all", "refunds": refunds}
    call_command("replay_game", game.pk, stdout=io.StringIO())
    assert_books_balance(a, b, c)


def test_ranked_stakes_only_among_friends(make_client):
    from ranking.services import friendship_make

    a, b, c = UserFactory(), UserFactory(), UserFactory()
    host = make_client(a)
    room = host.post("/api/rooms", {"game": "chinchon", "seats": 3, "ranked": True,
                                    "rules": {"preset": "traditional", "stake": 10}}, format="json").json()
    for u in (b, c):
        make_client(u).post(f"/api/rooms/{room['code']}/join")
        friendship_make(user_a_id=a.pk, user_b_id=u.pk, source="invite")
    res = host.post(f"/api/rooms/{room['code']}/start")  # b and c are not friends of each other
    assert (res.status_code, res.json()["code"]) == (409, "stakes_friends_only")
    assert ledger(a) == []
    friendship_make(user_a_id=b.pk, user_b_id=c.pk, source="request")
    assert host.post(f"/api/rooms/{room['code']}/start").status_code == 201
    assert balance(a) == balance(b) == balance(c) == 490


def _reentry_game(users, stake):
    """A 3-seat traditional game rigged so that seat 0's close puts seat 1 out (70 + 40 > 100)."""
    game = staked_game(users, {"preset": "traditional", "stake": stake})
    s = rig({"preset": "traditional", "stake": stake}, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"],
            scores=[10, 70, 20])
    rig_game(game, s)
    a = users[0]
    services.game_apply_action(game_id=game.pk, actor=a, expected_seq=0, action={"type": "draw", "source": "stock"})
    return game


def test_paid_reentry_in_the_action_transaction():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = _reentry_game([a, b, c], 25)
    view = services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    assert view["phase"] == "reentry" and view["awaiting"] == [1]
    wallet_move(user_id=b.pk, amount=-460, reason="adjustment", note="spent elsewhere")  # 475 -> 15
    with pytest.raises(ApiError) as exc:
        services.game_apply_action(game_id=game.pk, actor=b, expected_seq=2, action={"type": "reenter", "accept": True})
    assert exc.value.error_code == "insufficient_coins"
    game.refresh_from_db()
    assert game.seq == 2 and game.state["phase"] == "reentry" and balance(b) == 15
    wallet_move(user_id=b.pk, amount=10, reason="adjustment", note="back")  # 25: exactly the cost
    view = services.game_apply_action(game_id=game.pk, actor=b, expected_seq=2, action={"type": "reenter", "accept": True})
    assert view["table"]["pot"]["total"] == 100 and balance(b) == 0  # 3 x 25 + 25
    assert ledger(b)[-1] == (-25, "reentry")
    assert LedgerEntry.objects.get(wallet_id=b.pk, reason="reentry").key == f"reentry:{game.pk}:3"
    assert_books_balance(a, b, c)


def test_no_reentry_offer_to_a_seat_that_cannot_pay():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = _reentry_game([a, b, c], 25)
    wallet_move(user_id=b.pk, amount=-460, reason="adjustment", note="spent")  # 15 < 25
    view = services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    assert view["phase"] == "draw" and view["players"][1]["out"] is True
    assert not any(e["type"] == "reentry_offer" for e in GameAction.objects.get(game=game, seq=2).events)


def test_a_played_for_seat_never_pays_for_reentry(monkeypatch):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = _reentry_game([a, b, c], 25)
    services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    Game.objects.filter(pk=game.pk).update(deadline=locking._now())
    services.game_handle_timeout(game_id=game.pk, seq=2, heartbeat=None)
    game.refresh_from_db()
    assert game.state["phase"] == "draw" and game.state["out"][1] and balance(b) == 475


# -------------------------------------------------------------------- a whole game over the REST API
@pytest.mark.parametrize("established", [True, False])
def test_a_whole_staked_game_over_the_api(make_client, monkeypatch, settings, established):
    """Three players, traditional with a random first mano, elimination 50, stake 10. Each seat plays the engine's default (a scripted
    client); a seat's first re-entry offer is accepted, later ones declined. With this seed (182 actions)
    seats 0 and 2 re-enter once each and seat 1 wins: pot 3 x 10 + 2 x 10 = 50. Established players (no
    age or games asked here): the balances end 500 - 20 = 480, 500 - 10 + 50 = 540 and 480 (1500 in all:
    coins are conserved). Accounts new to the site (the default thresholds): nobody can win their coins,
    so the losers are refunded what they paid, the winner's pot is its own stake (docs/economy.md), and all
    end at 500."""
    if established:
        settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0
    monkeypatch.setattr("games.engine.rng.new_seed", lambda: bytes([22]) * 32)
    users = [UserFactory() for _ in range(3)]
    clients = [make_client(u) for u in users]
    room = clients[0].post("/api/rooms", {"game": "chinchon", "seats": 3,
                                          "rules": {"preset": "traditional", "stake": 10, "elimination": 50,
                                                    "first_mano": "random"}},  # the seed's game as it was
                           format="json").json()
    for cl in clients[1:]:
        cl.post(f"/api/rooms/{room['code']}/join")
    game_id = clients[0].post(f"/api/rooms/{room['code']}/start").json()["game_id"]
    assert [balance(u) for u in users] == [490, 490, 490]
    accepted = set()
    for _ in range(3000):
        game = Game.objects.get(pk=game_id)
        if game.status != "playing":
            break
        state = C.from_dict(game.state)
        seat = C.awaiting(state)[0]
        action = C.default_action(state, seat)
        if action["type"] == "reenter" and seat not in accepted:
            action, _ = {"type": "reenter", "accept": True}, accepted.add(seat)
        res = clients[seat].post(f"/api/games/{game_id}/actions", {**action, "seq": game.seq}, format="json")
        assert res.status_code == 200, res.json()
    view = clients[0].get(f"/api/games/{game_id}").json()
    assert view["status"] == "finished" and accepted == {0, 2}
    assert view["result"]["standing"][0]["seat"] == 1
    assert view["result"]["pot"] == {"total": 50, "payouts": [{"seat": 1, "coins": 50}]}
    assert view["table"]["pot"] == {"stake": 10, "reentry_fee": 10, "total": 50, "stakers": [0, 1, 2]}
    if established:
        assert [balance(u) for u in users] == [480, 540, 480]
        assert ledger(users[0]) == [(-10, "stake"), (-10, "reentry")]
        assert ledger(users[1]) == [(-10, "stake"), (50, "pot")]
    else:
        assert [balance(u) for u in users] == [500, 500, 500]
        assert ledger(users[0]) == [(-10, "stake"), (-10, "reentry"), (20, "refund")]
        assert ledger(users[1]) == [(-10, "stake"), (10, "pot")]  # the winner's pot: its own stake alone
    assert_books_balance(*users)
    kinds, after = [], -1
    while True:
        page = clients[1].get(f"/api/games/{game_id}/log?after={after}").json()
        kinds += [e["type"] for e in page["events"]]
        if not page["more"]:
            break
        after = page["next_after"]
    assert kinds[0] == "stake" and kinds.count("reentry_paid") == 2 and kinds[-2:] == ["pot_won", "game_end"]
    out = io.StringIO()
    call_command("replay_game", game_id, stdout=out)  # the pot replays from the seed and the log too
    assert "same state and result" in out.getvalue()


def test_the_stake_setting_is_in_the_catalogue_and_validated(api, make_client):
    games = api.get("/api/games/catalogue").json()["games"]
    chinchon = next(g for g in games if g["id"] == "chinchon")
    stake = next(s for s in chinchon["settings"] if s["name"] == "stake")
    assert (stake["type"], stake["default"]) == ("choice", 0)
    assert stake["presets"] == {"standard": 0, "traditional": 0, "wild_ace": 0}
    assert [c["value"] for c in stake["choices"]] == [0, 10, 25, 50, 100]
    dice = next(g for g in games if g["id"] == "chinchirorin")
    assert all(s["name"] != "stake" for s in dice["settings"])
    res = make_client(UserFactory()).post("/api/rooms", {"game": "chinchon", "rules": {"stake": 30}}, format="json")
    assert res.status_code == 400 and "rules.stake" in res.json()["fields"]


# ------------------------------------------------------------------------ the re-entry fee (issue #39)
def _fee_game(users, fee, seats=None):
    """A 3-seat traditional game with no stake and a re-entry fee of ``fee``, rigged as :func:`_reentry_game`."""
    rules = {"preset": "traditional", "reentry_fee": fee}
    game = staked_game(users, rules, seats=seats)
    rig_game(game, rig(rules, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"], scores=[10, 70, 20]))
    services.game_apply_action(game_id=game.pk, actor=users[0], expected_seq=0,
                               action={"type": "draw", "source": "stock"})
    return game


def test_wild_ace_reentry_costs_25_coins_by_default():
    assert C.reentry_cost(C.validate_rules({"preset": "wild_ace"})) == 25  # seed 003: "pay the necessary coins"
    assert C.reentry_cost(C.validate_rules({"preset": "traditional"})) == 0  # the stake, 0 by default
    assert C.reentry_cost(C.validate_rules({"preset": "traditional", "stake": 50})) == 50
    assert C.reentry_cost(C.validate_rules({"preset": "wild_ace", "stake": 50, "reentry_fee": 0})) == 0


def test_a_fee_alone_charges_nothing_at_the_start_then_the_reentry_through_the_ledger():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = _fee_game([a, b, c], 10)
    assert ledger(a) == ledger(b) == ledger(c) == [] and balance(b) == 500
    assert game.state["stakers"] == [0, 1, 2] and game.state["pot"] == 0
    view = services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    assert (view["phase"], view["awaiting"]) == ("reentry", [1])
    assert view["table"]["pot"] == {"stake": 0, "reentry_fee": 10, "total": 0, "stakers": [0, 1, 2]}
    wallet_move(user_id=b.pk, amount=-495, reason="adjustment", note="spent elsewhere")  # 5 < 10
    with pytest.raises(ApiError) as exc:
        services.game_apply_action(game_id=game.pk, actor=b, expected_seq=2, action={"type": "reenter", "accept": True})
    assert (exc.value.error_code, exc.value.status_code) == ("insufficient_coins", 409)
    game.refresh_from_db()
    assert game.seq == 2 and game.state["phase"] == "reentry" and balance(b) == 5
    wallet_move(user_id=b.pk, amount=5, reason="adjustment", note="back")  # 10: exactly the fee
    view = services.game_apply_action(game_id=game.pk, actor=b, expected_seq=2, action={"type": "reenter", "accept": True})
    assert view["table"]["pot"]["total"] == 10 and balance(b) == 0 and not view["players"][1]["out"]
    assert ledger(b)[-1] == (-10, "reentry")
    assert_books_balance(a, b, c)


def test_a_fee_is_never_offered_to_a_cpu_seat():
    a, c = UserFactory(), UserFactory()
    game = _fee_game([a, None, c], 10, seats=[human(a), cpu(), human(c)])
    assert game.state["stakers"] == [0, 2]
    view = services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    assert view["phase"] == "draw" and view["players"][1]["out"] is True  # no offer: the next hand is dealt


def test_a_fee_is_never_offered_to_a_seat_its_player_left():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    game = _fee_game([a, b, c], 10)
    game.players.filter(seat=1).update(left=True)
    view = services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    assert view["phase"] == "draw" and view["players"][1]["out"] is True
    assert balance(b) == 500


def test_the_reentry_fee_setting_in_the_catalogue(api):
    chinchon = next(g for g in api.get("/api/games/catalogue").json()["games"] if g["id"] == "chinchon")
    fee = next(s for s in chinchon["settings"] if s["name"] == "reentry_fee")
    assert (fee["type"], fee["default"]) == ("choice", None)
    assert fee["presets"] == {"standard": None, "traditional": None, "wild_ace": 25}
    assert [c["value"] for c in fee["choices"]] == [None, 0, 10, 25, 50, 100]
