"""Who is online: a signed-in user with a user socket (``/ws/me/``) open, marked in the cache.

Each user socket marks its user at its opening and at each of its pings (the page pings well within
``ONLINE_SECONDS``); the mark lapses ``ONLINE_SECONDS`` after the last one, or at once when a socket
closes (another socket of the user marks it again at its next ping). Nothing is written to the database.
"""

from django.core.cache import cache

ONLINE_SECONDS = 90
_KEY = "online:{}"


def online_key(user_id: int) -> str:
    """The cache key of ``user_id``'s online mark (present while online)."""
    return _KEY.format(user_id)


def mark_online(user_id: int) -> None:
    cache.set(_KEY.format(user_id), 1, ONLINE_SECONDS)


def mark_offline(user_id: int) -> None:
    cache.delete(_KEY.format(user_id))


def online_ids(user_ids) -> set[int]:
    """The ones of ``user_ids`` online now (one cache round trip)."""
    ids = list(user_ids)
    if not ids:
        return set()
    found = cache.get_many([_KEY.format(i) for i in ids])
    return {i for i in ids if _KEY.format(i) in found}
