"""Two tables ending at the same moment start the next round exactly once (PostgreSQL: real row locks;
threads each on their own connection)."""

import time

import pytest
from django.utils import timezone

from games.models import Game
from tests.concurrency import run_together
from tests.tournaments.conftest import make_tournament, round_tables, start_now
from tournaments import services
from tournaments.models import TournamentTable

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def slow_places(monkeypatch):
    """Widen the race: reading a table's places takes 0.2 s (between recording it and looking at the
    round's other tables)."""
    fast = services._places
    monkeypatch.setattr(services, "_places", lambda game, players: (time.sleep(0.2), fast(game, players))[1])


def finish(game_id: int, places: list[int]) -> None:
    Game.objects.filter(pk=game_id).update(
        status=Game.FINISHED, finished_at=timezone.now(),
        result={"standing": [{"seat": i, "place": p} for i, p in enumerate(places)], "reason": "test"})


@pytest.mark.parametrize("attempt", range(3))
def test_two_tables_ending_together_start_the_next_round_once(slow_places, attempt):
    t, users = make_tournament(4, rounds=3)
    ids = [u.pk for u in users]
    start_now(t)
    g1, g2 = (tb.game_id for tb in round_tables(t, 1))
    finish(g1, [1, 2])
    finish(g2, [2, 1])
    results = run_together(lambda: services.tournament_table_ended(game_id=g1),
                           lambda: services.tournament_table_ended(game_id=g2),
                           lambda: services.tournament_table_ended(game_id=g1))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(results) == [False, True, True]  # each table recorded once
    t.refresh_from_db()
    assert t.round == 2
    # round 2 made once: 1-4 and 2-3 (1 and 4 won), two rooms and no more
    assert [tb.players for tb in round_tables(t, 2)] == [[ids[0], ids[3]], [ids[1], ids[2]]]
    assert TournamentTable.objects.filter(tournament=t).count() == 4
    assert Game.objects.filter(status=Game.PLAYING).count() == 2
