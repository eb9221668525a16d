"""Issue 37 items 1-3: ranks (a moderator acts only on players, nobody on themselves, a longer sanction is
replaced only when named), a true audit trail (every moderation service writes its row with actor,
action, target and reason; the trail's list shows and filters them) and the brake on coin grants."""

from datetime import timedelta

import pytest
from auditlog.models import LogEntry
from django.test import override_settings
from django.utils import timezone

from accounts import sanctions
from accounts.models import IpBlock, Sanction, User
from coins.models import LedgerEntry, Wallet
from coins.services import wallet_adjust
from config.errors import ApiError
from games import services as games_services
from moderation import services as moderation_services
from moderation.models import IntegrityFlag, Report
from ranking.models import Rating
from ranking.services import rating_adjust
from rooms import services as rooms_services
from tests.factories import UserFactory
from tests.moderation.conftest import make_moderator

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def _code(fn, **kwargs) -> str:
    with pytest.raises(ApiError) as exc:
        fn(**kwargs)
    return exc.value.error_code


# ------------------------------------------------------------------------------------------------ ranks
def test_a_moderator_sanctions_no_staff_no_superuser_and_not_themselves(moderator, superuser):
    peer = make_moderator(username="peer")
    later = timezone.now() + HOUR
    for target, code in [(superuser, "rank_forbidden"), (peer, "rank_forbidden"), (moderator, "own_account")]:
        assert _code(sanctions.user_ban, user=target, by=moderator, reason="x") == code
        assert _code(sanctions.user_suspend, user=target, by=moderator, reason="x", until=later) == code
        assert _code(sanctions.user_mute, user=target, by=moderator, reason="x", until=later) == code
    assert Sanction.objects.count() == 0
    assert User.objects.get(pk=superuser.pk).is_active and User.objects.get(pk=peer.pk).is_active
    # only a superuser acts on a moderator, and not on their own account
    made = sanctions.user_suspend(user=peer, by=superuser, reason="rude", until=later)
    assert made.created_by == superuser
    assert _code(sanctions.user_suspend_lift, user=peer, by=moderator, reason="x") == "rank_forbidden"
    assert _code(sanctions.user_ban, user=superuser, by=superuser, reason="x") == "own_account"
    assert sanctions.user_suspend_lift(user=peer, by=superuser, reason="sorry") == 1


def test_the_admin_refuses_a_moderator_banning_a_superuser(mod, superuser):
    res = mod.post("/admin/accounts/sanction/add/", {"user": superuser.pk, "kind": "ban", "reason": "x"})
    assert res.status_code == 200 and b"Only a superuser can act on staff or superusers." in res.content
    assert Sanction.objects.count() == 0 and User.objects.get(pk=superuser.pk).is_active


def test_a_shorter_sanction_does_not_silently_replace_a_longer_one(moderator, superuser, mod):
    player = UserFactory()
    long = sanctions.user_suspend(user=player, by=superuser, reason="cheating", until=timezone.now() + 72 * HOUR)
    short_until = timezone.now() + HOUR
    with pytest.raises(ApiError) as exc:
        sanctions.user_suspend(user=player, by=moderator, reason="spam", until=short_until)
    err = exc.value
    assert (err.status_code, err.error_code, err.extra["sanction"]["id"]) == (409, "sanction_in_force", long.pk)
    assert f"#{long.pk}" in str(err.detail)
    assert list(Sanction.objects.in_force().filter(user=player)) == [long]
    # the admin asks for it by number too, and then replaces it
    form = {"user": player.pk, "kind": "suspend", "reason": "spam", "until_0": short_until.strftime("%Y-%m-%d"),
            "until_1": short_until.strftime("%H:%M:%S")}
    res = mod.post("/admin/accounts/sanction/add/", form)
    assert res.status_code == 200 and f"confirm with its number {long.pk}".encode() in res.content
    assert mod.post("/admin/accounts/sanction/add/", {**form, "replaces": long.pk}).status_code == 302
    long.refresh_from_db()
    assert long.lifted_at is not None and long.lifted_by == moderator
    replaced = LogEntry.objects.get(additional_data__action="suspend_replace")
    assert (replaced.actor, replaced.object_pk) == (moderator, str(long.pk))
    # a longer one replaces a shorter one without asking
    longer = sanctions.user_suspend(user=player, by=moderator, reason="again", until=timezone.now() + 100 * HOUR)
    assert list(Sanction.objects.in_force().filter(user=player)) == [longer]


def test_a_moderator_kicks_no_staff_and_adjusts_no_staff_coins(moderator, superuser):
    host = make_moderator(username="tablehost")
    room = rooms_services.room_create(user=host, game="chinchirorin", seats=2, rules={})
    assert _code(rooms_services.room_kick, room_id=room.pk, seat=0, by=moderator, reason="x") == "rank_forbidden"
    for target, code in [(superuser, "rank_forbidden"), (host, "rank_forbidden"), (moderator, "own_account")]:
        assert _code(wallet_adjust, user_id=target.pk, amount=10, note="gift", by=moderator) == code
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADJUSTMENT).exists()
    rooms_services.room_kick(room_id=room.pk, seat=0, by=superuser, reason="asked")


# ----------------------------------------------------------------------------------------------- coins
@override_settings(COIN_GRANT_MAX=500, COIN_GRANT_DAILY_MAX=800)
def test_moderator_grants_are_capped_per_grant_and_per_day(moderator, superuser):
    ann, bob = UserFactory(), UserFactory()
    assert _code(wallet_adjust, user_id=ann.pk, amount=501, note="gift", by=moderator) == "grant_over_cap"
    assert _code(wallet_adjust, user_id=ann.pk, amount=-501, note="fine", by=moderator) == "grant_over_cap"
    wallet_adjust(user_id=ann.pk, amount=500, note="event prize", by=moderator)
    wallet_adjust(user_id=bob.pk, amount=-300, note="refund taken back", by=moderator)
    with pytest.raises(ApiError) as exc:  # 500 + 300 moved today: one more coin is over 800
        wallet_adjust(user_id=bob.pk, amount=1, note="x", by=moderator)
    assert (exc.value.error_code, exc.value.extra) == ("grant_daily_cap", {"limit": 800, "used": 800})
    # a superuser is not capped
    wallet_adjust(user_id=ann.pk, amount=1_000_000, note="tournament", by=superuser)
    start = 500  # coins.rules.START_GRANT
    assert Wallet.objects.get(pk=ann.pk).balance == start + 500 + 1_000_000
    assert Wallet.objects.get(pk=bob.pk).balance == start - 300
    rows = LogEntry.objects.filter(additional_data__action="coin_adjust").order_by("id")
    assert [(r.actor_id, r.additional_data["amount"], r.additional_data["reason"]) for r in rows] == [
        (moderator.pk, 500, "event prize"), (moderator.pk, -300, "refund taken back"),
        (superuser.pk, 1_000_000, "tournament")]


def test_the_admin_shows_a_refused_grant_and_moves_nothing(mod):
    player = UserFactory()
    res = mod.post("/admin/coins/ledgerentry/add/", {"user": player.pk, "amount": 2_000_000_000, "note": "x"},
                   follow=True)
    assert b"At most 10000 coins in one adjustment" in res.content
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADJUSTMENT).exists()


# ------------------------------------------------------------------------------------------- the trail
def _rows(action: str) -> list[LogEntry]:
    return list(LogEntry.objects.filter(additional_data__action=action))


def test_every_moderation_service_writes_its_audit_row(moderator, superuser):
    """Each service, then its one row: actor, action, target and reason."""
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    later = timezone.now() + HOUR

    def one(action, actor, target, reason):
        rows = _rows(action)
        assert len(rows) == 1, (action, rows)
        row = rows[0]
        assert (row.actor, row.content_type.model, row.object_pk, row.additional_data["reason"]) == (
            actor, target._meta.model_name, str(target.pk), reason), action

    mute = sanctions.user_mute(user=ann, by=moderator, reason="insults", until=later)
    one("mute", moderator, mute, "insults")
    longer = sanctions.user_mute(user=ann, by=moderator, reason="more insults", until=later + HOUR)
    one("mute_replace", moderator, mute, "Replaced by a new sanction of the same kind.")
    sanctions.user_mute_lift(user=ann, by=moderator, reason="apologised")
    one("mute_lift", moderator, longer, "apologised")
    suspension = sanctions.user_suspend(user=ann, by=moderator, reason="stalling", until=later)
    one("suspend", moderator, suspension, "stalling")
    sanctions.user_suspend_lift(user=ann, by=moderator, reason="mistake")
    one("suspend_lift", moderator, suspension, "mistake")
    ban = sanctions.user_ban(user=bob, by=moderator, reason="bots")
    one("ban", moderator, ban, "bots")
    sanctions.user_ban_lift(user=bob, by=superuser, reason="appeal accepted")
    one("ban_lift", superuser, ban, "appeal accepted")
    block = sanctions.ip_block(network="198.51.100.0/24", by=moderator, reason="sign-up spam")
    one("ip_block", moderator, block, "sign-up spam")
    sanctions.ip_block_lift(block=block, by=moderator)
    one("ip_block_lift", moderator, IpBlock.objects.get(pk=block.pk), "sign-up spam")

    entry = wallet_adjust(user_id=ann.pk, amount=50, note="lost to a bug", by=moderator)
    one("coin_adjust", moderator, entry.wallet, "lost to a bug")
    rating_adjust(user=ann, game="chinchirorin", amount=-20, reason="farming", by=superuser)
    one("rating_adjust", superuser, Rating.objects.get(user=ann, game="chinchirorin"), "farming")

    room = rooms_services.room_create(user=ann, game="chinchirorin", seats=2, rules={"first_dealer": "seat"})
    rooms_services.room_join(code=room.code, user=bob)
    message = rooms_services.chat_post(code=room.code, user=bob, data={"text": "rude"})
    rooms_services.chat_message_hide(message_id=message.pk, by=moderator, reason="rude")
    one("chat_hide", moderator, message, "rude")
    rooms_services.room_start(code=room.code, user=ann)
    room.refresh_from_db()
    games_services.game_moderator_abort(game_id=room.game_id, by=moderator, reason="stuck")
    one("game_abort", moderator, room.game, "stuck")
    rooms_services.room_kick(room_id=room.pk, seat=1, by=moderator, reason="abuse")
    one("seat_kick", moderator, room, "abuse")
    rooms_services.room_close(room_id=room.pk, by=moderator, reason="spam room")
    one("room_close", moderator, room, "spam room")

    report = moderation_services.report_create(reporter=ann, kind="user", target_id=bob.pk, reason="spam")
    moderation_services.report_assign(report_id=report.pk, moderator=moderator, by=moderator)
    assert [(r.actor, r.object_pk) for r in _rows("report_assign")] == [(moderator, str(report.pk))]
    moderation_services.report_resolve(report_id=report.pk, by=moderator, outcome="dismiss", note="no spam")
    one("report_resolve", moderator, Report.objects.get(pk=report.pk), "no spam")
    flag = IntegrityFlag.objects.create(kind="pair_farming", game_name="chinchirorin", user=ann, other=bob)
    moderation_services.integrity_flag_review(flag_id=flag.pk, by=moderator, status="cleared", note="fair games")
    one("flag_review", moderator, flag, "fair games")
    moderation_services.note_add(user=bob, by=moderator, text="Known for rage-quitting")
    one("note_add", moderator, bob, "Known for rage-quitting")


def test_a_note_from_the_user_page(mod, moderator):
    player = UserFactory()
    page = mod.get(f"/admin/accounts/user/{player.pk}/change/").content.decode()
    assert f"/admin/moderation/usernote/add/?user={player.pk}" in page
    res = mod.post("/admin/moderation/usernote/add/", {"user": player.pk, "text": "Alt of player 7?"})
    assert res.status_code == 302 and res["Location"] == f"/admin/accounts/user/{player.pk}/change/"
    assert "Alt of player 7?" in mod.get(res["Location"]).content.decode()
    row = LogEntry.objects.get(additional_data__action="note_add")
    assert (row.actor, row.object_pk) == (moderator, str(player.pk))


def test_the_trail_lists_action_and_reason_and_filters_by_actor_and_action(boss, moderator, superuser):
    player = UserFactory()
    sanctions.user_mute(user=player, by=moderator, reason="shouting in caps", until=timezone.now() + HOUR)
    wallet_adjust(user_id=player.pk, amount=25, note="compensation for outage", by=superuser)
    page = boss.get("/admin/auditlog/logentry/").content.decode()
    assert "shouting in caps" in page and "compensation for outage" in page
    assert ">mute<" in page and ">coin_adjust<" in page
    by_mod = boss.get(f"/admin/auditlog/logentry/?actor={moderator.pk}").content.decode()
    assert "shouting in caps" in by_mod and "compensation for outage" not in by_mod
    coins_only = boss.get("/admin/auditlog/logentry/?what=coin_adjust").content.decode()
    assert "compensation for outage" in coins_only and "shouting in caps" not in coins_only
    row = LogEntry.objects.get(additional_data__action="mute")
    detail = boss.get(f"/admin/auditlog/logentry/{row.pk}/change/").content.decode()
    assert "shouting in caps" in detail and f"user_id: {player.pk}" in detail
