"""What players are told (docs/moderation.md "Reports, warnings and appeals"): notices kept until seen,
and appeals against sanctions.

Errors are :class:`config.errors.ApiError` in the API.md shape.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import sanctions
from accounts.models import Sanction
from accounts.ranks import rank_check
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from config.groups import group_send
from config.textpolicy import TextPolicyError, clean_text
from moderation.models import APPEAL_MAX, Appeal, Notice

REPORT_ACTED = "A moderator acted on your report about {target}. Thank you for helping keep the tables fair."
APPEAL_GRANTED = "Your appeal was granted: the {kind} is lifted. {note}"
APPEAL_REJECTED = "Your appeal was rejected: the {kind} stays. {note}"


def notice_send(*, user, kind: str, text: str) -> Notice:
    """Keep ``text`` for ``user`` until their client marks it seen, and after the commit send it to
    their open sockets too (``{"type": "notice", "id", "kind", "text"}``, group ``user-<id>``)."""
    notice = Notice.objects.create(user=user, kind=kind, text=text[:1000])
    payload = {"type": "notice", "id": notice.pk, "kind": kind, "text": notice.text}
    transaction.on_commit(lambda: group_send(sanctions.user_group(user.pk), {"type": "user.notice",
                                                                              "payload": payload}))
    return notice


def notices_unseen(*, user) -> list[Notice]:
    """``user``'s notices not marked seen, oldest first (at most 50)."""
    return list(Notice.objects.filter(user=user, seen_at=None).order_by("id")[:50])


def notices_mark_seen(*, user, up_to: int) -> int:
    """Mark ``user``'s notices with id ≤ ``up_to`` seen. Returns how many were unseen."""
    return Notice.objects.filter(user=user, seen_at=None, id__lte=up_to).update(seen_at=timezone.now())


@transaction.atomic
def appeal_create(*, user, sanction_id: int, text: str) -> Appeal:
    """``user`` appeals their sanction ``sanction_id`` (in force) with ``text`` (1–1000 characters under
    the text policy). Raises 404 ``not_found`` (no such sanction of theirs in force), 400 ``invalid``
    naming ``text``, 409 ``already_appealed`` (one appeal per sanction)."""
    sanction = Sanction.objects.in_force().filter(pk=sanction_id, user=user).first()
    if sanction is None:
        raise ApiError("not_found", "No such sanction of yours in force.", 404)
    try:
        text = clean_text(text or "", max_length=APPEAL_MAX, min_length=1)
    except TextPolicyError as exc:
        raise invalid_field("text", str(exc.detail[0])) from exc
    try:
        with transaction.atomic():
            return Appeal.objects.create(sanction=sanction, user=user, text=text)
    except IntegrityError as exc:
        raise ApiError("already_appealed", "You have already appealed this sanction.", 409) from exc


_LIFT = {Sanction.MUTE: sanctions.user_mute_lift, Sanction.SUSPEND: sanctions.user_suspend_lift,
         Sanction.BAN: sanctions.user_ban_lift}


@transaction.atomic
def appeal_decide(*, appeal_id: int, by, grant: bool, note: str) -> Appeal:
    """A moderator decides an open appeal: granted, the sanction (if still in force) is lifted with
    ``note`` as its reason (ranks apply, ``accounts.ranks``); rejected, it stays. The player gets a
    :class:`Notice` either way; one audit row (``appeal_decide``). Raises 404, 409 ``already_decided``,
    400 ``invalid`` naming ``note`` (empty), 403 ``own_account`` / ``rank_forbidden``."""
    appeal = Appeal.objects.select_for_update().select_related("sanction", "user").filter(pk=appeal_id).first()
    if appeal is None:
        raise ApiError("not_found", "No such appeal.", 404)
    if appeal.status != Appeal.Status.OPEN:
        raise ApiError("already_decided", "This appeal was decided.", 409)
    note = (note or "").strip()[:500]
    if not note:
        raise invalid_field("note", "Say why (the player is told).")
    sanction = appeal.sanction
    if grant and sanction.in_force():
        _LIFT[sanction.kind](user=appeal.user, by=by, reason=f"Appeal granted: {note}")
    elif not grant:
        rank_check(actor=by, target=appeal.user)
    appeal.status = Appeal.Status.GRANTED if grant else Appeal.Status.REJECTED
    appeal.decided_by, appeal.decided_at, appeal.decision_note = by, timezone.now(), note
    appeal.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    audit_record(actor=by, action="appeal_decide", target=appeal, reason=note,
                 changes={"status": [Appeal.Status.OPEN, appeal.status]}, sanction_id=sanction.pk)
    text = (APPEAL_GRANTED if grant else APPEAL_REJECTED).format(kind=sanction.kind, note=note)
    notice_send(user=appeal.user, kind=Notice.Kind.APPEAL_DECIDED, text=text)
    return appeal
