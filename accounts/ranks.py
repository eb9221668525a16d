"""Ranks of staff: who may act on whom (docs/moderation.md "Ranks").

Three ranks: a player (0), a moderator — any staff user who is not a superuser (1) — and a superuser (2).
A moderator acts only on players; a superuser acts on anyone; nobody acts on their own account. "Acting"
is sanctioning (mute, suspend, ban and their lifts), kicking from a room and adjusting coins; every
service doing so calls :func:`rank_check` with its actor (``None``: the system, which is never refused).

Errors (:class:`config.errors.ApiError`, 403): ``own_account`` (the actor is the target) and
``rank_forbidden`` (a moderator acting on staff or a superuser).
"""

from __future__ import annotations

from config.errors import ApiError

PLAYER, MODERATOR, SUPERUSER = 0, 1, 2


def rank_of(user) -> int:
    """0 for a player, 1 for staff who are not superusers, 2 for a superuser."""
    if user.is_superuser:
        return SUPERUSER
    return MODERATOR if user.is_staff else PLAYER


def rank_refusal(*, actor, target) -> ApiError | None:
    """The 403 :class:`ApiError` refusing ``actor`` (a user, or ``None`` for the system) an action on
    ``target`` (a user), or ``None`` when allowed."""
    if actor is None or target is None:
        return None
    if actor.pk == target.pk:
        return ApiError("own_account", "You cannot act on your own account.", 403)
    if rank_of(actor) < SUPERUSER and rank_of(target) >= MODERATOR:
        return ApiError("rank_forbidden", "Only a superuser can act on staff or superusers.", 403)
    return None


def rank_check(*, actor, target) -> None:
    """Raise :func:`rank_refusal`'s error when there is one."""
    refusal = rank_refusal(actor=actor, target=target)
    if refusal is not None:
        raise refusal
