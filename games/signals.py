"""Signals of the games app.

``game_finishing``: sent inside the transaction that finishes or aborts a game, under the game's row lock,
with ``sender=Game`` and ``game_id``, once the game's final row is written. A receiver may write in the
same transaction (it commits with the game, or not at all, so an error there fails the action) and must
not wait for a row lock: the game is locked first here, and paths that lock a room first then wait for
its game (a socket opening) would deadlock with it. (The foreign keys it writes are still checked at the
commit, as every write's are.) ``rooms`` finishes the game's room this way (a room row another transaction holds is
skipped and finished after the commit instead).

``game_finished``: sent after the commit of the transaction that finished or aborted a game, with
``sender=Game`` and ``game_id``. Receivers (ranking) load the game and check ``status`` (``finished`` or
``aborted``) themselves; games never imports them.

``game_turn``: sent after the commit of a transaction that opened a decision window, with ``sender=Game``,
``game_id``, ``game`` (the game's name), ``group`` (the room's live-delivery group, ``room-<code>``, or
``""``), ``user_ids`` (the users of the human seats the new window awaits, not played for; may be empty)
and ``deadline`` (a datetime or None). Receivers (notify) tell those players it is their turn.
"""

from django.dispatch import Signal

game_finishing = Signal()
game_finished = Signal()
game_turn = Signal()
