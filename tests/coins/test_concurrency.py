"""The wallet under concurrency on PostgreSQL (threads, each on its own connection): no lost update, never
below zero, the balance always the ledger's sum."""

import threading

import pytest
from django.db import connection
from django.db.models import Sum

from coins import services
from coins.models import LedgerEntry, Wallet
from tests.factories import UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_together(*calls) -> list:
    """Run the callables in threads released together; returns their results or exceptions."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def worker(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except Exception as exc:  # noqa: BLE001 - returned to the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_concurrent_spending_never_overdraws():
    user = UserFactory()  # 500 coins
    results = run_together(*[lambda: services.wallet_move(user_id=user.pk, amount=-120, reason="stake")] * 8)
    refused = [r for r in results if isinstance(r, services.InsufficientCoins)]
    assert len(refused) == 4 and all(isinstance(r, LedgerEntry) for r in results if r not in refused)
    total = LedgerEntry.objects.filter(wallet_id=user.pk).aggregate(s=Sum("amount"))["s"]
    assert Wallet.objects.get(pk=user.pk).balance == total == 20  # 500 - 4 * 120


def test_concurrent_keyed_movements_post_once():
    user = UserFactory()
    results = run_together(*[lambda: services.wallet_move(user_id=user.pk, amount=7, reason="pot", key="pot:1")] * 6)
    assert sum(isinstance(r, LedgerEntry) for r in results) == 1
    assert Wallet.objects.get(pk=user.pk).balance == 507
