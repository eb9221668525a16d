"""The wallet under concurrency on PostgreSQL (threads, each on its own connection): no lost update, never
below zero, the balance always the ledger's sum."""

from datetime import timedelta

import pytest
from django.db.models import Sum

from coins import services
from coins.models import LedgerEntry, Wallet
from tests.concurrency import run_together
from tests.factories import UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_concurrent_spending_never_overdraws():
    user = UserFactory()  # 500 coins
    results = run_together(*[lambda: services.wallet_move(user_id=user.pk, amount=-120, reason="stake")] * 8)
    refused = [r for r in results if isinstance(r, services.InsufficientCoins)]
    assert len(refused) == 4 and all(isinstance(r, LedgerEntry) for r in results if r not in refused)
    total = LedgerEntry.objects.filter(wallet_id=user.pk).aggregate(s=Sum("amount"))["s"]
    assert Wallet.objects.get(pk=user.pk).balance == total == 20  # 500 - 4 * 120


def test_concurrent_keyed_movements_post_once():
    user = UserFactory()
    results = run_together(*[lambda: services.wallet_move(user_id=user.pk, amount=7, reason="pot", key="pot:1")] * 6)
    assert sum(isinstance(r, LedgerEntry) for r in results) == 1
    assert Wallet.objects.get(pk=user.pk).balance == 507


# ------------------------------------------------------------------ the pot under concurrent finishes
def _about_to_win():
    """A 2-seat staked (25) game rigged so that seat 0's close ends it: seat 1 goes out (95 + 40 > 100)."""
    from games import services as games_services
    from tests.coins.test_stakes import rig_game
    from tests.games.engine.test_chinchon_game import EXAMPLE7, LOSER, rig
    from tests.games.factories import GameFactory, human

    a, b = UserFactory(), UserFactory()
    game = GameFactory(game="chinchon", rules={"stake": 25}, seats=[human(a), human(b)])
    rig_game(game, rig({"stake": 25}, 2, [EXAMPLE7, LOSER], ["3E"], ["11O"], scores=[40, 95]))
    games_services.game_apply_action(game_id=game.pk, actor=a, expected_seq=0,
                                     action={"type": "draw", "source": "stock"})
    return game, a, b


def test_a_finish_racing_an_abort_and_itself_pays_once(settings):
    from games import services as games_services

    settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0  # b's stake can be won

    game, a, b = _about_to_win()
    close = {"type": "close", "card": "11O"}
    results = run_together(
        lambda: games_services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action=close),
        lambda: games_services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action=close),
        lambda: games_services.game_abort(game_id=game.pk, reason="race"),
    )
    game.refresh_from_db()
    rows = LedgerEntry.objects.filter(game=game)
    pots, refunds = rows.filter(reason="pot").count(), rows.filter(reason="refund").count()
    if game.status == "finished":  # the close came first: the abort found nothing to do
        assert (pots, refunds) == (1, 0) and results[2] is False
        assert (Wallet.objects.get(pk=a.pk).balance, Wallet.objects.get(pk=b.pk).balance) == (525, 475)
    else:  # the abort came first: both closes are game_over
        assert (pots, refunds) == (0, 2)
        assert [getattr(r, "error_code", None) for r in results[:2]] == ["game_over", "game_over"]
    assert Wallet.objects.get(pk=a.pk).balance + Wallet.objects.get(pk=b.pk).balance == 1000


def test_concurrent_settlements_of_one_pot_pay_once(settings):
    from coins.pot import game_pot_settle
    from games import services as games_services

    settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0
    game, a, b = _about_to_win()
    games_services.game_apply_action(game_id=game.pk, actor=a, expected_seq=1, action={"type": "close", "card": "11O"})
    results = run_together(*[lambda: game_pot_settle(game_id=game.pk)] * 5)
    assert results == [{"pot": {0: 50}, "refund": {}, "forfeit": {}}] * 5  # the same split, posted once
    assert (Wallet.objects.get(pk=a.pk).balance, Wallet.objects.get(pk=b.pk).balance) == (525, 475)
    assert LedgerEntry.objects.filter(game=game, reason="pot").count() == 1


def test_concurrent_claims_of_one_challenge_pay_once():
    from ranking.models import XpGrant
    from tests.coins.test_challenges import NOW, record

    user = UserFactory()
    for hours in (1, 2, 3):
        record(user, "chinchon", NOW - timedelta(hours=hours))  # chinchon.daily.games_3 completed
    claim = lambda: services.challenge_claim(user_id=user.pk, challenge_id="chinchon.daily.games_3", now=NOW)  # noqa: E731
    results = run_together(*[claim] * 4)
    assert sum(isinstance(r, tuple) for r in results) == 1
    assert sorted(r.error_code for r in results if not isinstance(r, tuple)) == ["challenge_claimed"] * 3
    assert Wallet.objects.get(pk=user.pk).balance == 540
    assert XpGrant.objects.filter(user=user, reason="challenge").count() == 1
