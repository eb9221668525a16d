"""Voiding a finished game (moderation.voids, issue #37 item 6): ratings and rated-game counts restored,
coins and XP reversed through their records, one audit row, each player told; twice changes nothing."""

import pytest
from auditlog.models import LogEntry
from django.db.models import Sum
from django.urls import reverse

from coins.models import LedgerEntry, Wallet
from coins.services import wallet_move
from config.errors import ApiError
from moderation import voids
from moderation.models import GameVoid
from ranking import eligibility
from ranking.models import GameRecord, Rating, RatingChange, XpGrant
from ranking.services import game_process_finished
from tests.coins.test_economy_rule import cheat_game
from tests.factories import UserFactory
from tests.games.factories import GameFactory
from tests.ranking.factories import make_game

pytestmark = pytest.mark.django_db


def balance(user) -> int:
    return Wallet.objects.get(pk=user.pk).balance


def xp(user) -> int:
    return ((GameRecord.objects.filter(user=user).aggregate(s=Sum("xp"))["s"] or 0)
            + (XpGrant.objects.filter(user=user).aggregate(s=Sum("amount"))["s"] or 0))


def books_balance(*users) -> bool:
    return all(balance(u) == LedgerEntry.objects.filter(wallet_id=u.pk).aggregate(s=Sum("amount"))["s"]
               for u in users)


@pytest.fixture
def farmed(settings):
    """An established host that took 3 x 100 from three alts who played MIN_DECISIONS decisions."""
    settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0
    host, *alts = [UserFactory() for _ in range(4)]
    game = cheat_game(host, alts, decisions=eligibility.MIN_DECISIONS)
    assert [balance(u) for u in (host, *alts)] == [800, 400, 400, 400] and xp(host) > 0
    return game, host, alts


def test_void_reverses_coins_and_xp_once_and_tells_each_player(farmed, superuser, monkeypatch,
                                                                django_capture_on_commit_callbacks):
    game, host, alts = farmed
    sent, host_xp = [], xp(host)  # the game's XP and its first-game achievements'
    monkeypatch.setattr(voids, "group_send", lambda group, message: sent.append((group, message)))
    with django_capture_on_commit_callbacks(execute=True):
        void, new = voids.game_void(game_id=game.pk, by=superuser, reason="alts feeding the host")
    assert new and [balance(u) for u in (host, *alts)] == [500, 500, 500, 500]
    assert xp(host) == 0 and not GameRecord.objects.filter(game=game, counts=True).exists()
    assert list(LedgerEntry.objects.filter(game=game, reason="void").order_by("wallet_id")
                .values_list("wallet_id", "amount")) == [(host.pk, -300)] + [(a.pk, 100) for a in alts]
    assert books_balance(host, *alts)
    assert sorted(sent) == sorted((f"user-{u.pk}", {"type": "game.voided", "payload": {
        "type": "game_voided", "game_id": game.pk, "coins": coins, "xp": -xp_taken, "rating": None}})
        for u, coins, xp_taken in [(host, -300, host_xp)]
        + [(a, 100, 0) for a in alts])
    rows = LogEntry.objects.filter(additional_data__action="game_void")
    assert rows.count() == 1 and rows.get().additional_data["reason"] == "alts feeding the host"
    # twice: nothing changes
    ledger = LedgerEntry.objects.count()
    again, new = voids.game_void(game_id=game.pk, by=superuser, reason="again")
    assert (again.pk, new) == (void.pk, False) and LedgerEntry.objects.count() == ledger
    assert rows.count() == 1 and balance(host) == 500 and xp(host) == 0


def test_a_wallet_that_spent_its_winnings_gives_what_it_holds(farmed, superuser):
    game, host, alts = farmed
    wallet_move(user_id=host.pk, amount=-700, reason="adjustment", note="spent")  # 100 left of the 800
    void, _ = voids.game_void(game_id=game.pk, by=superuser, reason="farming")
    assert balance(host) == 0 and [balance(a) for a in alts] == [500, 500, 500]
    assert {"user": host.pk, "amount": -100, "shortfall": 200} in void.summary["coins"]
    assert "short by 200" in LedgerEntry.objects.get(game=game, reason="void", wallet_id=host.pk).note
    assert books_balance(host, *alts)


def test_void_restores_ratings_and_rated_game_counts(superuser):
    a, b = UserFactory(), UserFactory()
    game = make_game(users=[a, b], places=[1, 2], ranked=True)
    game_process_finished(game_id=game.pk)
    won = RatingChange.objects.get(game=game, user=a).change
    assert won > 0 and Rating.objects.get(user=a, game="chinchirorin").games == 1
    void, _ = voids.game_void(game_id=game.pk, by=superuser, reason="fixed match")
    for u in (a, b):
        row = Rating.objects.get(user=u, game="chinchirorin")
        assert (row.rating, row.games) == (1500, 0)
    undo = RatingChange.objects.get(game=None, user=a)
    assert (undo.change, undo.before, undo.after, undo.adjusted_by) == (-won, 1500 + won, 1500, superuser)


def test_bad_voids_are_refused_and_change_nothing(superuser):
    playing = GameFactory()
    with pytest.raises(ApiError) as err:
        voids.game_void(game_id=playing.pk, by=superuser, reason="x")
    assert (err.value.status_code, err.value.error_code) == (409, "game_not_finished")
    with pytest.raises(ApiError) as err:
        voids.game_void(game_id=playing.pk, by=superuser, reason="  ")
    assert err.value.status_code == 400 and "reason" in err.value.fields
    with pytest.raises(ApiError) as err:
        voids.game_void(game_id=10**9, by=superuser, reason="x")
    assert err.value.status_code == 404
    assert not GameVoid.objects.exists()


def test_a_moderator_voids_from_the_game_page(farmed, mod, nobody):
    game, host, _ = farmed
    page = mod.get(reverse("admin:games_game_change", args=[game.pk]))
    url = reverse("admin:moderation_gamevoid_void", args=[game.pk])
    assert url in page.content.decode()
    assert nobody.post(url, {"reason": "x"}).status_code in (302, 403) and not GameVoid.objects.exists()
    res = mod.post(url, {"reason": "farming"})
    assert res.status_code == 302 and GameVoid.objects.get(game=game).by == mod.user
    assert balance(host) == 500
