"""Roles (issue 11, item 6): the "Moderators" group and what each kind of user may do in the admin, and
admin login throttling (django-axes) that leaves the API's login and token auth alone."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from rest_framework.test import APIClient

from ranking.models import Rating
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

# Hand-written: the group's exact permissions (the migration's list must match this, no more).
MODERATORS = {
    "accounts.view_user", "accounts.view_sanction", "accounts.add_sanction", "accounts.change_sanction",
    "accounts.view_ipblock", "accounts.add_ipblock", "accounts.change_ipblock", "moderation.view_report", "moderation.resolve_report", "moderation.view_integrityflag",
    "moderation.change_integrityflag", "rooms.view_chatmessage", "rooms.hide_chatmessage", "rooms.view_room",
    "rooms.view_seat", "rooms.view_roomkick", "rooms.moderate_room", "games.view_game", "games.view_gameplayer",
    "games.view_gameaction", "games.abort_game", "ranking.view_rating", "ranking.view_ratingchange",
    "auditlog.view_logentry",
    # coins (coins 0003): read wallets and ledgers, grant or remove coins with a reason
    "coins.view_wallet", "coins.view_ledgerentry", "coins.add_ledgerentry", "coins.adjust_wallet",
    # tournaments (tournaments 0002): see tournaments, their entrants and tables; cancel, remove a player
    "tournaments.view_tournament", "tournaments.view_tournamentplayer", "tournaments.view_tournamenttable",
    "tournaments.moderate_tournament",
    # voice (rooms 0007): read who joined voice where and when
    "rooms.view_voicesession",
    # voids (moderation 0005): read voided games, void a finished game
    "moderation.view_gamevoid", "moderation.void_game",
}


def test_the_moderators_group_has_exactly_its_permissions(moderator):
    group = Group.objects.get(name="Moderators")
    got = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}
    assert got == MODERATORS
    assert not moderator.has_perm("ranking.adjust_rating")
    assert not moderator.has_perm("accounts.delete_user")
    assert not moderator.has_perm("accounts.change_user")


@pytest.mark.parametrize("path", ["/admin/", "/admin/rooms/room/", "/admin/games/game/", "/admin/rooms/chatmessage/",
                                  "/admin/moderation/report/", "/admin/auditlog/logentry/",
                                  "/admin/rooms/voicesession/"])
def test_moderator_and_superuser_read_the_admin_a_player_cannot(boss, mod, nobody, path):
    assert boss.get(path).status_code == 200
    assert mod.get(path).status_code == 200
    res = nobody.get(path)
    assert res.status_code == 302 and res["Location"].startswith("/admin/login/")


def test_moderators_edit_no_models_delete_no_users_adjust_no_ratings(boss, mod, moderator):
    player = UserFactory()
    rating = Rating.objects.create(user=player, game="chinchirorin", rating=1500, games=3)
    # the user's page is read-only for a moderator: no save button, a POST is refused
    page = mod.get(f"/admin/accounts/user/{player.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert mod.post(f"/admin/accounts/user/{player.pk}/change/", {"username": "x"}).status_code == 403
    assert mod.get(f"/admin/accounts/user/{player.pk}/delete/").status_code == 403
    assert mod.get(f"/admin/ranking/rating/{rating.pk}/adjust/").status_code == 403
    assert boss.get(f"/admin/ranking/rating/{rating.pk}/adjust/").status_code == 200
    # room status, seats, game state and ratings are read-only for everyone, superusers included
    assert b'name="_save"' not in boss.get(f"/admin/ranking/rating/{rating.pk}/change/").content
    assert boss.get("/admin/rooms/room/add/").status_code == 403
    assert boss.get("/admin/games/game/add/").status_code == 403


def test_admin_login_is_throttled_and_the_api_login_is_not(client, settings):
    staff = UserFactory(username="staffer", is_staff=True)
    staff.groups.add(Group.objects.get(name="Moderators"))
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        res = client.post("/admin/login/", {"username": "staffer", "password": "wrong", "next": "/admin/"})
        assert res.status_code == 200  # the form again, with its error
    res = client.post("/admin/login/", {"username": "staffer", "password": "wrong", "next": "/admin/"})
    assert res.status_code == 429  # the limit reached: locked out
    locked = client.post("/admin/login/", {"username": "staffer", "password": PASSWORD, "next": "/admin/"})
    assert locked.status_code == 429
    # the API's login (same address) and token auth are not touched by axes
    api = APIClient()
    res = api.post("/api/auth/login", {"username": "staffer", "password": PASSWORD}, format="json")
    assert res.status_code == 200
    api.credentials(HTTP_AUTHORIZATION=f"Token {res.json()['token']}")
    assert api.get("/api/me").status_code == 200
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        assert APIClient().post("/api/auth/login", {"username": "staffer", "password": "bad"},
                                format="json").status_code == 400
    # and the test client's own login() (no request) still works
    other = Client()
    assert other.login(username=staff.username, password=PASSWORD)
    assert other.get("/admin/rooms/room/").status_code == 200


def test_staff_changes_to_users_are_in_the_audit_trail_player_signups_are_not(boss, superuser):
    from auditlog.models import LogEntry

    res = APIClient().post("/api/auth/guest", {"display_name": "Newbie"}, format="json")
    assert res.status_code == 201
    assert LogEntry.objects.count() == 0  # a guest made by a player: not staff's doing
    player = UserFactory(username="hana", display_name="Hana")
    moderators = Group.objects.get(name="Moderators")
    form = {"username": "hana", "display_name": "Hana", "email": "", "first_name": "", "last_name": "",
            "is_active": "on", "is_staff": "on", "groups": [moderators.pk],
            "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
            "sanctions-TOTAL_FORMS": "0", "sanctions-INITIAL_FORMS": "0"}
    res = boss.post(f"/admin/accounts/user/{player.pk}/change/", form)
    assert res.status_code == 302, res.context["adminform"].form.errors if res.context else res
    player.refresh_from_db()
    assert player.is_staff and player.groups.filter(pk=moderators.pk).exists()
    rows = LogEntry.objects.filter(object_pk=str(player.pk), actor=superuser)
    assert any(r.changes.get("is_staff") == ["False", "True"] for r in rows)
    assert any("groups" in r.changes for r in rows)


def test_a_moderator_grants_or_removes_coins_with_a_reason(mod, moderator):
    from coins.models import LedgerEntry, Wallet

    player = UserFactory()
    res = mod.post("/admin/coins/ledgerentry/add/", {"user": player.pk, "amount": -50, "note": "chat abuse refund"})
    assert res.status_code == 302
    entry = LedgerEntry.objects.filter(wallet_id=player.pk, reason="adjustment").get()
    assert (entry.amount, entry.note, entry.created_by_id) == (-50, "chat abuse refund", moderator.pk)
    assert Wallet.objects.get(pk=player.pk).balance == 450
    assert mod.get(f"/admin/coins/wallet/{player.pk}/change/").status_code == 200
