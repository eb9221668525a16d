"""Signals of the accounts app.

``user_out``: sent with ``sender=User`` and ``user`` (the user's row, locked) inside the transaction that
suspends, bans or deactivates a user, after the user's sockets are told to close at the commit
(:func:`accounts.sanctions.user_sockets_close_on_commit`). Receivers write in the same transaction and
must not raise for a user who holds nothing: rooms hands each of the user's seats to the CPU as when the
player leaves (``rooms.receivers``), ranking drops the user's ranked-queue entry (``ranking.receivers``).
Accounts imports neither: the upper apps connect in their ``AppConfig.ready()``.
"""

from django.dispatch import Signal

user_out = Signal()
