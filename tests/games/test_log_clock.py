"""The log's times are the game service's clock: a row's ``created_at`` is the moment its transition ran
(from which its window's deadline counts), and a game's is its start's, not the later moment of the
write; so a timeout row comes exactly a turn after the row before it on the log, however busy the machine
was between the transition and its write (bench_server.py ``--timer-games`` reads them so)."""

from datetime import UTC, datetime, timedelta

import pytest

from games import services
from games.models import Game, GameAction
from tests.games.factories import GameFactory, human

pytestmark = pytest.mark.django_db


def test_the_log_and_the_deadlines_share_one_clock(monkeypatch):
    clock = [datetime(2026, 1, 1, 12, 0, tzinfo=UTC)]
    monkeypatch.setattr("games.locking._now", lambda: clock[0])
    game = GameFactory(seats=[human(), human()], turn_seconds=30)
    game.refresh_from_db()
    start = GameAction.objects.get(game=game, seq=0)
    assert game.created_at == start.created_at == game.window_opened_at == clock[0]
    assert game.deadline == clock[0] + timedelta(seconds=30)
    clock[0] = game.deadline  # the timer, on time
    assert services.game_handle_timeout(game_id=game.pk, seq=game.seq) is True
    row = GameAction.objects.get(game=game, seq=1)
    assert (row.by, row.created_at - start.created_at) == ("timeout", timedelta(seconds=30))
    game = Game.objects.get(pk=game.pk)
    assert game.window_opened_at == row.created_at
