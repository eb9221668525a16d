"""Fairness anyone can check (API.md "fairness"): commitment = sha256(seed), the seed revealed at the end,
and ``replay_game`` reproducing the result from seed and log."""

import hashlib
import hmac
import random

import pytest
from django.core.management import CommandError, call_command

from games import selectors, services
from games.models import GameAction
from tests.factories import UserFactory
from tests.games.factories import GameFactory, cpu, human

pytestmark = pytest.mark.django_db


def _play_out(game):
    services.game_player_left(game_id=game.pk, user=game.players.get(seat=0).user)
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != "playing":
            return
        services.game_bot_play(game_id=game.pk, seq=game.seq)
    raise AssertionError("the game did not end")


def test_commitment_from_the_start_seed_only_at_the_end():
    a = UserFactory()
    game = GameFactory(seats=[human(a), cpu()], rules={"first_dealer": "roll"})
    seed = bytes(game.seed)
    view = selectors.game_view(game=game, user=a)
    assert view["fairness"] == {"commitment": hashlib.sha256(seed).hexdigest(), "seed": None,
                                "scheme": "hmac-sha256-seq-v1"}
    assert seed.hex() not in str(view)
    _play_out(game)
    view = selectors.game_view(game=game, user=a)
    assert view["fairness"]["seed"] == seed.hex() and len(view["fairness"]["seed"]) == 64
    assert hashlib.sha256(bytes.fromhex(view["fairness"]["seed"])).hexdigest() == view["fairness"]["commitment"]


def test_the_first_dealer_die_follows_the_published_scheme():
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)], rules={"first_dealer": "roll"})
    services.game_apply_action(game_id=game.pk, actor=a, expected_seq=0, action={"type": "roll"})
    row = GameAction.objects.get(game=game, seq=1)
    # The rng of the transition producing seq 1: Random(int(hmac_sha256(seed, "1"))), one die = randint(1, 6).
    digest = hmac.new(bytes(game.seed), b"1", hashlib.sha256).digest()
    die = random.Random(int.from_bytes(digest, "big")).randint(1, 6)
    assert row.events[0]["type"] == "first_dealer_roll" and row.events[0]["die"] == die


@pytest.mark.parametrize("name", ["chinchirorin", "chinchon"])
def test_replay_game_reproduces_the_result(name, capsys):
    rules = {"first_dealer": "roll"} if name == "chinchirorin" else {"elimination": 50}
    game = GameFactory(game=name, rules=rules, seats=[human(), cpu("hard"), cpu("easy")])
    _play_out(game)
    game.refresh_from_db()
    assert game.status == "finished"
    call_command("replay_game", game.pk)
    assert "same state and result" in capsys.readouterr().out
    call_command("replay_game", game.pk, "--seed", bytes(game.seed).hex())
    with pytest.raises(CommandError):
        call_command("replay_game", game.pk, "--seed", "00" * 32)
    # A tampered log is caught.
    row = GameAction.objects.filter(game=game, seat=1).order_by("seq").first()
    row.events = row.events + [{"type": "forged", "audience": "all"}]
    row.save()
    with pytest.raises(CommandError):
        call_command("replay_game", game.pk)


def test_replay_an_aborted_game():
    game = GameFactory(seats=[human(), cpu()])
    services.game_abort(game_id=game.pk, reason="test")
    call_command("replay_game", game.pk)


def test_replay_rederives_the_draw_for_the_first_mano():
    """``traditional`` draws cards for the first mano with the rng of seq 0 (the committed seed): the
    draw is in the start row, follows the published scheme, and a forged draw fails the replay."""
    game = GameFactory(game="chinchon", rules={"preset": "traditional", "elimination": 50, "reentry": "off"},
                       seats=[human(), cpu("hard"), cpu("easy")])
    start = GameAction.objects.get(game=game, seq=0)
    draw = start.events[0]
    assert draw["type"] == "mano_draw" and draw["audience"] == "all"
    # The rng of seq 0: Random(int(hmac_sha256(seed, "0"))) shuffles a fresh pack of 48 (no jokers) and
    # each seat in turn takes the top (last) card.
    digest = hmac.new(bytes(game.seed), b"0", hashlib.sha256).digest()
    pack = [f"{r}{s}" for s in "OCEB" for r in range(1, 13)]
    random.Random(int.from_bytes(digest, "big")).shuffle(pack)
    assert draw["rounds"][0] == {str(p): pack[-1 - p] for p in range(3)}
    assert game.state["mano"] == draw["mano"]
    _play_out(game)
    game.refresh_from_db()
    call_command("replay_game", game.pk)
    # Another mano claimed from the same cards is caught.
    start.refresh_from_db()
    forged = [dict(e) for e in start.events]
    forged[0]["mano"] = (draw["mano"] + 1) % 3
    start.events = forged
    start.save()
    with pytest.raises(CommandError):
        call_command("replay_game", game.pk)


def test_a_traditional_game_from_before_the_first_mano_setting_still_replays():
    """A game started before ``first_mano`` existed: its room says ``traditional`` (now ``high_card``), its
    stored state's rules lack the setting and its log has no draw. It replays as it was played: with the
    random first mano of the time."""
    rules = {"preset": "traditional", "elimination": 50, "reentry": "off"}
    game = GameFactory(game="chinchon", rules={**rules, "first_mano": "random"},
                       seats=[human(), cpu("hard"), cpu("easy")])
    assert GameAction.objects.get(game=game, seq=0).events[0]["type"] == "mano"
    _play_out(game)
    game.refresh_from_db()
    state = dict(game.state)
    state["rules"] = {k: v for k, v in state["rules"].items() if k != "first_mano"}
    type(game).objects.filter(pk=game.pk).update(rules=rules, state=state)
    game.refresh_from_db()
    call_command("replay_game", game.pk)
