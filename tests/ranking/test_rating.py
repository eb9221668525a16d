"""Rating finished games: once, only rated games, by the hand-worked Elo; the game_finished hook."""

import pytest

from ranking import services
from ranking.models import Rating, RatingChange
from tests.ranking.factories import RatingFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db


def ratings(*users, game="chinchirorin"):
    return [Rating.objects.get(user=u, game=game).rating for u in users]


def test_two_players_rated_once():
    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[2, 1])
    changes = services.game_rate(game_id=g.id)
    # both new at 1500: E = 0.5, K = 40: loser 40 × (0 - 0.5) = -20, winner +20
    assert [(c.seat, c.before, c.after, c.change, c.k) for c in changes] == [(0, 1500, 1480, -20, 40),
                                                                           (1, 1500, 1520, 20, 40)]
    assert ratings(a, b) == [1480, 1520]
    assert [r.games for r in Rating.objects.order_by("user_id")] == [1, 1]
    # again: nothing changes
    again = services.game_rate(game_id=g.id)
    assert len(again) == 2
    assert ratings(a, b) == [1480, 1520]
    assert RatingChange.objects.count() == 2
    assert services.game_process_finished(game_id=g.id) == {"rated": 2, "recorded": 2, "recorded_ranked": 2}
    assert services.game_process_finished(game_id=g.id) == {"rated": 2, "recorded": 0, "recorded_ranked": 0}
    assert ratings(a, b) == [1480, 1520]


def test_four_players_with_a_tie_use_stored_ratings():
    users = [UserFactory() for _ in range(4)]
    for u, r in zip(users, (1600, 1500, 1500, 1400), strict=True):
        RatingFactory(user=u, rating=r, games=5)
    g = make_game(users=users, places=[1, 2, 2, 4])
    services.game_rate(game_id=g.id)
    # the test_elo table: +13, 0, 0, -13
    assert ratings(*users) == [1613, 1500, 1500, 1387]
    assert [r.games for r in Rating.objects.filter(user__in=users).order_by("user_id")] == [6, 6, 6, 6]


def test_k_is_20_from_the_31st_rated_game():
    a, b = UserFactory(), UserFactory()
    RatingFactory(user=a, rating=1500, games=30)
    g = make_game(users=[a, b], places=[1, 2])
    changes = {c.user_id: c for c in services.game_rate(game_id=g.id)}
    # a: 31st game, K = 20: 20 × 0.5 = +10 ; b: 1st game, K = 40: -20
    assert (changes[a.id].change, changes[a.id].k) == (10, 20)
    assert (changes[b.id].change, changes[b.id].k) == (-20, 40)


def test_chinchon_rates_its_own_rating():
    a, b = UserFactory(), UserFactory()
    RatingFactory(user=a, game="chinchirorin", rating=1800, games=50)
    g = make_game(users=[a, b], places=[1, 1], game="chinchon", reason="all_out")
    services.game_rate(game_id=g.id)
    assert ratings(a, b, game="chinchon") == [1500, 1500]
    assert ratings(a, game="chinchirorin") == [1800]


def test_resigned_and_played_for_seats_are_rated():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    g = make_game(users=[a, b, c], places=[1, 2, 3], played_for=(2,), reason="resignations",
                  events=[{"type": "resigned", "seat": 1, "audience": "all"}])
    changes = {c.seat: c.change for c in services.game_rate(game_id=g.id)}
    # equal ratings, K = 40, factor 40/2 = 20: first 2 × 0.5 = +20; second 0; third -20
    assert changes == {0: 20, 1: 0, 2: -20}


@pytest.mark.parametrize("kwargs", [
    {"ranked": False},
    {"status": "aborted"},
    {"reason": "aborted"},
    {"status": "playing"},
    {"human_acted": False},
])
def test_unrated_cases(kwargs):
    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[1, 2], **kwargs)
    assert services.game_rate(game_id=g.id) == []
    assert not RatingChange.objects.exists()
    assert not Rating.objects.filter(games__gt=0).exists()


def test_one_human_against_a_cpu_is_not_rated():
    a = UserFactory()
    g = make_game(users=[a, None], places=[1, 2], cpus=(1,))
    assert services.game_rate(game_id=g.id) == []


def test_unknown_game_is_ignored():
    assert services.game_process_finished(game_id=987654) == {"rated": 0, "recorded": 0, "recorded_ranked": 0}


def test_game_finished_signal_rates_through_the_task():
    from games.models import Game
    from games.signals import game_finished

    a, b = UserFactory(), UserFactory()
    g = make_game(users=[a, b], places=[1, 2])
    game_finished.send(sender=Game, game_id=g.id)  # Celery is eager in tests
    assert ratings(a, b) == [1520, 1480]
    game_finished.send(sender=Game, game_id=g.id)
    assert ratings(a, b) == [1520, 1480]
