"""Signals of the rooms app.

``room_joined``: sent after the commit of a join that took a seat, with ``room_id``, ``user_id`` (the
joiner) and ``host_id`` (the room's host then). The ranking app connects to it (joining by code makes
host and joiner friends). Not sent for an idempotent re-join or for a player returning to a kept seat.
"""

from django.dispatch import Signal

room_joined = Signal()
