"""Rated exactly once under concurrency, and no lost update when two games sharing a player end together
(PostgreSQL: real row locks; threads each on their own connection)."""


import pytest

from ranking import services
from ranking.models import Rating, RatingChange
from tests.concurrency import run_together as together
from tests.ranking.factories import UserFactory, make_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_together(*calls) -> None:
    """:func:`tests.concurrency.run_together`, failing on the first error."""
    errors = [r for r in together(*calls) if isinstance(r, Exception)]
    assert not errors, errors


@pytest.fixture
def slow_elo(monkeypatch):
    """Widen the race: computing the changes takes 0.2 s (between reading and writing the ratings)."""
    import time

    from ranking import elo

    fast = elo.rating_changes
    monkeypatch.setattr(elo, "rating_changes", lambda seats, weights=None: (time.sleep(0.2), fast(seats, weights))[1])


def existing_ratings(*users):
    """Rating rows that already exist (else inserting them would already serialise the runs)."""
    for u in users:
        Rating.objects.create(user=u, game="chinchirorin", rating=1500, games=0)


def test_same_game_rated_once_by_concurrent_runs(slow_elo):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    existing_ratings(a, b, c)
    g = make_game(users=[c, a, b], places=[1, 2, 3])
    run_together(*[lambda: services.game_process_finished(game_id=g.id)] * 6)
    assert RatingChange.objects.filter(game=g).count() == 3
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1, 1]
    # three equal players, K = 40, factor 20: +20, 0, -20
    assert {r.user_id: r.rating for r in Rating.objects.all()} == {c.id: 1520, a.id: 1500, b.id: 1480}


def test_a_game_is_recorded_once_by_concurrent_runs(monkeypatch):
    """Six runs of the recording at once (the task ran twice, a retry...): one record per seat, each
    achievement and its XP once (the runs take turns on the game's advisory lock)."""
    import time

    from ranking import gamelog
    from ranking.models import AchievementAward, GameRecord, XpGrant

    slow = gamelog.seat_facts  # widen the race: between reading what is recorded and writing it
    monkeypatch.setattr(gamelog, "seat_facts", lambda *args: (time.sleep(0.2), slow(*args))[1])
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    g = make_game(users=[a, b, c], places=[1, 2, 3], ranked=False)
    run_together(*[lambda: services.game_record(game_id=g.id)] * 6)
    assert sorted(GameRecord.objects.filter(game=g).values_list("user_id", flat=True)) == sorted([a.id, b.id, c.id])
    awards = list(AchievementAward.objects.values_list("user_id", "achievement"))
    assert len(awards) == len(set(awards)) and (a.id, "first_win") in awards
    assert XpGrant.objects.filter(reason="achievement").count() == len(awards)


def test_two_games_sharing_a_player_both_apply(slow_elo):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    existing_ratings(a, b, c)
    g1 = make_game(users=[a, b], places=[1, 2])
    g2 = make_game(users=[c, a], places=[2, 1])  # other seat order: locks still taken in user-id order
    for _ in range(3):
        run_together(lambda: services.game_rate(game_id=g1.id), lambda: services.game_rate(game_id=g2.id))
    ra = Rating.objects.get(user=a, game="chinchirorin")
    assert ra.games == 2
    ch = list(RatingChange.objects.filter(user=a).order_by("id"))
    assert len(ch) == 2
    # whichever ran second read the first one's result: the changes chain
    first, second = sorted(ch, key=lambda x: x.before)
    assert first.before == 1500 and first.after == 1520
    assert second.before == first.after
    assert ra.rating == second.after
    # a at 1520 beating a 1500 newcomer: 40 × (1 - 1/(1 + 10^(-20/400))) = 40 × 0.471239 = 18.85 -> +19
    assert second.change == 19
    assert sorted(Rating.objects.exclude(user=a).values_list("rating", flat=True)) == [1480, 1481]


def test_two_friends_joining_the_queue_at_once_are_matched(monkeypatch):
    from types import SimpleNamespace

    from ranking.models import QueueEntry
    from tests.ranking.factories import FriendshipFactory

    made = []
    monkeypatch.setattr("rooms.services.room_create_ranked_for_queue",
                        lambda *, game, seats, users, rules=None: made.append(users) or SimpleNamespace(code="ABC234"))
    import time

    slow = services.friend_ids
    # widen the race: each join waits between writing its entry and looking for friends
    monkeypatch.setattr(services, "friend_ids", lambda uid: (time.sleep(0.3), slow(uid))[1])
    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    run_together(lambda: services.queue_join(user=a, game="chinchirorin", seats=2),
                 lambda: services.queue_join(user=b, game="chinchirorin", seats=2))
    # the advisory lock serialises the two: the second sees the first waiting and matches
    assert len(made) == 1
    assert set(QueueEntry.objects.values_list("status", "room_code")) == {("matched", "ABC234")}
