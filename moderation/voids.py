"""Voiding a finished game (issue #37 item 6, docs/economy.md "Voiding a game"): one moderator action
that undoes the game's effects on ratings, coins and XP, through their own records, never by editing a
balance, with one audit row, each player told.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import Sum

from accounts.sanctions import user_group
from coins.models import LedgerEntry
from coins.services import _post, lock_wallets
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from games.events import group_send
from games.models import Game, GamePlayer
from moderation.models import GameVoid
from ranking.achievements import BY_ID as ACHIEVEMENTS
from ranking.models import AchievementAward, GameRecord, Rating, RatingChange, SeatCredit, XpGrant

VOID_REASON_MAX = 200


def _ratings_restore(game: Game, *, by, note: str) -> list[dict]:
    """Take back each rating change of ``game``: the rating moves by ``-change`` and its rated-game count
    by -1, written as a ``RatingChange`` without a game (``reason`` the void, ``k`` 0)."""
    out = []
    changes = sorted(RatingChange.objects.filter(game=game), key=lambda c: c.user_id)
    rows = {r.user_id: r for r in Rating.objects.select_for_update().filter(
        game=game.game, user_id__in=[c.user_id for c in changes]).order_by("user_id")}
    for c in changes:
        row = rows.get(c.user_id)
        if row is None or not c.change and not row.games:
            continue
        before = row.rating
        row.rating, row.games = before - c.change, max(0, row.games - 1)
        row.save(update_fields=["rating", "games", "updated_at"])
        if c.change:
            RatingChange.objects.create(game=None, user_id=c.user_id, game_name=game.game, before=before,
                                        after=row.rating, change=-c.change, k=0, reason=note, adjusted_by=by)
        out.append({"user": c.user_id, "change": -c.change, "games": row.games})
    return out


def _coins_reverse(game: Game, *, by, note: str) -> list[dict]:
    """Each wallet's net coins from ``game`` (stakes, re-entries, pot, refunds) moved back once (reason
    ``void``, key ``void:<game>``). A wallet that no longer holds what it won gives what it holds: the
    rest is recorded as ``shortfall`` (never a negative balance)."""
    net = defaultdict(int)
    for row in (LedgerEntry.objects.filter(game=game).exclude(reason=LedgerEntry.Reason.VOID)
                .values("wallet_id").annotate(total=Sum("amount"))):
        if row["total"]:
            net[row["wallet_id"]] = row["total"]
    out = []
    if not net:
        return out
    wallets = lock_wallets(net)
    for uid in sorted(net):
        wanted = -net[uid]
        amount = wanted if wanted > 0 else -min(-wanted, wallets[uid].balance)
        shortfall = amount - wanted
        if amount:
            text = note if not shortfall else f"{note} (short by {shortfall})"
            _post(wallets[uid], amount, LedgerEntry.Reason.VOID, key=f"void:{game.pk}", game_id=game.pk,
                  note=text[:200], by=by)
        out.append({"user": uid, "amount": amount, "shortfall": shortfall})
    return out


def _xp_reverse(game: Game) -> list[dict]:
    """The game's XP (``GameRecord.xp``) and the XP of achievements first earned in it taken back as negative
    ``XpGrant`` rows (reason ``void``); those awards are withdrawn (they may be earned again), and the game
    stops counting for challenges, achievements and the established-account count."""
    taken = defaultdict(int)
    for uid, xp in GameRecord.objects.filter(game=game, xp__gt=0).values_list("user_id", "xp"):
        XpGrant.objects.get_or_create(user_id=uid, reason="void", ref=f"game:{game.pk}", defaults={"amount": -xp})
        taken[uid] += xp
    for award in AchievementAward.objects.filter(game=game):
        ach = ACHIEVEMENTS.get(award.achievement)
        if ach is not None and ach.xp:
            XpGrant.objects.get_or_create(user_id=award.user_id, reason="void",
                                          ref=f"game:{game.pk}:{award.achievement}", defaults={"amount": -ach.xp})
            taken[award.user_id] += ach.xp
        award.delete()
    GameRecord.objects.filter(game=game).update(counts=False, win_counts=False)
    SeatCredit.objects.filter(game=game).update(counts=False, win_counts=False)
    return [{"user": uid, "amount": -xp} for uid, xp in sorted(taken.items())]


def game_void(*, game_id: int, by, reason: str) -> tuple[GameVoid, bool]:
    """Void finished game ``game_id``: ratings restored for every seat (rating and rated-game count), its
    coins and XP reversed (above), one ``GameVoid`` row, one audit row (action ``game_void``), and after
    commit each human player's sockets get ``{"type": "game.voided", "payload": {"type": "game_voided",
    "game_id", "coins", "xp", "rating"}}`` (its own changes; group ``user-<id>``). Returns ``(the void,
    True)``; a game already voided returns ``(its void, False)`` and changes nothing.

    Raises 400 ``invalid`` naming ``reason`` (empty), 404 ``not_found`` (no such game), 409
    ``game_not_finished`` (playing or aborted: nothing to undo).
    """
    reason = (reason or "").strip()[:VOID_REASON_MAX]
    if not reason:
        raise invalid_field("reason", "Give a reason.")
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise ApiError("not_found", "No such game.", 404)
        done = GameVoid.objects.filter(game=game).first()
        if done is not None:
            return done, False
        if game.status != Game.FINISHED:
            raise ApiError("game_not_finished", "Only a finished game can be voided.", 409)
        note = f"game {game.pk} voided: {reason}"[:200]
        summary = {"ratings": _ratings_restore(game, by=by, note=note),
                   "coins": _coins_reverse(game, by=by, note=note), "xp": _xp_reverse(game)}
        void = GameVoid.objects.create(game=game, by=by, reason=reason, summary=summary)
        audit_record(actor=by, action="game_void", target=void, reason=reason, kind="create", game=game.pk, **summary)
        players = sorted(set(GamePlayer.objects.filter(game=game, cpu=False, user__isnull=False)
                             .values_list("user_id", flat=True)))
        for uid in players:
            payload = {"type": "game_voided", "game_id": game.pk,
                       "coins": sum(r["amount"] for r in summary["coins"] if r["user"] == uid),
                       "xp": sum(r["amount"] for r in summary["xp"] if r["user"] == uid),
                       "rating": next(({"game": game.game, "change": r["change"]} for r in summary["ratings"]
                                       if r["user"] == uid), None)}
            group, message = user_group(uid), {"type": "game.voided", "payload": payload}
            transaction.on_commit(lambda g=group, m=message: group_send(g, m))
    return void, True
