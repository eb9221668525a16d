"""Issue 12 probe 5: rated play needs play. A ranked game where a player resigns, leaves or times out
before MIN_DECISIONS (6) decisions of their own is recorded as not rated (the result still stands for
stats), and a pair's rated games of a game are capped at PAIR_DAILY_RATED (3) in 24 h (later games count
that pair with weight 0). Values worked by hand from DESIGN.md's Elo formula."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import GameAction, GamePlayer
from ranking import elo, services
from ranking.models import GameRecord, Rating, RatingChange
from tests.ranking.factories import UserFactory, make_game

pytestmark = pytest.mark.django_db


def _ratings(*users, game="chinchirorin"):
    rows = {r.user_id: (r.rating, r.games) for r in Rating.objects.filter(game=game, user__in=users)}
    return [rows.get(u.pk, (1500, 0)) for u in users]


def test_the_farming_probe_moves_no_rating(make_client, django_capture_on_commit_callbacks):
    """Two new accounts, a ranked game, one resigns at once; five times over: 1500 and 1500, 0 rated
    games; each result is still recorded (a win and a loss, not rated)."""
    a, b = UserFactory(), UserFactory()
    ca, cb = make_client(a), make_client(b)
    with django_capture_on_commit_callbacks(execute=True):
        code = ca.post("/api/rooms", {"game": "chinchirorin", "seats": 2, "ranked": True}, format="json").json()["code"]
        assert cb.post(f"/api/rooms/{code}/join").status_code == 200
    for round_ in range(5):
        with django_capture_on_commit_callbacks(execute=True):
            res = ca.post(f"/api/rooms/{code}/{'start' if round_ == 0 else 'rematch'}")
            assert res.status_code == 201, res.json()
            game_id = res.json()["game_id"]
        view = cb.get(f"/api/games/{game_id}").json()
        with django_capture_on_commit_callbacks(execute=True):
            res = cb.post(f"/api/games/{game_id}/actions", {"type": "resign", "seq": view["seq"]}, format="json")
            assert res.status_code == 200, res.json()
        assert res.json()["status"] == "finished"
    assert _ratings(a, b) == [(1500, 0), (1500, 0)]
    assert RatingChange.objects.count() == 0
    records = GameRecord.objects.filter(user=b)
    assert records.count() == 5 and not any(r.rated for r in records)
    assert {r.outcome for r in GameRecord.objects.filter(user=a)} == {"win"}


def _act(game, seat, user, by, kind, seq):
    GameAction.objects.create(game=game, seq=seq, seat=seat, by=by, user=user if by == "player" else None,
                              action={"type": kind})


@pytest.mark.parametrize(("decisions", "quit_by", "rated"), [
    (0, ("player", "resign"), False),     # the probe: resigns at once
    (5, ("player", "resign"), False),     # one decision short
    (6, ("player", "resign"), True),      # played the minimum, then resigned: rated as the player
    (2, ("timeout", "bet"), False),       # timed out early
    (3, ("away", "roll"), False),         # left (played for) early
    (7, ("timeout", "roll"), True),
])
def test_quitting_before_the_minimum_of_decisions_is_not_rated(decisions, quit_by, rated):
    a, b = UserFactory(), UserFactory()
    game = make_game(users=[a, b], places=[1, 2])  # seq 1: seat 0 (a) rolled
    seq = 1
    for _ in range(decisions):
        seq += 1
        _act(game, 1, b, "player", "roll", seq)
    _act(game, 1, b, *quit_by, seq + 1)
    changes = services.game_rate(game_id=game.id)
    assert bool(changes) is rated
    assert _ratings(a, b) == ([(1520, 1), (1480, 1)] if rated else [(1500, 0), (1500, 0)])


def test_a_seat_that_left_is_counted_as_quitting():
    a, b = UserFactory(), UserFactory()
    game = make_game(users=[a, b], places=[1, 2])
    GamePlayer.objects.filter(game=game, seat=1).update(left=True)
    assert services.game_rate(game_id=game.id) == []


def test_a_pair_is_rated_three_times_a_day_then_not():
    a, b = UserFactory(), UserFactory()
    # a wins every game; by hand: 1500/1500 K40 -> +20/-20; 1520/1480: E=0.5575 -> +17.7 = +18/-18;
    # 1538/1462: E=0.6073 -> +15.7 = +16/-16; then the 4th is over the cap
    expected = [(1520, 1480), (1538, 1462), (1554, 1446)]
    for want in expected:
        game = make_game(users=[a, b], places=[1, 2])
        services.game_rate(game_id=game.id)
        assert tuple(r for r, _ in _ratings(a, b)) == want
    fourth = make_game(users=[a, b], places=[1, 2])
    assert services.game_rate(game_id=fourth.id) == []
    assert _ratings(a, b) == [(1554, 3), (1446, 3)]
    # 24 h later the pair counts again
    RatingChange.objects.update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    fifth = make_game(users=[a, b], places=[1, 2])
    assert len(services.game_rate(game_id=fifth.id)) == 2


def test_in_a_bigger_game_only_the_capped_pair_stops_counting():
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    for _ in range(3):  # three rated games of a and b today (rows only: ratings stay 1500, 0 games)
        prior = make_game(users=[a, b], places=[1, 2])
        for seat, user in enumerate((a, b)):
            RatingChange.objects.create(game=prior, user=user, game_name="chinchirorin", seat=seat, place=seat + 1,
                                        before=1500, after=1500, change=0, k=40)
    game = make_game(users=[a, b, c], places=[1, 2, 3])
    changes = {ch.user_id: ch.change for ch in services.game_rate(game_id=game.id)}
    # K40/(3-1) = 20; a: 20 × (0 × (1 - .5) + (1 - .5)) = +10; b: 20 × (0 × (0 - .5) + (1 - .5)) = +10;
    # c: 20 × ((0 - .5) + (0 - .5)) = -20
    assert changes == {a.pk: 10, b.pk: 10, c.pk: -20}


def test_elo_pair_weights():
    seats = [elo.SeatInput(1500, 0, 1), elo.SeatInput(1500, 0, 2)]
    assert elo.rating_changes(seats, [[1, 0], [0, 1]]) == [0, 0]
    assert elo.rating_changes(seats, [[1, 0.5], [0.5, 1]]) == [10, -10]
    assert elo.rating_changes(seats) == [20, -20]
