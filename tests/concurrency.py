"""Running test code at the same moment from several threads (each on its own database connection)."""

import threading

from django.db import connection


def run_together(*calls) -> list:
    """Run the callables in threads released together by a barrier; returns, in order, each one's result
    or the exception it raised. Each thread closes its database connection when done."""
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
