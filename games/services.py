"""The games write path's public entries, one per change (DESIGN.md "One write path", "Time and absence").
HackSoft style: ``game_<verb>(*, ...)``, keyword-only. Other apps call these names from here.

**Lock contract** (:mod:`games.locking`): every entry that changes a game locks its row (``SELECT ... FOR
UPDATE``, one query with its players) inside ``transaction.atomic`` before reading the state, writes
under that lock, and sends its side effects (broadcasts, timers, ``game_finished``) after the commit.
Never call these while holding another game's lock.

Where each lives, by what changes:

- a player's action: :mod:`games.actions` (``game_apply_action``);
- timers, CPU seats and absence: :mod:`games.timers` (``game_handle_timeout``, ``game_bot_play``,
  ``game_sweep``, ``game_mark_away``, ``game_set_connected``, ``game_note_seen``, ``game_set_autoplay``,
  ``game_player_left`` / ``_returned`` / ``_kicked``);
- a game's start and end: :mod:`games.lifecycle` (``game_start``, ``game_abort``, ``game_moderator_abort``,
  ``game_resign_stale``);
- the lock, the one write and arming the timers: :mod:`games.locking` (``arm_timers``).
"""

from games.actions import game_apply_action
from games.lifecycle import game_abort, game_moderator_abort, game_resign_stale, game_start
from games.locking import (
    BY_AWAY,
    BY_CPU,
    BY_PLAYER,
    BY_SYSTEM,
    BY_TIMEOUT,
    CPU_DELAYS,
    EARLY_TOLERANCE,
    PLAYED_FOR,
    TURN_SECONDS,
    arm_timers,
)
from games.timers import (
    game_bot_play,
    game_handle_timeout,
    game_mark_away,
    game_note_seen,
    game_player_kicked,
    game_player_left,
    game_player_returned,
    game_set_autoplay,
    game_set_connected,
    game_sweep,
)

__all__ = [
    "BY_AWAY", "BY_CPU", "BY_PLAYER", "BY_SYSTEM", "BY_TIMEOUT", "CPU_DELAYS", "EARLY_TOLERANCE", "PLAYED_FOR",
    "TURN_SECONDS", "arm_timers", "game_abort", "game_apply_action", "game_bot_play", "game_handle_timeout",
    "game_mark_away", "game_moderator_abort", "game_note_seen", "game_player_kicked", "game_player_left",
    "game_player_returned", "game_resign_stale", "game_set_autoplay", "game_set_connected", "game_start",
    "game_sweep",
]
