"""The moderators' admin of tournaments: the tables with links to their rooms, cancel and remove with a
reason (an audit row each); a player without the permission is refused."""

import pytest
from auditlog.models import LogEntry
from django.test import Client

from tests.factories import UserFactory
from tests.moderation.conftest import make_moderator
from tests.tournaments.conftest import make_tournament, round_tables, start_now
from tournaments.models import TournamentPlayer

pytestmark = pytest.mark.django_db


@pytest.fixture
def mod():
    """A moderator's admin client (staff, in the "Moderators" group)."""
    client = Client()
    client.force_login(make_moderator())
    return client


def test_moderator_sees_tables_removes_a_player_and_cancels(mod):
    t, users = make_tournament(4, rounds=2)
    start_now(t)
    page = mod.get(f"/admin/tournaments/tournament/{t.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    for tb in round_tables(t, 1):
        assert f"/admin/rooms/room/{tb.room_id}/change/" in html
    assert "Cancel tournament" in html and "Remove a player" in html
    res = mod.post(f"/admin/tournaments/tournament/{t.pk}/remove/", {"player": users[2].pk, "reason": "abuse"})
    assert res.status_code == 302
    assert TournamentPlayer.objects.get(tournament=t, user=users[2]).withdrawn
    res = mod.post(f"/admin/tournaments/tournament/{t.pk}/cancel/", {"reason": "spam"})
    assert res.status_code == 302
    t.refresh_from_db()
    assert (t.status, t.ended_reason) == ("cancelled", "moderator")
    actions = set(LogEntry.objects.values_list("additional_data__action", flat=True))
    assert {"tournament_remove", "tournament_cancel"} <= actions


def test_cancel_needs_a_reason_and_the_permission(mod):
    t, _ = make_tournament(2)
    res = mod.post(f"/admin/tournaments/tournament/{t.pk}/cancel/", {"reason": ""})
    assert res.status_code == 200  # the form again, with its error
    t.refresh_from_db()
    assert t.status == "open"
    staff = Client()
    staff.force_login(UserFactory(is_staff=True))
    assert staff.post(f"/admin/tournaments/tournament/{t.pk}/cancel/", {"reason": "x"}).status_code == 403
    t.refresh_from_db()
    assert t.status == "open"
