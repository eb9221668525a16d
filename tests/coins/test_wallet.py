"""Wallets and the ledger: start grant (guests too, kept on upgrade), the daily top-up, moderator
adjustments in the admin, the wallet API, and the invariants (never below zero; balance == ledger sum)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.db.models import Sum

from coins import services
from coins.models import LedgerEntry, Wallet
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def ledger_sum(user_id: int) -> int:
    return LedgerEntry.objects.filter(wallet_id=user_id).aggregate(s=Sum("amount"))["s"] or 0


def test_a_guest_starts_with_500_coins_and_keeps_them_on_upgrade(api, make_client):
    res = api.post("/api/auth/guest", {"display_name": "Hana"}, format="json")
    uid, token = res.json()["user"]["id"], res.json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    body = api.get("/api/me/wallet").json()
    assert body["balance"] == 500
    assert [(e["amount"], e["balance_after"], e["reason"]) for e in body["ledger"]["results"]] == [
        (500, 500, "start_grant")]
    assert body["stakes"] == [0, 10, 25, 50, 100]
    assert body["daily_grant"]["available"] is False and body["daily_grant"]["amount"] == 0
    services.wallet_move(user_id=uid, amount=-120, reason="stake")
    res = api.post("/api/auth/register", {"username": "hana", "password": "correct-horse-battery-9",
                                          "display_name": "Hana"}, format="json")
    assert res.status_code == 201 and res.json()["user"]["id"] == uid
    body = api.get("/api/me/wallet").json()
    assert body["balance"] == 380 and body["ledger"]["count"] == 2
    assert LedgerEntry.objects.filter(wallet_id=uid, reason="start_grant").count() == 1


def test_the_ledger_is_paged_newest_first(make_client):
    user = UserFactory()
    for i in range(1, 6):
        services.wallet_move(user_id=user.pk, amount=i, reason="adjustment", note=f"n{i}")
    client = make_client(user)
    page = client.get("/api/me/wallet?page_size=2").json()["ledger"]
    assert page["count"] == 6 and [e["amount"] for e in page["results"]] == [5, 4]
    page = client.get("/api/me/wallet?page_size=2&page=3").json()["ledger"]
    assert [e["amount"] for e in page["results"]] == [1, 500] and page["next"] is None
    assert client.get("/api/me/wallet?page=9").status_code == 404
    assert client.get("/api/me/wallet").json()["balance"] == 515  # 500 + 1+2+3+4+5


def test_daily_grant_tops_up_to_100_once_a_utc_day(make_client):
    user = UserFactory()
    client = make_client(user)
    res = client.post("/api/me/wallet/daily")
    assert res.status_code == 409 and res.json()["code"] == "daily_grant_unavailable"
    services.wallet_move(user_id=user.pk, amount=-470, reason="stake")  # 30 left
    assert client.get("/api/me/wallet").json()["daily_grant"]["amount"] == 70
    res = client.post("/api/me/wallet/daily")
    assert res.status_code == 201, res.json()
    assert res.json()["balance"] == 100 and res.json()["entry"]["amount"] == 70
    assert res.json()["entry"]["reason"] == "daily_grant" and res.json()["daily_grant"]["available"] is False
    services.wallet_move(user_id=user.pk, amount=-100, reason="stake")
    res = client.post("/api/me/wallet/daily")
    assert res.status_code == 409 and Wallet.objects.get(pk=user.pk).balance == 0  # already claimed today
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    assert services.wallet_claim_daily(user_id=user.pk, now=tomorrow).amount == 100
    assert Wallet.objects.get(pk=user.pk).balance == ledger_sum(user.pk) == 100


def test_a_movement_below_zero_is_refused_and_changes_nothing():
    user = UserFactory()
    with pytest.raises(services.InsufficientCoins) as exc:
        services.wallet_move(user_id=user.pk, amount=-501, reason="stake")
    assert exc.value.body() == {"code": "insufficient_coins", "detail": exc.value.body()["detail"],
                                "needed": 501, "balance": 500}
    assert Wallet.objects.get(pk=user.pk).balance == ledger_sum(user.pk) == 500
    assert services.wallet_move(user_id=user.pk, amount=-500, reason="stake").balance_after == 0


def test_a_keyed_movement_happens_once():
    user = UserFactory()
    assert services.wallet_move(user_id=user.pk, amount=-10, reason="stake", key="stake:1") is not None
    assert services.wallet_move(user_id=user.pk, amount=-10, reason="stake", key="stake:1") is None
    assert Wallet.objects.get(pk=user.pk).balance == 490


def test_the_database_refuses_a_negative_balance():
    user = UserFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Wallet.objects.filter(pk=user.pk).update(balance=-1)


def test_a_moderator_grants_and_removes_coins_in_the_admin(client):
    from django.contrib.auth.models import Permission

    player = UserFactory()
    mod = UserFactory(is_staff=True)
    mod.user_permissions.add(*Permission.objects.filter(codename__in=["adjust_wallet", "view_wallet",
                                                                      "view_ledgerentry", "add_ledgerentry"]))
    client.force_login(mod)
    url = "/admin/coins/ledgerentry/add/"
    res = client.post(url, {"user": player.pk, "amount": -40, "note": "refund of a bug"})
    assert res.status_code == 302, res.content[:2000]
    res = client.post(url, {"user": player.pk, "amount": -9999, "note": "too much"})
    assert res.status_code == 200 and b"cannot lose 9999" in res.content
    res = client.post(url, {"user": player.pk, "amount": 25, "note": "tournament prize"})
    rows = list(LedgerEntry.objects.filter(wallet_id=player.pk, reason="adjustment").order_by("id")
                .values_list("amount", "note", "created_by_id"))
    assert rows == [(-40, "refund of a bug", mod.pk), (25, "tournament prize", mod.pk)]
    assert Wallet.objects.get(pk=player.pk).balance == ledger_sum(player.pk) == 485
    assert client.get(f"/admin/coins/wallet/{player.pk}/change/").status_code == 200
    assert client.post(f"/admin/coins/wallet/{player.pk}/change/", {"balance": 9}).status_code == 403
    entry = LedgerEntry.objects.filter(wallet_id=player.pk).first()
    assert client.post(f"/admin/coins/ledgerentry/{entry.pk}/delete/").status_code == 403
    plain = UserFactory(is_staff=True)
    plain.user_permissions.add(*Permission.objects.filter(codename__in=["view_ledgerentry"]))
    client.force_login(plain)
    assert client.get(url).status_code == 403
