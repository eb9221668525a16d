"""Celery tasks of accounts."""

from celery import shared_task

from accounts.traces import traces_purge


@shared_task(name="accounts.traces_purge")
def purge_traces() -> int:
    """Delete address / device traces older than ``TRACE_DAYS`` (``accounts.traces``); returns how many."""
    return traces_purge()
