"""Daily and weekly challenges: the rotation from the date, progress from the per-seat facts stored for
statistics (GameRecord), claims once (coins and XP). The clock is fixed at Tuesday 2026-12-01 12:00 UTC
(ISO week 2026-W49, from Monday 2026-11-30)."""

import hashlib
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from coins import challenges
from coins.models import LedgerEntry, Wallet
from games.models import Game
from ranking.models import GameRecord
from tests.factories import UserFactory

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ACTIVE_ON_DEC_1 = [
    "chinchirorin.daily.wins_2", "chinchirorin.daily.hands_finished_30", "chinchirorin.weekly.pinzoro_1",
    "chinchon.daily.games_3", "chinchon.daily.wins_2", "chinchon.weekly.games_15",
]


def test_periods():
    day = challenges.period_of("daily", NOW)
    week = challenges.period_of("weekly", NOW)
    assert (day.key, day.start, day.end) == ("2026-12-01", datetime(2026, 12, 1, tzinfo=UTC), datetime(2026, 12, 2, tzinfo=UTC))
    assert (week.key, week.start, week.end) == ("2026-W49", datetime(2026, 11, 30, tzinfo=UTC),
                                                datetime(2026, 12, 7, tzinfo=UTC))
    assert challenges.period_of("weekly", datetime(2026, 12, 6, 23, 59, tzinfo=UTC)).key == "2026-W49"
    assert challenges.period_of("weekly", datetime(2026, 12, 7, tzinfo=UTC)).key == "2026-W50"


def test_the_rotation_follows_the_date():
    assert [c.id for c, _ in challenges.active(NOW)] == ACTIVE_ON_DEC_1
    # the daily picks are the two with the smallest sha256("<date>|<id>")
    pool = [c.id for c in challenges.CATALOGUE if c.game == "chinchon" and c.period == "daily"]
    ranked = sorted(pool, key=lambda i: hashlib.sha256(f"2026-12-01|{i}".encode()).hexdigest())
    assert set(ranked[:2]) == {"chinchon.daily.games_3", "chinchon.daily.wins_2"}
    tomorrow = [c.id for c, _ in challenges.active(NOW + timedelta(days=1))]
    assert tomorrow != ACTIVE_ON_DEC_1 and "chinchon.weekly.games_15" in tomorrow  # the weekly one stays
    for day in range(7):  # two daily and one weekly per game, every day
        kinds = Counter((c.game, c.period) for c, _ in challenges.active(NOW + timedelta(days=day)))
        assert kinds == {("chinchirorin", "daily"): 2, ("chinchirorin", "weekly"): 1, ("chinchon", "daily"): 2,
                         ("chinchon", "weekly"): 1}


@pytest.fixture
def at_noon(monkeypatch):
    monkeypatch.setattr("django.utils.timezone.now", lambda: NOW)


def record(user, game_name, at, **kw):
    game = Game.objects.create(game=game_name, seed=b"s" * 32, status="finished")
    fields = {"seat": 0, "place": 1 if kw.get("outcome", "loss") == "win" else 2, "seats": 2, "outcome": "loss"}
    fields.update(kw)
    counts = not (fields.get("resigned") or fields.get("played_for")) or bool(fields.get("eliminated"))
    fields.setdefault("counts", counts)  # as ranking.eligibility judged a game with a real opponent
    fields.setdefault("win_counts", fields["counts"] and fields["outcome"] == "win")
    return GameRecord.objects.create(game=game, user=user, game_name=game_name, finished_at=at, **fields)


@pytest.mark.django_db
def test_progress_and_claims(make_client, at_noon):
    user, other = UserFactory(), UserFactory()
    h = timedelta(hours=1)
    record(user, "chinchon", NOW - 2 * h, outcome="win", hands_finished=5)
    record(user, "chinchon", NOW - h)
    record(user, "chinchon", NOW - 13 * h, outcome="win")  # Monday 23:00: this week, not today
    record(user, "chinchon", NOW - 3 * h, outcome="win", resigned=True)  # resigned: no XP, not counted
    record(user, "chinchon", NOW - 4 * h, resigned=True, eliminated=True)  # eliminated first: counted
    record(user, "chinchon", NOW - 40 * h, outcome="win")  # Sunday: last week
    record(user, "chinchirorin", NOW - h, outcome="win", pinzoro=1, hands_finished=12)
    record(other, "chinchon", NOW - h, outcome="win")
    client = make_client(user)
    rows = {r["id"]: r for r in client.get("/api/challenges").json()["challenges"]}
    assert list(rows) == ACTIVE_ON_DEC_1
    got = {i: (r["progress"], r["target"], r["completed"], r["claimed"]) for i, r in rows.items()}
    assert got == {
        "chinchon.daily.games_3": (3, 3, True, False),  # 10:00, 11:00 and the eliminated 08:00
        "chinchon.daily.wins_2": (1, 2, False, False),
        "chinchon.weekly.games_15": (4, 15, False, False),  # + Monday 23:00
        "chinchirorin.daily.wins_2": (1, 2, False, False),
        "chinchirorin.daily.hands_finished_30": (12, 30, False, False),
        "chinchirorin.weekly.pinzoro_1": (1, 1, True, False),
    }
    r = rows["chinchon.daily.games_3"]
    assert r["reward"] == {"coins": 40, "xp": 20} and r["period"] == "daily" and r["name"] == "Three at the table"
    assert (r["starts_at"], r["ends_at"]) == ("2026-12-01T00:00:00.000Z", "2026-12-02T00:00:00.000Z")

    res = client.post("/api/challenges/chinchon.daily.games_3/claim")
    assert res.status_code == 201, res.json()
    assert res.json()["balance"] == 540 and res.json()["entry"]["reason"] == "challenge"
    assert res.json()["challenge"]["claimed"] is True
    assert client.get("/api/challenges").json()["challenges"][3]["claimed"] is True
    res = client.post("/api/challenges/chinchon.daily.games_3/claim")
    assert (res.status_code, res.json()["code"]) == (409, "challenge_claimed")
    res = client.post("/api/challenges/chinchon.daily.wins_2/claim")
    assert (res.status_code, res.json()["code"]) == (409, "challenge_not_completed")
    for gone in ("chinchon.daily.minus_ten_1", "nope"):  # not active today / not a challenge
        assert client.post(f"/api/challenges/{gone}/claim").status_code == 404
    assert client.post("/api/challenges/chinchirorin.weekly.pinzoro_1/claim").status_code == 201
    assert Wallet.objects.get(pk=user.pk).balance == 840  # 500 + 40 + 300
    entry = LedgerEntry.objects.filter(wallet_id=user.pk, reason="challenge").order_by("id").first()
    assert (entry.challenge, entry.key) == ("chinchon.daily.games_3", "challenge:chinchon.daily.games_3:2026-12-01")
    from ranking.models import XpGrant

    grants = sorted(XpGrant.objects.filter(user=user).values_list("reason", "ref", "amount"))
    assert grants == [("challenge", "chinchirorin.weekly.pinzoro_1:2026-W49", 150),
                      ("challenge", "chinchon.daily.games_3:2026-12-01", 20)]
    assert make_client(other).post("/api/challenges/chinchon.daily.games_3/claim").status_code == 409
