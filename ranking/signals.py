"""Signals of the ranking app.

``game_recorded``: sent by the ``ranking.rate_game`` task after a finished game's records were written
(:func:`ranking.services.game_process_finished`), with ``sender=None``, ``game_id`` and ``ranked`` (how
many records of a ranked game were written now: 0 for an unranked game or a game recorded before).
Moderation connects to it (a ranked game just recorded goes to its integrity check); ranking never imports
moderation.
"""

from django.dispatch import Signal

game_recorded = Signal()
