"""Issue 38's metrics (open reports, reports and sanctions of the last hour, coins minted and spent in the
last hour; values worked out from what each test did) and the example alert rules: valid, the five
alerts asked for, and every metric an expression names is one a scrape of the service returns."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.core.cache import cache
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from accounts import sanctions
from accounts.models import Sanction
from coins.models import LedgerEntry
from coins.services import wallet_move
from games.models import SweepHeartbeat
from moderation import services as moderation
from moderation.models import Report
from tests.factories import UserFactory
from tests.games.factories import GameFactory, cpu, human

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ops-metrics-token"


def scrape(client) -> dict:
    res = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert res.status_code == 200
    return {(s.name, frozenset(s.labels.items())): s.value
            for fam in text_string_to_metric_families(res.content.decode()) for s in fam.samples}


def value(got: dict, name: str, **labels) -> float:
    return got[(name, frozenset(labels.items()))]


@pytest.mark.django_db
def test_reports_and_sanctions_open_and_of_the_last_hour(client, settings):
    settings.METRICS_TOKEN = TOKEN
    mod, a, b, c, d = (UserFactory() for _ in range(5))
    r1 = moderation.report_create(reporter=a, kind="user", target_id=b.pk, reason="spam")
    moderation.report_create(reporter=a, kind="user", target_id=c.pk, reason="hate")
    old = moderation.report_create(reporter=b, kind="user", target_id=c.pk, reason="spam")
    Report.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=2))
    moderation.report_resolve(report_id=r1.pk, by=mod, outcome="dismiss", note="ok")
    soon = timezone.now() + timedelta(hours=1)
    sanctions.user_mute(user=b, by=mod, reason="x", until=soon)
    sanctions.user_mute(user=c, by=mod, reason="x", until=soon)
    sanctions.user_suspend(user=d, by=mod, reason="x", until=soon)
    earlier = sanctions.user_ban(user=c, by=mod, reason="x")
    Sanction.objects.filter(pk=earlier.pk).update(created_at=timezone.now() - timedelta(minutes=61))

    got = scrape(client)
    assert value(got, "chinchi_reports_open") == 2  # three filed, one resolved
    assert value(got, "chinchi_reports_last_hour") == 2  # the third was filed two hours ago
    assert value(got, "chinchi_sanctions_last_hour", kind="mute") == 2
    assert value(got, "chinchi_sanctions_last_hour", kind="suspend") == 1
    assert value(got, "chinchi_sanctions_last_hour", kind="ban") == 0  # 61 minutes ago

    # Computed at most every 30 s for all replicas: a new report shows once the cached values expire.
    moderation.report_create(reporter=d, kind="user", target_id=a.pk, reason="spam")
    assert value(scrape(client), "chinchi_reports_open") == 2
    cache.delete("metrics:moderation")
    assert value(scrape(client), "chinchi_reports_open") == 3


@pytest.mark.django_db
def test_coins_minted_and_spent_in_the_last_hour(client, settings):
    settings.METRICS_TOKEN = TOKEN
    mod, a, b = UserFactory(), UserFactory(), UserFactory()  # 500 coins each: start grants
    GameFactory(game="chinchon", rules={"stake": 25}, seats=[human(a), cpu(), human(b)])  # two stakes of 25
    wallet_move(user_id=a.pk, amount=40, reason="adjustment", note="goodwill", by=mod)
    wallet_move(user_id=b.pk, amount=-15, reason="adjustment", note="correction", by=mod)
    wallet_move(user_id=b.pk, amount=100, reason="daily_grant", key="daily:old")
    LedgerEntry.objects.filter(key="daily:old").update(created_at=timezone.now() - timedelta(hours=3))

    got = scrape(client)
    assert value(got, "chinchi_coins_minted_last_hour", reason="start_grant") == 3 * 500
    assert value(got, "chinchi_coins_minted_last_hour", reason="adjustment") == 40
    assert value(got, "chinchi_coins_minted_last_hour", reason="daily_grant") == 0  # three hours ago
    assert value(got, "chinchi_coins_minted_last_hour", reason="challenge") == 0
    assert value(got, "chinchi_coins_spent_last_hour", reason="stake") == 2 * 25
    assert value(got, "chinchi_coins_spent_last_hour", reason="adjustment") == 15
    assert value(got, "chinchi_coins_spent_last_hour", reason="reentry") == 0


def _alert_rules() -> list[dict]:
    doc = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


@pytest.mark.redis
@pytest.mark.django_db
def test_alert_rules_name_only_metrics_the_service_exports(client, settings):
    rules = _alert_rules()
    assert {r["alert"] for r in rules} == {"ChinchiSweeperStalled", "ChinchiHttp5xxRate", "ChinchiHttpP99Latency",
                                           "ChinchiCeleryQueueDepth", "ChinchiOpenReports"}
    for rule in rules:
        assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert re.fullmatch(r"\d+[smh]", rule["for"]) and rule["labels"]["severity"]
        assert rule["expr"].count("(") == rule["expr"].count(")")
    settings.METRICS_TOKEN = TOKEN
    SweepHeartbeat.objects.update_or_create(pk=1, defaults={"at": timezone.now()})
    assert client.get("/api/games/catalogue").status_code == 200  # request counters and histograms
    exported = {name for name, _labels in scrape(client)}
    for rule in rules:
        names = set(re.findall(r"\bchinchi_[a-z0-9_]+", rule["expr"]))
        assert names and names <= exported, (rule["alert"], names - exported)
        for label in re.findall(r"(\w+)\s*[=!]~?\s*\"", rule["expr"]):
            assert label in ("status", "route", "method", "queue", "le"), (rule["alert"], label)
