"""Fixtures of the games tests: broadcasts captured, clocks moved by editing the stored times."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from games.events import seat_share
from games.models import Game


def socket_shares(group: str, message: dict) -> list[tuple[str, dict]]:
    """What the sockets of ``group`` forward of one channel-layer message: a ``game.update`` (every seat's
    payload in one message) as ``(f"{group}-seat-{n}", {"type", "after", "payload"})`` for each seat (the
    names of the per-seat groups there were, kept as labels: what seat n's socket gets), and
    ``f"{group}-spectators"`` when it holds the spectators' payload, each picked by
    ``games.events.seat_share`` as the consumer picks it; any other message as it is."""
    if message.get("type") != "game.update":
        return [(group, message)]
    shares = [(f"{group}-seat-{seat}", {"type": message["type"], "after": message["after"], "payload": json.loads(
                  seat_share(message, int(seat), share["user"])["text"])}) for seat, share in message["seats"].items()]
    if seat_share(message, None) is not None:
        shares.append((f"{group}-spectators", {"type": message["type"], "after": message["after"],
                                               "payload": json.loads(seat_share(message, None)["text"])}))
    return shares


GAMES_MESSAGES = frozenset({"game.update", "room.presence"})  # the games app's own (games.events builds them)


@pytest.fixture
def sent(monkeypatch):
    """Every channel-layer message the games app sends (its broadcasts and presence), as its sockets get
    it: a list of ``(group, message)``, a broadcast split into each seat's share (:func:`socket_shares`).
    The other apps' messages (a room's, an achievement), which go out the same way, are not kept."""
    out = []

    def keep(group: str, message: dict) -> None:
        if message.get("type") in GAMES_MESSAGES:
            out.extend(socket_shares(group, message))

    monkeypatch.setattr("games.events.group_send", keep)
    monkeypatch.setattr("games.events.group_send_many", lambda messages: [keep(g, m) for g, m in messages])
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
