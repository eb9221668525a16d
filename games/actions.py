"""A player's action: THE write path (:func:`game_apply_action`; DESIGN.md "One write path").

Lock contract (:mod:`games.locking`): the game's row and its players' are locked and read in one query
before anything is checked; every check, the engine's transition and the coin hooks run under that lock;
the log row, the game and the changed players are written in one statement; broadcasts and timers follow
the commit. A refusal writes nothing.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext, gettext_noop

from config.errors import ApiError
from games import locking
from games.engine.errors import IllegalAction, InvalidAction, NotYourTurn
from games.locking import (
    ACTION_ID_MAX,
    BY_PLAYER,
    BY_TIMEOUT,
    PLAYED_FOR,
    _as_id,
    _Ctx,
    _ctx_view,
    _game_over,
    _human_seat,
    _invalid_action,
    _lock_or_none,
    _not_a_player,
    _not_found,
    _refresh_times,
    _rule_detail,
    _save,
    _transition,
)
from games.models import Game, GameAction
from games.timers import _count_timeout, _present_until


def _return_seat(ctx: _Ctx, seat: int) -> None:
    """The player is back: not away, no autoplay, timeouts reset."""
    gp = ctx.players[seat]
    if gp.away or gp.autoplay or gp.timeouts_in_row:
        if gp.away or gp.autoplay:
            ctx.presence.add(seat)
        gp.away = gp.autoplay = False
        gp.timeouts_in_row = 0
        ctx.dirty_players.add(seat)



def _resolve_actor(ctx: _Ctx, actor) -> tuple[str, int, Any]:
    """``actor`` -> (by, seat, user), from the locked players. Raises 403 ``not_a_player``."""
    if isinstance(actor, tuple):
        by, seat = actor
        if by not in PLAYED_FOR or not isinstance(seat, int) or isinstance(seat, bool):
            raise ValueError(f"bad actor {actor!r}")
        if seat not in ctx.players:
            raise _not_a_player()
        return by, seat, None
    gp = _human_seat(ctx, actor)
    if gp is None:
        raise _not_a_player()
    return BY_PLAYER, gp.seat, actor


def _valid_action_id(action_id: Any) -> bool:
    """A client key the log can hold: a string of 1 to 64 characters, storable."""
    return isinstance(action_id, str) and 1 <= len(action_id) <= ACTION_ID_MAX and _storable(action_id)


def _storable(text: str) -> bool:
    """Whether a text column can hold ``text``: no NUL (PostgreSQL refuses it) and valid Unicode."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_shape(engine, action: Any, expected_seq: Any, action_id: Any) -> None:
    """The action's shape. Raises 400 ``invalid_action``."""
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
        raise _invalid_action("seq must be a non-negative integer (the view's seq).",
                              {"seq": ["A non-negative integer is required."]})
    if action_id is not None and not _valid_action_id(action_id):
        raise _invalid_action("action_id must be a string of 1 to 64 characters.",
                              {"action_id": ["A string of at most 64 characters is required."]})
    if not isinstance(action, dict):
        raise _invalid_action("An action must be a JSON object.")
    check = getattr(engine, "check_action", None)
    try:
        if check is not None:
            check(action)
    except InvalidAction as exc:
        raise _invalid_action(_rule_detail(exc, gettext_noop("Not a valid action for this game."))) from exc



# ---------------------------------------------------------------------------------- write path
def _decide(gid: int, actor, expected_seq, action, action_id) -> tuple[_Ctx, dict, bool]:
    """:func:`game_apply_action` under its lock, up to the write: the game locked, the checks in API.md's
    order, the action applied in memory. Returns ``(ctx, the actor's new view, False)``, to be saved, or
    ``(ctx, the first answer, True)`` for a known ``action_id``. Raises the refusals as ``ApiError``, with
    nothing written (a coin posting refused, 409 ``insufficient_coins``, rolled its own savepoint back)."""
    by_player = not isinstance(actor, tuple)
    # Everything is read with the lock, in one query: no look-ups before it to repeat under it.
    key = (actor, action_id) if by_player and getattr(actor, "pk", None) and _valid_action_id(action_id) else None
    ctx = _lock_or_none(gid, key)
    if ctx is None:
        raise _not_found()
    by, seat, user = _resolve_actor(ctx, actor)
    _check_shape(ctx.engine, action, expected_seq, action_id)
    if by != BY_PLAYER:
        action_id = None
    game = ctx.game
    prior = None
    if action_id is not None and ctx.prior_seq is not None:
        prior = GameAction.objects.get(game=game, seq=ctx.prior_seq)
    elif action_id is not None and (game.status != Game.PLAYING or expected_seq != game.seq):
        # The lock may have waited for the very transaction that used this key: read it as committed.
        prior = GameAction.objects.filter(game=game, user=user, action_id=action_id).first()
    if prior is not None:
        if prior.action == action and prior.seq - 1 == expected_seq:
            return ctx, prior.response, True
        raise ApiError("action_id_reused", "This action_id was used with another body.", 409)
    if game.status != Game.PLAYING:
        raise _game_over()
    if expected_seq != game.seq:
        raise ApiError("stale_seq", gettext("seq {expected_seq} is not the current one ({current}).").format(
            expected_seq=expected_seq, current=game.seq), 409,
                       extra={"seq": game.seq, "view": _ctx_view(ctx, seat)})
    try:
        row = _transition(ctx, seat, dict(action), by, user=user, action_id=action_id)
    except NotYourTurn as exc:
        raise ApiError("not_your_turn", _rule_detail(exc, gettext_noop("Not your turn.")), 409) from exc
    except IllegalAction as exc:
        raise ApiError("illegal_action", _rule_detail(exc, gettext_noop("Not allowed now.")), 400) from exc
    except InvalidAction as exc:
        raise _invalid_action(_rule_detail(exc, gettext_noop("Not a valid action for this game."))) from exc
    if by == BY_PLAYER:
        _return_seat(ctx, seat)
        _present_until(ctx, seat, locking._now())  # in this transaction's one write: no query
        if ctx.presence:
            _refresh_times(ctx, locking._now(), False)
    elif by == BY_TIMEOUT:
        _count_timeout(ctx, seat)
    view = ctx.views[seat] = _ctx_view(ctx, seat)  # the actor's answer, and its seat's broadcast
    if action_id is not None:
        row.response = view
    return ctx, view, False


def game_apply_action(*, game_id: int, actor, expected_seq: int, action: dict, action_id: str | None = None) -> dict:
    """THE write path: apply ``action`` for ``actor`` if ``expected_seq`` is current; return the actor's
    new view.

    ``actor``: a ``User`` (a seated player; ``by`` = player) or ``(by, seat)`` with ``by`` in timeout /
    away / cpu. ``action``: the body without ``seq``/``action_id``. ``action_id``: a client key (≤ 64
    chars), scoped to game and user, recorded only with an applied action.

    Errors, in this order (API.md): 404 ``not_found``; 403 ``not_a_player``; 400 ``invalid_action``
    (shape of action, seq, action_id); a known ``action_id`` returns its first answer (another body: 409
    ``action_id_reused``); 409 ``game_over``; 409 ``stale_seq`` (extra ``seq``, ``view``); 409
    ``not_your_turn``; 400 ``illegal_action``. A player's applied action returns the seat (away, autoplay and
    timeouts reset). After commit: the per-seat broadcast (handed off, see :func:`games.events.publish`),
    timers, and ``game_finished`` when the game ended.

    Queries (PostgreSQL): ``BEGIN``; the game locked and read with its players, their users and the
    ``action_id``'s prior seq, in one ``SELECT ... FOR UPDATE OF``; the log row, the game and changed players
    written in one statement; ``COMMIT`` — 4, whatever the game's length and seat count (a resent
    ``action_id`` reads its first answer: one more).
    """
    gid = _as_id(game_id)
    if gid is None:
        raise _not_found()
    refusal = None
    with transaction.atomic():
        try:
            ctx, view, known = _decide(gid, actor, expected_seq, action, action_id)
        except ApiError as exc:
            # Refused before anything was written: the transaction commits instead of rolling back (the
            # same for the database: the lock is let go). psycopg answers a ROLLBACK by dropping the
            # connection's prepared statements (DEALLOCATE ALL, and each is sent unprepared again until
            # it is prepared anew), and a 409 stale_seq is routine while several seats bet at once.
            refusal = exc
        else:
            if known:  # a resent action_id: its first answer, nothing written
                return view
            try:
                _save(ctx)
            except IntegrityError as exc:  # the key was used by a transaction the lock waited for, at another seq
                raise ApiError("action_id_reused", "This action_id was used with another body.", 409) from exc
    if refusal is not None:
        raise refusal
    return view
