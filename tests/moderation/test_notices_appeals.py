"""Issue 37 item 4 (API and admin): warnings kept until seen, reporters told when their report was acted
on (not how), sanctions answering with their reason and end, one appeal per sanction into the admin's
appeal queue, decided there with the player told."""

from datetime import timedelta

import pytest
from auditlog.models import LogEntry
from django.utils import timezone

from accounts import sanctions
from accounts.models import Sanction
from moderation import services
from moderation.models import Appeal, Report
from rooms import services as rooms
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _notices(client):
    res = client.get("/api/me/notices")
    assert res.status_code == 200
    return res.json()["notices"]


def test_a_warning_is_kept_until_seen_and_reporters_hear_back(make_client, moderator):
    ann, bob, cat = UserFactory(display_name="Ann"), UserFactory(display_name="Bob"), UserFactory()
    a, b, c = make_client(ann), make_client(bob), make_client(cat)
    for client in (a, c):
        assert client.post("/api/reports", {"kind": "user", "target_id": bob.pk, "reason": "harassment"},
                           format="json").status_code == 201
    dismissed = a.post("/api/reports", {"kind": "user", "target_id": cat.pk, "reason": "spam"}, format="json")
    services.report_resolve(report_id=dismissed.json()["id"], by=moderator, outcome="dismiss", note="no")
    assert _notices(a) == []  # a dismissed report tells nobody
    bob_report = Report.objects.filter(reported_user=bob).first()
    services.report_resolve(report_id=bob_report.pk, by=moderator, outcome="warn", note="Mind your words")
    warned = _notices(b)
    assert [(n["kind"], n["text"]) for n in warned] == [
        ("warning", "A moderator warns you about your behaviour: Mind your words")]
    for client in (a, c):  # both reporters of Bob are told it was acted on, not how
        got = _notices(client)
        assert [(n["kind"], n["text"]) for n in got] == [("report_acted", "A moderator acted on your report about "
                                                          "Bob. Thank you for helping keep the tables fair.")]
    res = b.post("/api/me/notices/seen", {"up_to": warned[0]["id"]}, format="json")
    assert res.json() == {"marked": 1}
    assert _notices(b) == [] and len(_notices(a)) == 1  # seen once, for that player only
    assert b.post("/api/me/notices/seen", {"up_to": "x"}, format="json").json()["code"] == "invalid"


def test_a_sanction_answers_its_reason_and_end_and_is_appealed_once(make_client, moderator, mod):
    ann = UserFactory(display_name="Ann")
    client = make_client(ann)
    until = timezone.now() + timedelta(hours=5)
    sanction = sanctions.user_suspend(user=ann, by=moderator, reason="Stalling every game", until=until)
    res = client.get("/api/me")
    body = res.json()
    assert (res.status_code, body["code"], body["reason"], body["sanction_id"]) == (
        403, "suspended", "Stalling every game", sanction.pk)
    assert body["until"].startswith(until.strftime("%Y-%m-%dT%H:%M")) and "Stalling every game" in body["detail"]
    bad = client.post("/api/appeals", {"sanction_id": sanction.pk, "text": ""}, format="json")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid")
    other = sanctions.user_mute(user=UserFactory(), by=moderator, reason="x", until=until)
    assert client.post("/api/appeals", {"sanction_id": other.pk, "text": "hi"}, format="json").status_code == 404
    res = client.post("/api/appeals", {"sanction_id": sanction.pk, "text": "My connection dropped."}, format="json")
    assert res.status_code == 201 and res.json()["status"] == "open"
    again = client.post("/api/appeals", {"sanction_id": sanction.pk, "text": "Please."}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "already_appealed")
    appeal = Appeal.objects.get()
    queue = mod.get("/admin/moderation/appeal/")
    assert queue.status_code == 200 and b"My connection dropped." in queue.content
    page = mod.post(f"/admin/moderation/appeal/{appeal.pk}/decide/", {"decision": "grant", "note": "Fair enough"})
    assert page.status_code == 302
    assert client.get("/api/me").status_code == 200  # lifted
    lifted = Sanction.objects.get(pk=sanction.pk)
    assert (lifted.lifted_by, lifted.lift_reason) == (moderator, "Appeal granted: Fair enough")
    assert [(n["kind"], n["text"]) for n in _notices(client)] == [
        ("appeal_decided", "Your appeal was granted: the suspend is lifted. Fair enough")]
    row = LogEntry.objects.get(additional_data__action="appeal_decide")
    assert (row.actor, row.additional_data["reason"]) == (moderator, "Fair enough")
    again = mod.post(f"/admin/moderation/appeal/{appeal.pk}/decide/", {"decision": "reject", "note": "x"})
    assert b"This appeal was decided." in again.content


def test_a_muted_player_is_told_why(make_client, moderator):
    ann, bob = UserFactory(), UserFactory()
    room = rooms.room_create(user=ann, game="chinchirorin", seats=2)
    rooms.room_join(code=room.code, user=bob)
    sanctions.user_mute(user=bob, by=moderator, reason="Insults", until=timezone.now() + timedelta(hours=1))
    res = make_client(bob).post(f"/api/rooms/{room.code}/messages", {"text": "hi"}, format="json")
    body = res.json()
    assert (res.status_code, body["code"], body["reason"]) == (403, "muted", "Insults")
    assert body["sanction_id"] == Sanction.objects.get(user=bob).pk
