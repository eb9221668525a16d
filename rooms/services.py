"""Room services: every change to a room goes through one of these (REST, WebSocket, the ranked queue,
moderators). Other apps call these names from here.

**Lock contract** (:mod:`rooms.locking`): each service runs in a transaction and locks the room row before
reading its seats, so concurrent joins, leaves and starts are serialized per room; each change increments
``room.version`` and, after the commit, sends the new ``room`` to the group ``room-<code>``. Errors are
:class:`config.errors.ApiError` with the API.md codes; a refused call changes nothing.

Where each lives, by what changes:

- a room's life: :mod:`rooms.life` (``room_create``, ``room_update``, ``room_start``, ``room_rematch``,
  ``room_create_ranked_for_queue``, ``room_game_finishing`` / ``room_game_ended``, ``room_close``,
  ``rooms_close_idle``);
- its seats: :mod:`rooms.seats` (``room_join``, ``room_leave``, ``room_set_cpu``, ``room_clear_seat``,
  ``room_socket_opened`` / ``_closed``, ``room_spectator_opened`` / ``_closed``, ``room_kick``);
- its chat: :mod:`rooms.chat` (``chat_list``, ``chat_post``, ``chat_message_hide``);
- the lock, the version and the broadcast: :mod:`rooms.locking`.
"""

from rooms.chat import chat_list, chat_message_hide, chat_post
from rooms.life import (
    room_close,
    room_create,
    room_create_ranked_for_queue,
    room_game_ended,
    room_game_finishing,
    room_rematch,
    room_start,
    room_update,
    rooms_close_idle,
)
from rooms.locking import CLOSE_KICKED, CLOSE_ROOM_CLOSED, RANKED_TURN_SECONDS, new_code
from rooms.seats import (
    room_clear_seat,
    room_join,
    room_kick,
    room_leave,
    room_set_cpu,
    room_socket_closed,
    room_socket_opened,
    room_spectator_closed,
    room_spectator_opened,
)

__all__ = [
    "CLOSE_KICKED", "CLOSE_ROOM_CLOSED", "RANKED_TURN_SECONDS", "chat_list", "chat_message_hide", "chat_post",
    "new_code", "room_clear_seat", "room_close", "room_create", "room_create_ranked_for_queue", "room_game_ended",
    "room_game_finishing", "room_join", "room_kick", "room_leave", "room_rematch", "room_set_cpu",
    "room_socket_closed", "room_socket_opened", "room_spectator_closed", "room_spectator_opened", "room_start",
    "room_update", "rooms_close_idle",
]
