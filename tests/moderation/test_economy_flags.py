"""Coin and XP integrity flags (moderation.economy_flags): pots from the same account, accounts that only
lose their stake to one player, wins against opponents that quit at once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from coins.models import LedgerEntry
from moderation.economy_flags import economy_check_game
from moderation.models import IntegrityFlag
from ranking import eligibility
from ranking.models import SeatCredit
from tests.coins.test_economy_rule import cheat_game
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def flags(kind):
    return sorted((f.user_id, f.other_id) for f in IntegrityFlag.objects.filter(kind=kind))


def test_wins_against_opponents_that_quit_at_once_are_flagged():
    host, *alts = [UserFactory() for _ in range(4)]
    for n in range(5):
        game = cheat_game(host, alts, decisions=0)
        economy_check_game(game_id=game.pk)
        assert flags("quit_farming") == ([] if n < 4 else [(host.pk, alts[0].pk)])
    flag = IntegrityFlag.objects.get(kind="quit_farming")
    assert flag.evidence["games_alone"] == 5 and flag.evidence["by_this_player"] == 5


def test_stakes_fed_to_one_host_and_repeated_pots_are_flagged(settings):
    settings.ECONOMY_ESTABLISHED_DAYS = settings.ECONOMY_ESTABLISHED_GAMES = 0
    host, *alts = [UserFactory() for _ in range(4)]
    games = []
    for _ in range(3):
        games.append(cheat_game(host, alts, decisions=eligibility.MIN_DECISIONS))
        economy_check_game(game_id=games[-1].pk)
    assert flags("stake_feeder") == sorted((host.pk, a.pk) for a in alts)
    assert flags("pot_farming") == []
    # a day later (the pair cap's window has passed) two more pots from the same accounts
    earlier = timezone.now() - timedelta(hours=25)
    LedgerEntry.objects.filter(game__in=games).update(created_at=earlier)
    SeatCredit.objects.filter(game__in=games).update(created_at=earlier)
    for _ in range(2):
        game = cheat_game(host, alts, decisions=eligibility.MIN_DECISIONS)
    assert LedgerEntry.objects.get(game=game, reason="pot").amount == 400
    economy_check_game(game_id=game.pk)
    assert flags("pot_farming") == sorted((host.pk, a.pk) for a in alts)
    assert IntegrityFlag.objects.filter(kind="pot_farming").first().evidence["games_paid"] == 5
