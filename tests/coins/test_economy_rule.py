"""The one rule of what a finished game earns (ranking.eligibility, docs/economy.md), through the games
write path: the cheat of issue #33 (a host, three fresh accounts that resign) and its variants, the pot,
XP and challenge wins each of them is left with, and honest play against the computer."""

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from coins.models import LedgerEntry, Wallet
from games import services
from games.engine import chinchon as C
from games.engine import rng as rngmod
from games.models import Game, GameAction
from ranking import eligibility
from ranking.models import GameRecord, SeatCredit
from ranking.services import game_process_finished
from tests.factories import UserFactory
from tests.games.factories import GameFactory, cpu, human

pytestmark = pytest.mark.django_db


def fixed_deal():
    """Within: every game dealt deals the same cards. With random deals a game now and then ended (a
    chinchón, or an alt out first) before the seats had made the decisions a test counts on."""
    return mock.patch.object(rngmod, "new_seed", lambda: bytes([7]) * rngmod.SEED_BYTES)


@pytest.fixture(autouse=True)
def one_deal():
    """Every game of this module: :func:`fixed_deal`."""
    with fixed_deal():
        yield


def balance(user) -> int:
    return Wallet.objects.get(pk=user.pk).balance


def act(game_id: int, seat: int, users: dict, action: dict | None = None) -> None:
    game = Game.objects.get(pk=game_id)
    state = C.from_dict(game.state)
    services.game_apply_action(game_id=game_id, actor=users[seat], expected_seq=game.seq,
                               action=action or C.default_action(state, seat))


def own_decisions(game_id: int, seat: int) -> int:
    return GameAction.objects.filter(game_id=game_id, seat=seat, by="player").exclude(action__type="resign").count()


def cheat_game(host, alts, *, decisions: int, stake: int = 100) -> Game:
    """A 4-seat Chinchón game at ``stake``: the alts make ``decisions`` decisions of their own each (the
    host plays on its turns meanwhile), then resign one after the other; the host is left alone and wins.
    Dealt by :func:`fixed_deal`, in the other modules that play it too."""
    users = dict(enumerate([host, *alts]))
    with fixed_deal():
        game = GameFactory(game="chinchon", rules={"stake": stake}, seats=[human(u) for u in users.values()])
        resigned: set[int] = set()
        while Game.objects.get(pk=game.pk).status == Game.PLAYING:
            seat = C.awaiting(C.from_dict(Game.objects.get(pk=game.pk).state))[0]
            done = [s for s in users if s and s not in resigned and own_decisions(game.pk, s) >= decisions]
            if done:  # an alt that made its decisions resigns at once (resigning needs no turn)
                act(game.pk, done[0], users, {"type": "resign"})
                resigned.add(done[0])
            else:
                act(game.pk, seat, users)
    game.refresh_from_db()
    assert game.status == Game.FINISHED and game.result["standing"][0]["seat"] == 0
    game_process_finished(game_id=game.pk)
    return game


def test_alts_that_resign_at_once_feed_nobody():
    """The issue's cheat: the host's own 100 is refunded (its game does not count); each alt forfeits its 100 to no one (500 -> 400);
    the host's "win" earns no XP and no challenge win (nobody played against it)."""
    host, *alts = [UserFactory() for _ in range(4)]
    game = cheat_game(host, alts, decisions=0)
    assert [balance(u) for u in (host, *alts)] == [500, 400, 400, 400]
    assert list(LedgerEntry.objects.filter(game=game, wallet_id=host.pk).order_by("id")
                .values_list("reason", "amount")) == [("stake", -100), ("refund", 100)]
    credits = {c.user_id: c for c in SeatCredit.objects.filter(game=game)}
    assert [credits[a.pk].played for a in alts] == [False] * 3 and credits[host.pk].counts is False
    record = GameRecord.objects.get(game=game, user=host)
    assert (record.outcome, record.xp, record.counts, record.win_counts) == ("win", 0, False, False)


def test_alts_that_play_min_decisions_then_resign_are_refunded_and_credit_nothing():
    """Alts new to the site that make exactly MIN_DECISIONS decisions then resign: they played, so they are
    refunded (new accounts' coins are never won), but a new account that quit is no real opponent: the
    host's game earns nothing."""
    host = UserFactory()
    for _ in range(2):
        alts = [UserFactory() for _ in range(3)]
        game = cheat_game(host, alts, decisions=eligibility.MIN_DECISIONS)
        assert [balance(a) for a in alts] == [500, 500, 500]
        record = GameRecord.objects.get(game=game, user=host)
        assert (record.outcome, record.counts, record.win_counts, record.xp) == ("win", False, False, 0)
    assert balance(host) == 500


def test_new_opponents_who_play_to_the_end_credit_three_games_a_day():
    """A new opponent that played its whole game (here: eliminated, never quit) is a real opponent in the
    winner's first 3 such games of 24 hours; the 4th earns nothing. Their stakes are refunded throughout."""
    from tests.coins.test_ledger_exact import about_to_win

    winner = UserFactory()
    seen = []
    for _ in range(4):
        loser = UserFactory()
        game = about_to_win(winner, loser)
        services.game_apply_action(game_id=game.pk, actor=winner, expected_seq=1,
                                   action={"type": "close", "card": "11O"})
        game_process_finished(game_id=game.pk)
        record = GameRecord.objects.get(game=game, user=winner)
        seen.append((record.win_counts, record.xp > 0, balance(loser)))
    assert seen == [(True, True, 500)] * 3 + [(False, False, 500)]


def test_established_alts_pay_at_most_three_pots_a_day(settings):
    """Established alts (no age or games asked) that play MIN_DECISIONS decisions: the host wins their stakes
    (+300 a game) in the first 3 games with them in 24 hours; from the 4th their stakes go back to them."""
    settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0
    host, *alts = [UserFactory() for _ in range(4)]
    seen = []
    for _ in range(4):
        cheat_game(host, alts, decisions=eligibility.MIN_DECISIONS)
        seen.append(balance(host))
    assert seen == [800, 1100, 1400, 1400]
    assert [balance(a) for a in alts] == [200, 200, 200]


def test_an_alt_that_quits_early_forfeits_while_one_that_played_is_refunded():
    host, early, late, late2 = [UserFactory() for _ in range(4)]
    users = {0: host, 1: early, 2: late, 3: late2}
    game = GameFactory(game="chinchon", rules={"stake": 50}, seats=[human(u) for u in users.values()])
    act(game.pk, 1, users, {"type": "resign"})
    while own_decisions(game.pk, 2) < eligibility.MIN_DECISIONS:
        act(game.pk, C.awaiting(C.from_dict(Game.objects.get(pk=game.pk).state))[0], users)
    act(game.pk, 2, users, {"type": "resign"})
    act(game.pk, 3, users, {"type": "resign"})
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    played3 = own_decisions(game.pk, 3) >= eligibility.MIN_DECISIONS
    assert [balance(u) for u in users.values()] == [500, 450, 500, 500 if played3 else 450]


def test_honest_play_against_the_computer_counts():
    """A CPU seat plays its whole game: a real opponent. The human's game counts (XP) whatever the result."""
    user = UserFactory()
    game = GameFactory(game="chinchirorin", seats=[human(user), cpu()], cpu_speed="fast")
    for _ in range(2000):
        g = Game.objects.get(pk=game.pk)
        if g.status != Game.PLAYING:
            break
        from games.engine.registry import get_engine

        engine = get_engine("chinchirorin")
        state = engine.from_dict(g.state)
        if 0 in engine.awaiting(state):
            services.game_apply_action(game_id=g.pk, actor=user, expected_seq=g.seq,
                                       action=engine.default_action(state, 0))
        else:  # the CPU's turn: due now (no waiting for its pace)
            Game.objects.filter(pk=g.pk).update(bot_due_at=timezone.now() - timedelta(seconds=1))
            services.game_bot_play(game_id=g.pk, seq=g.seq)
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    game_process_finished(game_id=game.pk)
    credit = SeatCredit.objects.get(game=game, user=user)
    record = GameRecord.objects.get(game=game, user=user)
    assert credit.cpu_opponent and credit.counts and record.counts and record.xp >= 26
    assert record.win_counts == (record.outcome == "win")


def test_pot_split_conserves_every_coin():
    """Pure: every coin paid in lands in exactly one of the pot, a refund or a forfeit."""
    def credit(seat, uid, played=True, counts=True, est=True, credited=()):
        return SeatCredit(seat=seat, user_id=uid, played=played, counts=counts, established=est,
                          credited=list(credited))

    credits = {0: credit(0, 10, credited=[11, 12]), 1: credit(1, 11), 2: credit(2, 12, est=False),
               3: credit(3, 13, played=False, counts=False)}
    split = eligibility.pot_split(credits=credits, paid={0: 30, 1: 30, 2: 30, 3: 30}, sharers=[0], paid_before={})
    assert split == {"pot": {0: 60}, "refund": {2: 30}, "forfeit": {3: 30}}
    capped = eligibility.pot_split(credits=credits, paid={0: 30, 1: 30, 2: 30, 3: 30}, sharers=[0],
                                   paid_before={(10, 11): 3})
    assert capped == {"pot": {0: 30}, "refund": {1: 30, 2: 30}, "forfeit": {3: 30}}
    shared = eligibility.pot_split(credits={0: credit(0, 10, credited=[11]), 1: credit(1, 11, credited=[10]),
                                            2: credit(2, 12, credited=[])}, paid={0: 10, 1: 10, 2: 11},
                                   sharers=[0, 1], paid_before={})
    assert shared == {"pot": {0: 10, 1: 10}, "refund": {2: 11}, "forfeit": {}}


def test_a_sharer_whose_game_does_not_count_keeps_its_coins_from_the_other_sharer():
    """Two sharers, only one whose game counts: the other's coins are refunded, not won by the first."""
    a = SeatCredit(seat=0, user_id=10, played=True, counts=True, established=True, credited=[11])
    b = SeatCredit(seat=1, user_id=11, played=True, counts=False, established=True, credited=[])
    split = eligibility.pot_split(credits={0: a, 1: b}, paid={0: 20, 1: 20}, sharers=[0, 1], paid_before={})
    assert split == {"pot": {0: 20}, "refund": {1: 20}, "forfeit": {}}
