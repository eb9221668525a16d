"""The coin rules of the service (documented in README.md "Coins"). All amounts are coins.

- ``START_GRANT``: every new user (guests too) starts with this many coins (ledger reason
  ``start_grant``); registering keeps the guest's wallet (same user id).
- ``DAILY_TOP_UP``: once per UTC day, a player holding fewer coins may claim the difference up to this
  amount (``POST /api/me/wallet/daily``, reason ``daily_grant``), so nobody is locked out of staked games.
- ``STAKES``: the values a room's ``stake`` setting may take (0 = no stakes, no pot).
- The re-entry cost (Chinchón ``traditional`` re-engaging, ``wild_ace`` re-entry) is the ``reentry_fee``
  setting (``wild_ace``: 25), or the game's stake when it is unset, paid into the pot (docs/party.md).
"""

from datetime import UTC, datetime

from games.engine import chinchon

START_GRANT = 500
DAILY_TOP_UP = 100
STAKES = chinchon.STAKES


def daily_key(now: datetime) -> str:
    """The ledger key of the daily grant of ``now``'s UTC day: ``daily:YYYY-MM-DD``."""
    return f"daily:{now.astimezone(UTC).date().isoformat()}"
