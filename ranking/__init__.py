"""Ranking: Elo-style ratings per game, ranked play among friends, leaderboards, statistics, XP, levels and
achievements.

Modules: ``elo`` (pure Elo, no Django), ``gamelog`` (pure per-seat facts from a game's events),
``achievements`` (catalogue, XP, levels), ``models``, ``services`` (writes), ``selectors`` (reads),
``apis``/``serializers``/``urls`` (REST under ``/api/``), ``receivers`` (``games.signals.game_finished`` ->
``tasks.rate_game``; ``rooms.signals.room_joined`` -> friends), ``tasks``, ``admin``.

Live messages (channel layer, sent after commit):
- ``user-<id>`` (every socket of that user; the rooms consumer joins it): ``{"type": "queue.matched",
  "payload": {"type": "queue", "status": "matched", "room": code}}``.
- ``game.group`` (``room-<code>``): ``{"type": "room.achievement", "payload": {"type": "achievement",
  "seat": n, "achievement": {id, name, description}}}``.

Decisions: friends for everyone (guests too), ranked play for registered users only; the queue matches the
caller with N-1 waiting friends of the caller, closest rating first; entries expire after 10 minutes
(lazily, and deleted by the ``ranking.queue_expire`` task); stats and XP count every finished game
(ranked or not), ratings only rated ones.
"""
