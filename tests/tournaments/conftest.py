"""Helpers of the tournament tests: make a tournament, start it now, end a table's game."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games_services
from games.models import Game
from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Tournament, TournamentTable


@pytest.fixture(autouse=True)
def _on_commit_runs_at_once(request, monkeypatch):
    """Tests wrapped in one transaction never commit: run ``on_commit`` callbacks at once (the game's
    ``game_finished``, the broadcasts) as the commit would. ``transaction=True`` tests keep Django's."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or marker.kwargs.get("transaction"):
        return
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, using=None, robust=False: fn())


def make_tournament(n: int, *, game="chinchirorin", format="swiss", rounds=3, seats=2, **kw) -> tuple[Tournament, list]:
    """A tournament of ``n`` registered entrants (the first organises), starting in an hour."""
    users = [UserFactory() for _ in range(n)]
    t = services.tournament_create(user=users[0], game=game, format=format, rounds=rounds, seats=seats,
                                   starts_at=timezone.now() + timedelta(hours=1), **kw)
    for u in users[1:]:
        services.tournament_join(code=t.code, user=u)
    return t, users


def start_now(t: Tournament) -> Tournament:
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    assert services.tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    return t


def round_tables(t: Tournament, r: int) -> list[TournamentTable]:
    return list(TournamentTable.objects.filter(tournament=t, round=r).order_by("index"))


def end_game(game_id: int, places: list[int]) -> None:
    """Write a finished result for the table's game (as the engine's end would) and hand it over."""
    Game.objects.filter(pk=game_id).update(
        status=Game.FINISHED, finished_at=timezone.now(),
        result={"standing": [{"seat": i, "place": p} for i, p in enumerate(places)], "reason": "test"})
    services.tournament_table_ended(game_id=game_id)


def play_out(game_ids: list[int], limit: int = 3000) -> None:
    """Play the games to their end for real: every human seat handed to the CPU, then its due moves
    made due and run by the sweep until no game is playing."""
    for gid in game_ids:
        game = Game.objects.get(pk=gid)
        for p in game.players.select_related("user"):
            if p.user is not None:
                games_services.game_set_autoplay(game_id=gid, user=p.user, on=True)
    for _ in range(limit):
        live = Game.objects.filter(pk__in=game_ids, status=Game.PLAYING)
        if not live.exists():
            return
        live.update(bot_due_at=timezone.now() - timedelta(seconds=1))
        games_services.game_sweep()
    raise AssertionError("games did not end")
