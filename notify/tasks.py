"""Celery tasks of notify: Web Push posts leave the request that caused them."""

from celery import shared_task

from notify.push import push_to_user


@shared_task(name="notify.push", ignore_result=True)
def push(user_id: int, payload: dict) -> int:
    """Send ``payload`` to every push subscription of ``user_id`` (:func:`notify.push.push_to_user`)."""
    return push_to_user(user_id, payload)
