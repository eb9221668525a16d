"""Ranked-play integrity flags (issue 11, item 7), thresholds of README "Ranked-play integrity flags":
pair farming (≥ 5 finished ranked games of the same pair in 24 h, rated or not, one ahead in ≥ 80 %) and a new account climbing
(≤ 14 days old, ≥ 5 rated games, net ≥ +100, one opponent in ≥ 80 % of them)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from moderation import services
from moderation.models import IntegrityFlag
from ranking.models import GameRecord, RatingChange
from tests.factories import UserFactory
from tests.ranking.factories import make_game

pytestmark = pytest.mark.django_db


def _rated(a, b, a_first: bool, change: int = 20, ago: timedelta = timedelta(0), rated: bool = True):
    """A finished ranked 2-seat game of a and b (a ahead when ``a_first``) with its records and, when
    ``rated``, the rating changes ±``change``."""
    at = timezone.now() - ago
    g = make_game(users=[a, b], places=[1, 2] if a_first else [2, 1])
    for user, seat, sign in ((a, 0, 1 if a_first else -1), (b, 1, -1 if a_first else 1)):
        place = 1 if sign > 0 else 2
        GameRecord.objects.create(game=g, user=user, game_name="chinchirorin", seat=seat, place=place, seats=2,
                                  outcome="win" if sign > 0 else "loss", ranked=True, rated=rated, finished_at=at)
        if rated:
            rc = RatingChange.objects.create(game=g, user=user, game_name="chinchirorin", seat=seat, place=place,
                                             before=1500, after=1500 + sign * change, change=sign * change, k=40)
            RatingChange.objects.filter(pk=rc.pk).update(created_at=at)
    return g


def test_five_one_sided_games_of_a_pair_in_a_day_raise_a_flag(mod):
    old = timezone.now() - timedelta(days=100)
    a, b = UserFactory(display_name="Ann", date_joined=old), UserFactory(display_name="Bob", date_joined=old)
    games = [_rated(a, b, a_first=True) for _ in range(3)]
    games.append(_rated(a, b, a_first=False, rated=False))  # over the daily cap of rated games: still counted
    # 4 games: below the 5-game threshold
    assert services.integrity_check_game(game_id=games[-1].pk) == []
    games.append(_rated(a, b, a_first=True, rated=False))
    # 5 games, Ann ahead in 4 = 80 %: flagged, Ann as the gainer
    [flag] = services.integrity_check_game(game_id=games[-1].pk)
    assert (flag.kind, flag.user_id, flag.other_id, flag.game_name) == ("pair_farming", a.pk, b.pk, "chinchirorin")
    ev = flag.evidence
    # Ann's rating moved in the 3 rated games only: +20 × 3; the two unrated ones count 0
    assert (ev["games_together"], ev["ahead"], ev["share"], ev["net_change"]) == (5, 4, 0.8, 3 * 20)
    assert [g["game_id"] for g in ev["games"]] == [g.pk for g in games]
    # another game refreshes the same open flag
    games.append(_rated(a, b, a_first=True, rated=False))
    [again] = services.integrity_check_game(game_id=games[-1].pk)
    assert again.pk == flag.pk and again.evidence["games_together"] == 6
    assert IntegrityFlag.objects.count() == 1
    page = mod.get(f"/admin/moderation/integrityflag/{flag.pk}/change/")
    assert page.status_code == 200 and f"/admin/games/game/{games[0].pk}/change/" in page.content.decode()
    assert mod.post(f"/admin/moderation/integrityflag/{flag.pk}/review/",
                    {"status": "confirmed", "note": "adjusted both ratings"}).status_code == 302
    flag.refresh_from_db()
    assert (flag.status, flag.review_note) == ("confirmed", "adjusted both ratings")


def test_balanced_or_old_results_raise_nothing():
    old = timezone.now() - timedelta(days=100)
    a, b = UserFactory(date_joined=old), UserFactory(date_joined=old)
    games = [_rated(a, b, a_first=i % 2 == 0) for i in range(6)]  # 3-3
    assert services.integrity_check_game(game_id=games[-1].pk) == []
    c, d = UserFactory(date_joined=old), UserFactory(date_joined=old)
    games = [_rated(c, d, a_first=True, ago=timedelta(hours=30)) for _ in range(4)]  # outside the 24 h
    games.append(_rated(c, d, a_first=True))
    assert services.integrity_check_game(game_id=games[-1].pk) == []


def test_a_new_account_climbing_against_one_opponent_is_flagged():
    now = timezone.now()
    new = UserFactory(display_name="New", date_joined=now - timedelta(days=3))
    feeder = UserFactory(display_name="Feeder", date_joined=now - timedelta(days=300))
    other = UserFactory(date_joined=now - timedelta(days=300))
    # spread over 5 days so the pair rule (24 h) does not apply: 5 wins against the feeder, 1 loss to other
    games = [_rated(new, feeder, a_first=True, change=25, ago=timedelta(days=3 - i * 0.5)) for i in range(5)]
    games.append(_rated(new, other, a_first=False, change=10))
    flags = services.integrity_check_game(game_id=games[-1].pk)
    assert [(f.kind, f.user_id, f.other_id) for f in flags] == [("single_opponent_climb", new.pk, feeder.pk)]
    ev = flags[0].evidence
    # net +125 - 10 = +115 over 6 rated games; the feeder in 5 of 6 (0.83)
    assert (ev["rated_games"], ev["with_this_opponent"], ev["share"], ev["net_change"], ev["account_age_days"]) == (
        6, 5, 0.83, 115, 3)


def test_a_finished_ranked_game_runs_the_check_from_the_rating_task():
    from ranking.tasks import rate_game

    now = timezone.now()
    a, b = UserFactory(date_joined=now - timedelta(days=100)), UserFactory(date_joined=now - timedelta(days=100))
    for _ in range(4):
        _rated(a, b, a_first=True)
    g = make_game(users=[a, b], places=[1, 2])
    assert rate_game(g.pk)["recorded"] == 2  # (not rated: the pair is over its daily cap of rated games)
    assert IntegrityFlag.objects.filter(kind="pair_farming", user=a, other=b).count() == 1
