"""Signals of the games app.

``game_finished``: sent after the commit of the transaction that finished or aborted a game, with
``sender=Game`` and ``game_id``. Receivers (ranking, rooms) load the game and check ``status``
(``finished`` or ``aborted``) themselves; games never imports them.
"""

from django.dispatch import Signal

game_finished = Signal()
