"""Celery tasks of the rooms app (thin: they call a service)."""

from celery import shared_task

from rooms.services import rooms_close_idle


@shared_task(name="rooms.close_idle_rooms")
def close_idle_rooms() -> int:
    """Close rooms not playing and idle for 24 h (schedule it with Celery beat, e.g. every 10 minutes)."""
    return rooms_close_idle()
