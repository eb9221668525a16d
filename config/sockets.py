"""What every socket consumer shares: the idle close.

A socket that sends nothing (not even a ``ping``) for ``WS_IDLE_SECONDS`` (setting, default 60 s) is
closed with ``CLOSE_IDLE`` (4408): its client is gone without a close (a phone asleep, a dropped network),
and the server must not keep counting it as present.
"""

from __future__ import annotations

import asyncio
import logging
import time

from django.conf import settings

CLOSE_IDLE = 4408

logger = logging.getLogger(__name__)


async def close_when_silent(consumer) -> None:
    """Close ``consumer`` (a Channels consumer with a ``last_seen`` monotonic time, renewed by each message
    it receives) with :data:`CLOSE_IDLE` once it has been silent for ``WS_IDLE_SECONDS``; checked every
    quarter of that (at most every 5 s). Returns when it closed it; ends quietly when cancelled (the
    socket's own close) or when the client went away while it was closing."""
    limit = float(getattr(settings, "WS_IDLE_SECONDS", 60))
    try:
        while True:
            await asyncio.sleep(min(5.0, limit / 4))
            if time.monotonic() - consumer.last_seen > limit:
                await consumer.close(code=CLOSE_IDLE)
                return
    except asyncio.CancelledError:
        pass
    except Exception:  # the client went away while we closed: nothing left to do
        logger.debug("socket watchdog of %s ended", type(consumer).__name__, exc_info=True)
