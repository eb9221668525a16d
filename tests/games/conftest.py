"""Fixtures of the games tests: broadcasts captured, clocks moved by editing the stored times."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game


@pytest.fixture
def sent(monkeypatch):
    """Every channel-layer message the games app sends: a list of ``(group, message)``."""
    out = []
    monkeypatch.setattr("games.events.group_send", lambda group, message: out.append((group, message)))
    monkeypatch.setattr("games.events.group_send_many", lambda messages: out.extend(messages))
    return out


def expire(game: Game, seconds: float = 1.0) -> None:
    """Put the stored deadline ``seconds`` in the past (as if time had passed)."""
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=seconds))
    game.refresh_from_db()


def make_due(game: Game, seconds: float = 0.01) -> None:
    """Put the stored CPU due time in the past."""
    Game.objects.filter(pk=game.pk).update(bot_due_at=timezone.now() - timedelta(seconds=seconds))
    game.refresh_from_db()


@pytest.fixture(autouse=True)
def _on_commit_runs_at_once(request, monkeypatch):
    """In tests wrapped in one transaction nothing ever commits, so run ``on_commit`` callbacks at once
    (as the commit would). Tests with ``transaction=True`` commit for real and keep Django's behaviour."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or marker.kwargs.get("transaction"):
        return
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, using=None, robust=False: fn())
