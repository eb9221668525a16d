"""Moderation services: player reports (create, assign, resolve) and the ranked-play integrity check.

Errors are :class:`config.errors.ApiError` in the API.md shape. Every moderator action writes an audit row
(:func:`config.audit.audit_record`); sanctions go through ``accounts.sanctions`` (``user_mute``,
``user_suspend``, ``user_ban``), which write their own record and close the user's sockets.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import sanctions
from accounts.ranks import rank_check
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from config.groups import group_send
from config.textpolicy import TextPolicyError, clean_text
from games.models import Game, GamePlayer
from moderation.models import NOTE_MAX, IntegrityFlag, Notice, Report, UserNote
from moderation.notices import REPORT_ACTED, notice_send
from ranking.models import GameRecord, RatingChange
from rooms.models import ChatMessage, Seat

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------- reports
def _not_found(what: str) -> ApiError:
    return ApiError("not_found", f"No such {what}.", 404)


def _target(reporter, kind: str, target_id: int) -> dict:
    """The report's target fields for ``kind``/``target_id``, checked: 404 when it does not exist (or the
    reporter could not have seen it), 400 naming ``target_id`` for oneself or one's own message."""
    if kind == Report.Kind.USER:
        user = get_user_model().objects.filter(pk=target_id).first()
        if user is None:
            raise _not_found("user")
        if user.pk == reporter.pk:
            raise invalid_field("target_id", "You cannot report yourself.")
        return {"user": user, "reported_user": user}
    if kind == Report.Kind.CHAT_MESSAGE:
        message = ChatMessage.objects.select_related("room").filter(pk=target_id).first()
        # Only a message the reporter could see: one of a room they sit in or played a game of.
        if message is None or not (
            Seat.objects.filter(room_id=message.room_id, user=reporter).exists()
            or GamePlayer.objects.filter(game__group=message.room.group, game__created_at__gte=message.room.created_at,
                                         user=reporter).exists()):
            raise _not_found("message")
        if message.user_id == reporter.pk:
            raise invalid_field("target_id", "You cannot report your own message.")
        content = message.text if message.text is not None else (message.emoji or message.phrase or "")
        return {"chat_message": message, "reported_user": message.user, "content": content}
    game = Game.objects.filter(pk=target_id).first()
    if game is None:
        raise _not_found("game")
    if not GamePlayer.objects.filter(game=game, user=reporter).exists():
        raise ApiError("not_a_player", "You can report only games you played in.", 403)
    return {"game": game}


@transaction.atomic
def report_create(*, reporter, kind: str, target_id: int, reason: str, note: str = "") -> Report:
    """``POST /api/reports``: ``reporter`` reports a user, a chat message or a game (``kind``,
    ``target_id``) for ``reason`` (a :class:`~moderation.models.Report.Reason`), with an optional ``note``
    (≤ 500 characters under the text policy, ``config.textpolicy``). A chat message's text is copied into
    the report.

    Raises 400 ``invalid`` (``kind``/``reason`` not in the lists, ``note`` against the text policy,
    ``target_id``
    oneself or one's own message), 404 ``not_found`` (no such target, or a message of a room the reporter
    was never in), 403 ``not_a_player`` (a game the reporter did not play), 409 ``already_reported`` (the
    reporter reported this target before).
    """
    if kind not in Report.Kind.values:
        raise invalid_field("kind", f"One of {', '.join(Report.Kind.values)}.")
    if reason not in Report.Reason.values:
        raise invalid_field("reason", f"One of {', '.join(Report.Reason.values)}.")
    try:
        note = clean_text(note or "", max_length=NOTE_MAX, min_length=0)
    except TextPolicyError as exc:
        raise invalid_field("note", str(exc.detail[0])) from exc
    fields = _target(reporter, kind, target_id)
    try:
        with transaction.atomic():
            return Report.objects.create(reporter=reporter, kind=kind, target_key=f"{kind}:{target_id}",
                                         reason=reason, note=note, **fields)
    except IntegrityError as exc:
        raise ApiError("already_reported", "You have already reported this.", 409) from exc


def _locked_report(report_id: int) -> Report:
    report = Report.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise _not_found("report")
    return report


@transaction.atomic
def report_assign(*, report_id: int, moderator, by) -> Report:
    """Give report ``report_id`` (and every open report on the same target) to ``moderator`` (a staff
    user; None: unassign), by ``by``. One audit row. Raises 404, 409 ``already_resolved``."""
    report = _locked_report(report_id)
    if report.status != Report.Status.OPEN:
        raise ApiError("already_resolved", "This report is resolved.", 409)
    before = report.assigned_to
    Report.objects.filter(target_key=report.target_key, status=Report.Status.OPEN).update(assigned_to=moderator)
    report.assigned_to = moderator
    audit_record(actor=by, action="report_assign", target=report,
                 changes={"assigned_to": [before, moderator]})
    return report


def _sanction(outcome: str, *, user, by, reason: str, until: datetime | None, replaces: int | None):
    """Call the sanction service of ``outcome``; returns the ``Sanction`` (None for dismiss/warn)."""
    if outcome == Report.Outcome.MUTE:
        return sanctions.user_mute(user=user, by=by, reason=reason, until=until, replaces=replaces)
    if outcome == Report.Outcome.SUSPEND:
        return sanctions.user_suspend(user=user, by=by, reason=reason, until=until, replaces=replaces)
    if outcome == Report.Outcome.BAN:
        return sanctions.user_ban(user=user, by=by, reason=reason, replaces=replaces)
    return None


WARNING_DETAIL = "A moderator warns you about your behaviour: {note}"


def _target_words(report: Report) -> str:
    """What the reporter reported, in words ("Hana", "a chat message of Hana", "game 12")."""
    if report.kind == Report.Kind.GAME:
        return f"game {report.target_key.split(':', 1)[1]}"
    name = report.reported_user.display_name if report.reported_user else "a player"
    return f"a chat message of {name}" if report.kind == Report.Kind.CHAT_MESSAGE else name


@transaction.atomic
def report_resolve(*, report_id: int, by, outcome: str, note: str, user=None,
                   until: datetime | None = None, replaces: int | None = None) -> Report:
    """Resolve report ``report_id`` and every open report on the same target with ``outcome``:

    - ``dismiss``: nothing happens to anyone;
    - ``warn``: ``user`` gets ``{"type": "warning", "detail"}`` on every open socket (group ``user-<id>``)
      and the same text is kept as a ``warning`` :class:`~moderation.models.Notice` for their next visit;
    - ``mute`` / ``suspend`` (until ``until``, in the future) / ``ban``: the sanction service of that name
      (``accounts.sanctions``) with ``note`` as its reason.

    ``user``: who is warned or sanctioned (default the reported user; required for a game's report).
    ``note``: the moderator's reason, kept on the reports (``outcome_note``) and in the audit trail. Each
    report records ``outcome``, ``resolved_by``, ``resolved_at``. One audit row per report. Unless
    dismissed, each reporter gets a ``report_acted`` notice (``moderation.notices``; the outcome is not
    named).

    ``replaces``: the id of a longer sanction of the same kind in force that this one replaces (without
    it such a sanction answers 409 ``sanction_in_force``, ``accounts.sanctions.sanction_conflict``).

    Raises 404, 409 ``already_resolved``, 400 ``invalid`` naming ``outcome``, ``user`` or ``until`` or
    ``note`` (empty), 403 ``own_account`` / ``rank_forbidden`` (``accounts.ranks``), 409
    ``sanction_in_force``.
    """
    report = _locked_report(report_id)
    if report.status != Report.Status.OPEN:
        raise ApiError("already_resolved", "This report is resolved.", 409)
    if outcome not in Report.Outcome.values:
        raise invalid_field("outcome", f"One of {', '.join(Report.Outcome.values)}.")
    note = (note or "").strip()[:500]
    if not note:
        raise invalid_field("note", "Say why (kept in the record).")
    user = user or report.reported_user
    if outcome != Report.Outcome.DISMISS and user is None:
        raise invalid_field("user", "Choose whom this applies to.")
    if outcome in (Report.Outcome.MUTE, Report.Outcome.SUSPEND) and (until is None or until <= timezone.now()):
        raise invalid_field("until", "A mute or suspension needs an end time in the future.")
    if outcome == Report.Outcome.WARN:
        rank_check(actor=by, target=user)
    sanction = _sanction(outcome, user=user, by=by, reason=note, until=until, replaces=replaces)
    if outcome == Report.Outcome.WARN:
        payload = {"type": "warning", "detail": WARNING_DETAIL.format(note=note)}
        group = f"user-{user.pk}"
        transaction.on_commit(lambda: group_send(group, {"type": "user.warning", "payload": payload}))
        Notice.objects.create(user=user, kind=Notice.Kind.WARNING, text=payload["detail"][:1000])
    now = timezone.now()
    reports = list(Report.objects.select_for_update().filter(target_key=report.target_key,
                                                             status=Report.Status.OPEN))
    for row in reports:
        row.status, row.outcome, row.outcome_note = Report.Status.RESOLVED, outcome, note
        row.resolved_by, row.resolved_at, row.sanction = by, now, sanction
        row.save(update_fields=["status", "outcome", "outcome_note", "resolved_by", "resolved_at", "sanction"])
        if outcome != Report.Outcome.DISMISS:
            notice_send(user=row.reporter, kind=Notice.Kind.REPORT_ACTED,
                        text=REPORT_ACTED.format(target=_target_words(row)))
        audit_record(actor=by, action="report_resolve", target=row, reason=note,
                     changes={"status": [Report.Status.OPEN, Report.Status.RESOLVED]}, outcome=outcome,
                     user_id=getattr(user, "pk", None), until=until,
                     sanction_id=getattr(sanction, "pk", None))
    report.refresh_from_db()
    return report


# ------------------------------------------------------------------------------------ integrity flags
PAIR_WINDOW_HOURS = 24
"""Pair farming: ranked games of the same two players counted over this many hours..."""
PAIR_MIN_GAMES = 5
"""...at least this many finished ranked games of the pair in the window (rated or not: the daily cap of
rated games per pair, ``ranking.services.PAIR_DAILY_RATED``, stops the rating, not the pattern)..."""
PAIR_ONE_SIDED = 0.8
"""...with the same player ahead of the other in at least this share of them."""
NEW_ACCOUNT_DAYS = 14
"""Single-opponent climb: an account younger than this many days..."""
CLIMB_MIN_GAMES = 5
"""...with at least this many rated games of one game..."""
CLIMB_MIN_GAIN = 100
"""...a net rating gain of at least this many points in them..."""
CLIMB_ONE_OPPONENT = 0.8
"""...and one opponent in at least this share of those games."""


def _ranked_games_of(user_id: int, game_name: str, since) -> dict[int, dict]:
    """``{game_id: {"place", "change", "at"}}`` of ``user_id``'s finished ranked games of ``game_name``
    since ``since`` (``change``: the rating change, 0 when the game was not rated)."""
    rows = GameRecord.objects.filter(user_id=user_id, game_name=game_name, ranked=True, finished_at__gte=since)
    out = {gid: {"place": place, "change": 0, "at": at}
           for gid, place, at in rows.values_list("game_id", "place", "finished_at")}
    for gid, change in RatingChange.objects.filter(user_id=user_id, game_id__in=list(out)).values_list(
            "game_id", "change"):
        out[gid]["change"] = change
    return out


def _rated_games_of(user_id: int, game_name: str) -> dict[int, dict]:
    """``{game_id: {"place", "change", "at"}}`` of ``user_id``'s rated games of ``game_name``."""
    qs = RatingChange.objects.filter(user_id=user_id, game_name=game_name, game__isnull=False)
    return {gid: {"place": place, "change": change, "at": at}
            for gid, place, change, at in qs.values_list("game_id", "place", "change", "created_at")}


def _flag(kind: str, game_name: str, user_id: int, other_id: int, evidence: dict):
    """Create the open flag of this kind, game and pair, or update its evidence."""
    flag = IntegrityFlag.objects.select_for_update().filter(kind=kind, game_name=game_name, user_id=user_id,
                                                           other_id=other_id, status=IntegrityFlag.Status.OPEN).first()
    if flag is None:
        return IntegrityFlag.objects.create(kind=kind, game_name=game_name, user_id=user_id, other_id=other_id,
                                            evidence=evidence)
    flag.evidence = evidence
    flag.save(update_fields=["evidence", "updated_at"])
    return flag


def _rows(mine: dict, theirs: dict, names: tuple[str, str]) -> list[dict]:
    rows = []
    for gid in sorted(set(mine) & set(theirs)):
        a, b = mine[gid]["place"], theirs[gid]["place"]
        ahead = names[0] if a < b else names[1] if b < a else "draw"
        rows.append({"game_id": gid, "finished_at": mine[gid]["at"].isoformat(), "ahead": ahead,
                     "change": mine[gid]["change"]})
    return rows


@transaction.atomic
def integrity_check_game(*, game_id: int, now=None) -> list:
    """After a ranked game finished (and was rated, or not): raise (or refresh) the integrity flags its
    players now meet (README "Ranked-play integrity flags"; thresholds are this module's constants).
    Returns the flags raised or refreshed; an unranked or unknown game raises none."""
    now = now or timezone.now()
    records = list(GameRecord.objects.filter(game_id=game_id, ranked=True).select_related("user"))
    if len(records) < 2:
        return []
    game_name = records[0].game_name
    users = {r.user_id: r.user for r in records}
    flags = []
    since = now - timedelta(hours=PAIR_WINDOW_HOURS)
    recent = {uid: _ranked_games_of(uid, game_name, since) for uid in users}
    ids = sorted(users)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            rows = _rows(recent[a], recent[b], (str(users[a]), str(users[b])))
            if len(rows) < PAIR_MIN_GAMES:
                continue
            a_ahead = sum(1 for r in rows if r["ahead"] == str(users[a]))
            b_ahead = sum(1 for r in rows if r["ahead"] == str(users[b]))
            winner, loser, ahead = (a, b, a_ahead) if a_ahead >= b_ahead else (b, a, b_ahead)
            if ahead / len(rows) < PAIR_ONE_SIDED:
                continue
            rows = _rows(recent[winner], recent[loser], (str(users[winner]), str(users[loser])))
            flags.append(_flag("pair_farming", game_name, winner, loser, {
                "games": rows, "games_together": len(rows), "ahead": ahead, "share": round(ahead / len(rows), 2),
                "window_hours": PAIR_WINDOW_HOURS, "net_change": sum(r["change"] for r in rows)}))
    young = now - timedelta(days=NEW_ACCOUNT_DAYS)
    for uid, user in users.items():
        if user.date_joined < young:
            continue
        mine = _rated_games_of(uid, game_name)
        net = sum(g["change"] for g in mine.values())
        if len(mine) < CLIMB_MIN_GAMES or net < CLIMB_MIN_GAIN:
            continue

        seen: dict[int, int] = {}
        for other in RatingChange.objects.filter(game_id__in=list(mine)).exclude(user_id=uid).values_list(
                "user_id", flat=True):
            seen[other] = seen.get(other, 0) + 1
        other, together = max(seen.items(), key=lambda kv: (kv[1], -kv[0]), default=(None, 0))
        if other is None or together / len(mine) < CLIMB_ONE_OPPONENT:
            continue
        other_user = get_user_model().objects.get(pk=other)
        rows = _rows(mine, _rated_games_of(other, game_name), (str(user), str(other_user)))
        flags.append(_flag("single_opponent_climb", game_name, uid, other, {
            "games": rows, "rated_games": len(mine), "with_this_opponent": together,
            "share": round(together / len(mine), 2), "net_change": net,
            "account_age_days": (now - user.date_joined).days}))
    return flags


@transaction.atomic
def integrity_flag_review(*, flag_id: int, by, status: str, note: str):
    """A moderator closes a flag as ``cleared`` (nothing wrong) or ``confirmed`` (acted on), with a note.
    One audit row. Raises 404, 409 ``already_reviewed``, 400 ``invalid`` naming ``status`` or ``note``."""
    flag = IntegrityFlag.objects.select_for_update().filter(pk=flag_id).first()
    if flag is None:
        raise _not_found("flag")
    if flag.status != IntegrityFlag.Status.OPEN:
        raise ApiError("already_reviewed", "This flag was reviewed.", 409)
    if status not in (IntegrityFlag.Status.CLEARED, IntegrityFlag.Status.CONFIRMED):
        raise invalid_field("status", "cleared or confirmed.")
    note = (note or "").strip()[:500]
    if not note:
        raise invalid_field("note", "Say why.")
    flag.status, flag.review_note, flag.reviewed_by, flag.reviewed_at = status, note, by, timezone.now()
    flag.save(update_fields=["status", "review_note", "reviewed_by", "reviewed_at", "updated_at"])
    audit_record(actor=by, action="flag_review", target=flag, reason=note,
                 changes={"status": [IntegrityFlag.Status.OPEN, status]})
    return flag


# ------------------------------------------------------------------------------------------- notes
@transaction.atomic
def note_add(*, user, by, text: str):
    """A moderator's note about ``user`` (1–1000 characters), kept on the user's admin page; one audit
    row (``note_add``). Raises 400 ``invalid`` naming ``text``."""
    text = (text or "").strip()
    if not text or len(text) > 1000:
        raise invalid_field("text", "Between 1 and 1000 characters.")
    note = UserNote.objects.create(user=user, by=by, text=text)
    audit_record(actor=by, action="note_add", target=user, reason=text, kind="update", note_id=note.pk)
    return note
