"""Presence for clients without a socket (issue "What client developers ... miss", item 7): a player's
request for its game (view, log, action) or ``POST /api/games/{id}/heartbeat`` keeps its seat present for
60 s; only then does the away grace (AWAY_GRACE_SECONDS, 10 s here) start. Times come from a fake clock."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from games import services, timers
from games.models import GamePlayer
from tests.factories import UserFactory
from tests.games.factories import GameFactory, human

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(monkeypatch, settings):
    settings.AWAY_GRACE_SECONDS = 10
    now = [timezone.now().replace(microsecond=0)]
    monkeypatch.setattr("games.locking._now", lambda: now[0])
    return now


def _gp(game, user) -> GamePlayer:
    return GamePlayer.objects.get(game=game, user=user)


def _away_after(game, clock, seconds) -> int:
    return services.game_sweep(now=clock[0] + timedelta(seconds=seconds))["away"]


def test_a_view_keeps_a_socketless_seat_present_60_s_then_the_grace(make_client, clock, monkeypatch):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])
    t0 = clock[0]
    assert make_client(a).get(f"/api/games/{game.pk}").status_code == 200
    assert _gp(game, a).disconnected_at == t0 + timedelta(seconds=60)
    assert _gp(game, b).disconnected_at is None  # never asked: present as before
    clock[0] = t0 + timedelta(seconds=69)
    assert _away_after(game, clock, 0) == 0 and not _gp(game, a).away  # 60 s present + 9 s of grace
    clock[0] = t0 + timedelta(seconds=70)
    assert _away_after(game, clock, 0) == 1 and _gp(game, a).away


def test_heartbeat_and_log_extend_presence(make_client, clock):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])
    client = make_client(a)
    t0 = clock[0]
    assert client.post(f"/api/games/{game.pk}/heartbeat").status_code == 204
    clock[0] = t0 + timedelta(seconds=50)
    cache.clear()  # the write throttle counts real seconds: as if 15 s had passed
    assert client.get(f"/api/games/{game.pk}/log").status_code == 200
    assert _gp(game, a).disconnected_at == t0 + timedelta(seconds=110)
    clock[0] = t0 + timedelta(seconds=119)
    assert _away_after(game, clock, 0) == 0
    clock[0] = t0 + timedelta(seconds=120)
    assert _away_after(game, clock, 0) == 1


def test_writes_are_throttled(make_client, clock):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])
    client = make_client(a)
    client.get(f"/api/games/{game.pk}")
    first = _gp(game, a).disconnected_at
    clock[0] += timedelta(seconds=30)
    client.get(f"/api/games/{game.pk}")  # within 15 s (real time) of the last write: the cache only
    assert _gp(game, a).disconnected_at == first


def test_an_action_counts_as_presence(make_client, clock):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])  # chinchirorin, seat 0 deals: seat 1 bets first
    res = make_client(b).post(f"/api/games/{game.pk}/actions", {"type": "bet", "amount": 10, "seq": 0},
                              format="json")
    assert res.status_code == 200, res.json()
    assert _gp(game, b).disconnected_at == clock[0] + timedelta(seconds=60)


def test_a_socket_closing_keeps_the_rest_presence(clock):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])
    t0 = clock[0]
    services.game_note_seen(game_id=game.pk, user=a)
    clock[0] = t0 + timedelta(seconds=5)
    services.game_set_connected(game_id=game.pk, seat=0, connected=True, user_id=a.pk)
    assert _gp(game, a).disconnected_at is None
    clock[0] = t0 + timedelta(seconds=10)
    services.game_set_connected(game_id=game.pk, seat=0, connected=False, user_id=a.pk)
    assert _gp(game, a).disconnected_at == t0 + timedelta(seconds=60)  # not t0 + 10: the request counts


def test_heartbeat_errors(make_client, api):
    a, b = UserFactory(), UserFactory()
    game = GameFactory(seats=[human(a), human(b)])
    res = make_client(UserFactory()).post(f"/api/games/{game.pk}/heartbeat")
    assert (res.status_code, res.json()["code"]) == (403, "not_a_player")
    res = make_client(a).post("/api/games/999999/heartbeat")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")
    assert api.post(f"/api/games/{game.pk}/heartbeat").status_code == 401


def test_a_process_writes_a_players_time_at_most_every_5_s(make_client, clock, monkeypatch):
    """Requests of one player for one game within 5 s write its time to the cache once (the time kept is
    then up to 5 s old); other players and games are written apart; after 5 s it is written again."""
    a, b = UserFactory(), UserFactory()
    game, other = GameFactory(seats=[human(a), human(b)]), GameFactory(seats=[human(a), human(b)])
    presence = timers._presence_cache()
    writes, real_set = [], presence.set
    monkeypatch.setattr(presence, "set", lambda key, value, timeout=None: writes.append((key, value))
                        or real_set(key, value, timeout))
    t0 = clock[0]
    for seconds in (0, 1, 4.9):
        clock[0] = t0 + timedelta(seconds=seconds)
        services.game_note_seen(game_id=game.pk, user=a, write=False)
    services.game_note_seen(game_id=game.pk, user=b, write=False)
    services.game_note_seen(game_id=other.pk, user=a, write=False)
    clock[0] = t0 + timedelta(seconds=5)
    services.game_note_seen(game_id=game.pk, user=a, write=False)
    times = [(key, round(value - t0.timestamp(), 3)) for key, value in writes]
    assert times == [(f"game-seen:{game.pk}:{a.pk}", 0), (f"game-seen:{game.pk}:{b.pk}", 4.9),
                     (f"game-seen:{other.pk}:{a.pk}", 4.9), (f"game-seen:{game.pk}:{a.pk}", 5)]
    assert timers._last_seen(game.pk, a.pk) == t0 + timedelta(seconds=5)


def test_the_presence_cache_follows_a_change_of_the_caches_setting(settings):
    """One cache instance per process (``timers._presence_cache``), made anew when CACHES changes."""
    before = timers._presence_cache()
    assert timers._presence_cache() is before
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "other"}}
    after = timers._presence_cache()
    assert after is not before and type(after).__name__ == "LocMemCache"
