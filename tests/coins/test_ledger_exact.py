"""The ledger stays exact under concurrency on PostgreSQL (issue #33 item 4): games finishing (pots),
a paid re-entry, a challenge claim, a void and moderator grants, all at once on shared wallets; after them
every wallet's balance is the sum of its ledger and none is below zero."""

import pytest
from django.db.models import Sum
from django.utils import timezone

from coins import challenges
from coins import services as coins_services
from coins.models import LedgerEntry, Wallet
from coins.selectors import challenge_rows
from games import services as games_services
from moderation import voids
from tests.coins.test_challenges import record
from tests.coins.test_stakes import rig_game
from tests.concurrency import run_together
from tests.factories import UserFactory
from tests.games.engine.test_chinchon_game import EXAMPLE7, LOSER, OTHER, rig
from tests.games.factories import GameFactory, human

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def about_to_win(winner, loser, stake=25):
    """A 2-seat staked game whose next action (``winner``'s close of 11O, seq 1) ends it."""
    game = GameFactory(game="chinchon", rules={"stake": stake}, seats=[human(winner), human(loser)])
    rig_game(game, rig({"stake": stake}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[40, 95]))
    games_services.game_apply_action(game_id=game.pk, actor=winner, expected_seq=0,
                                     action={"type": "draw", "source": "stock"})
    return game


def reentry_offered(users, stake=25):
    """A 3-seat traditional game where ``users[1]`` is out and offered a paid re-entry (seq 2)."""
    rules = {"preset": "traditional", "stake": stake}
    game = GameFactory(game="chinchon", rules=rules, seats=[human(u) for u in users])
    rig_game(game, rig(rules, 3, [EXAMPLE7, LOSER, OTHER], ["3E"], ["11O"], scores=[10, 70, 20]))
    games_services.game_apply_action(game_id=game.pk, actor=users[0], expected_seq=0,
                                     action={"type": "draw", "source": "stock"})
    games_services.game_apply_action(game_id=game.pk, actor=users[0], expected_seq=1,
                                     action={"type": "close", "card": "11O"})
    return game


def complete_a_challenge(user) -> None:
    """Game records that complete one of the challenges active now, inside its period and before now
    (the active set changes with the day, and a day's period starts at midnight)."""
    now = timezone.now()
    challenge, period = challenges.active(now)[0]
    if challenge.metric in ("games", "wins"):
        rows = [{}] * challenge.target
    else:  # a fact of the games (hands finished, cards discarded, a pinzoro...): one game with all of it
        rows = [{challenge.metric: challenge.target}]
    for k, facts in enumerate(rows, start=1):
        record(user, challenge.game, period.start + (now - period.start) * k / (len(rows) + 1), outcome="win",
               **facts)


def test_every_wallet_is_its_ledger_after_everything_at_once(settings):
    settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0
    a, b, c, d = (UserFactory() for _ in range(4))
    boss = UserFactory(is_staff=True, is_superuser=True)
    done = about_to_win(a, d)
    games_services.game_apply_action(game_id=done.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    g1, g2 = about_to_win(a, b), about_to_win(a, c)
    g3 = reentry_offered([c, b, d])
    complete_a_challenge(d)
    claimable = next(r["id"] for r in challenge_rows(user_id=d.pk)
                     if r["completed"] and not r["claimed"])
    close = {"type": "close", "card": "11O"}
    results = run_together(
        lambda: games_services.game_apply_action(game_id=g1.pk, actor=a, expected_seq=1, action=close),
        lambda: games_services.game_apply_action(game_id=g2.pk, actor=a, expected_seq=1, action=close),
        lambda: games_services.game_apply_action(game_id=g3.pk, actor=b, expected_seq=2,
                                                 action={"type": "reenter", "accept": True}),
        lambda: coins_services.challenge_claim(user_id=d.pk, challenge_id=claimable),
        lambda: voids.game_void(game_id=done.pk, by=boss, reason="test"),
        lambda: voids.game_void(game_id=done.pk, by=boss, reason="test again"),
        lambda: coins_services.wallet_adjust(user_id=a.pk, amount=50, note="grant", by=boss),
        lambda: coins_services.wallet_adjust(user_id=b.pk, amount=-30, note="remove", by=boss),
        lambda: coins_services.wallet_adjust(user_id=c.pk, amount=-10_000, note="too much", by=boss),
    )
    assert not [r for r in results[:-1] if isinstance(r, Exception)], results
    assert isinstance(results[-1], coins_services.InsufficientCoins)  # refused, nothing written
    assert sorted(r[1] for r in results[4:6]) == [False, True]  # one void, once
    for w in Wallet.objects.all():
        assert w.balance >= 0
        assert w.balance == LedgerEntry.objects.filter(wallet=w).aggregate(s=Sum("amount"))["s"], w
    # the figures, computed by hand: a won 2 pots of 50 (+25 net each) and the voided game's 25 went back
    # to d; b paid 25 stake + 25 re-entry and lost 30; c paid two stakes of 25
    assert Wallet.objects.get(pk=a.pk).balance == 500 + 25 + 25 + 50
    assert Wallet.objects.get(pk=b.pk).balance == 500 - 25 - 25 - 25 - 30
    assert Wallet.objects.get(pk=c.pk).balance == 500 - 25 - 25
