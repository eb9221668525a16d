"""The dashboard at the admin's front page (issue 11, item 5): figures computed by hand from the rows
made here, in one request with a bounded number of queries."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Sanction
from config.audit import audit_record
from games.models import Game, SweepHeartbeat
from moderation import dashboard
from moderation.models import Report
from rooms.models import Seat
from tests.factories import UserFactory
from tests.ranking.factories import make_game
from tests.rooms.factories import RoomFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_celery_ping(monkeypatch):
    """No worker runs in the tests: the Celery check answers at once."""
    from config import health

    monkeypatch.setattr(health, "check_celery", lambda: "down: no worker answered")


def _playing(game: str, preset: str | None, **extra) -> Game:
    rules = {"preset": preset} if preset else {}
    return Game.objects.create(game=game, rules=rules, state={}, seed=b"0" * 32, status=Game.PLAYING, **extra)


def test_the_figures(boss, superuser, django_assert_max_num_queries):
    now = timezone.now()
    # online: 2 distinct users with sockets (one of them in two rooms), 1 connected seat of a closed room
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    r1, r2, r3 = RoomFactory(host=a), RoomFactory(host=b), RoomFactory(host=c, status="closed")
    Seat.objects.filter(room=r1, index=0).update(connections=2)
    Seat.objects.filter(room=r2, index=0).update(connections=1)
    Seat.objects.filter(room=r2, index=1).update(user=a, connections=1)
    Seat.objects.filter(room=r3, index=0).update(connections=1)
    # in progress: chinchon standard ×2, wild_ace ×1, chinchirorin ×1; one deadline 10 s overdue, one 2 s
    _playing("chinchon", "standard", deadline=now - timedelta(seconds=10))
    _playing("chinchon", "standard", deadline=now - timedelta(seconds=2))
    _playing("chinchon", "wild_ace", bot_due_at=now - timedelta(seconds=30))
    _playing("chinchirorin", None)
    # finished: 2 today, 1 three days ago, 1 ten days ago (outside the week), 1 aborted today (not counted)
    for days in (0, 0, 3, 10):
        g = make_game(users=[a, b], places=[1, 2])
        Game.objects.filter(pk=g.pk).update(finished_at=now - timedelta(days=days))
    make_game(users=[a, b], places=[1, 2], status="aborted")
    # reports: 2 open, 1 resolved; sanctions: a mute in force, a lifted ban, an expired suspension
    for status in ("open", "open", "resolved"):
        Report.objects.create(reporter=UserFactory(), kind="user", target_key=f"user:{a.pk}", reason="spam",
                              status=status)
    Sanction.objects.create(user=a, kind="mute", reason="r", until=now + timedelta(hours=1))
    Sanction.objects.create(user=b, kind="ban", reason="r", lifted_at=now)
    Sanction.objects.create(user=c, kind="suspend", reason="r", until=now - timedelta(hours=1))
    SweepHeartbeat.objects.create(pk=1, at=now - timedelta(seconds=3))
    audit_record(actor=superuser, action="room_close", target=r1, reason="spam room")

    d = dashboard.dashboard_data(now=now)
    assert d["online"] == 2
    assert d["in_progress"] == [{"game": "chinchirorin", "preset": "", "count": 1},
                                {"game": "chinchon", "preset": "standard", "count": 2},
                                {"game": "chinchon", "preset": "wild_ace", "count": 1}]
    assert d["in_progress_total"] == 4
    assert (d["finished_today"], d["finished_week"]) == (2, 3)
    assert [day["count"] for day in d["finished_days"]] == [0, 0, 0, 1, 0, 0, 2]
    assert [day["percent"] for day in d["finished_days"]] == [0, 0, 0, 50, 0, 0, 100]
    assert (d["open_reports"], d["sanctions_in_force"], d["overdue"]) == (2, 1, 2)
    assert d["heartbeat_age"] == 3.0
    assert d["health"]["database"] == "ok" and d["health"]["celery"] == "down: no worker answered"
    latest = d["audit"][0]
    assert (latest.actor_id, latest.additional_data["action"], latest.additional_data["reason"]) == (
        superuser.pk, "room_close", "spam room")

    with django_assert_max_num_queries(20):  # session, user, perms, 9 figures, the app list
        page = boss.get("/admin/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "spam room" in html
    assert 'id="dash-online">2<' in html and 'id="dash-reports">2<' in html


def test_the_query_count_does_not_grow_with_the_tables(mod, django_assert_max_num_queries):
    a = UserFactory()
    for _ in range(5):
        make_game(users=[a, UserFactory()], places=[1, 2])
        _playing("chinchon", "standard")
        RoomFactory()
    with django_assert_max_num_queries(20):
        assert mod.get("/admin/").status_code == 200
