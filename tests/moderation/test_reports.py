"""Player reports (issue 11, item 2): ``POST /api/reports`` and the admin's queue, as a moderator: the
reported content in context, assign, resolve with dismiss / warn / mute / suspend / ban through the
sanction services, the outcome recorded."""

import pytest
from auditlog.models import LogEntry
from rest_framework.test import APIClient

from accounts.models import Sanction
from config.errors import ApiError
from moderation import services
from moderation.models import Report
from rooms import services as rooms
from tests.factories import UserFactory, token_for
from tests.moderation.conftest import make_moderator
from tests.ranking.factories import make_game

pytestmark = pytest.mark.django_db


def _api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


@pytest.fixture
def chat():
    """Ann and Bob in a room; Bob said something: ``(room, ann, bob, message)``."""
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = rooms.room_create(user=ann, game="chinchirorin", seats=2)
    rooms.room_join(code=room.code, user=bob)
    for text in ("hi", "good luck"):
        rooms.chat_post(code=room.code, user=ann, data={"text": text})
    message = rooms.chat_post(code=room.code, user=bob, data={"text": "you are an idiot"})
    return room, ann, bob, message


def test_report_a_message_a_user_and_a_game(chat):
    room, ann, bob, message = chat
    api = _api(ann)
    res = api.post("/api/reports", {"kind": "chat_message", "target_id": message.pk, "reason": "harassment",
                                    "note": "  insults  "}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert {k: body[k] for k in ("kind", "target_id", "reason", "note", "status")} == {
        "kind": "chat_message", "target_id": message.pk, "reason": "harassment", "note": "insults", "status": "open"}
    assert body["created_at"].endswith("Z")
    report = Report.objects.get(pk=body["id"])
    assert (report.reported_user_id, report.content, report.target_key) == (bob.pk, "you are an idiot",
                                                                            f"chat_message:{message.pk}")
    assert api.post("/api/reports", {"kind": "user", "target_id": bob.pk, "reason": "inappropriate_name"},
                    format="json").status_code == 201
    game = make_game(users=[ann, bob], places=[1, 2])
    assert api.post("/api/reports", {"kind": "game", "target_id": game.pk, "reason": "collusion"},
                    format="json").status_code == 201
    assert Report.objects.filter(reporter=ann).count() == 3


@pytest.mark.parametrize("body, status, code, field", [
    ({"kind": "user", "target_id": "SELF", "reason": "spam"}, 400, "invalid", "target_id"),
    ({"kind": "user", "target_id": 10**12, "reason": "spam"}, 404, "not_found", None),
    ({"kind": "player", "target_id": 1, "reason": "spam"}, 400, "invalid", "kind"),
    ({"kind": "user", "target_id": "BOB", "reason": "rude"}, 400, "invalid", "reason"),
    ({"kind": "user", "target_id": "BOB", "reason": "spam", "note": "x" * 501}, 400, "invalid", "note"),
    ({"kind": "user", "target_id": 0, "reason": "spam"}, 400, "invalid", "target_id"),
    ({"kind": "chat_message", "target_id": "OWN", "reason": "spam"}, 400, "invalid", "target_id"),
    ({"kind": "game", "target_id": "GAME", "reason": "cheating"}, 403, "not_a_player", None),
])
def test_bad_reports_are_refused_and_change_nothing(chat, body, status, code, field):
    room, ann, bob, message = chat
    own = rooms.chat_post(code=room.code, user=ann, data={"text": "mine"})
    game = make_game(users=[bob, UserFactory()], places=[1, 2])
    ids = {"SELF": ann.pk, "BOB": bob.pk, "OWN": own.pk, "GAME": game.pk}
    body = {**body, "target_id": ids.get(body["target_id"], body["target_id"])}
    res = _api(ann).post("/api/reports", body, format="json")
    assert (res.status_code, res.json()["code"]) == (status, code)
    if field:
        assert field in res.json()["fields"]
    assert Report.objects.count() == 0


def test_a_note_is_500_characters_as_a_reader_counts_them(chat):
    room, ann, bob, message = chat
    thumbs = "👍🏽" * 500  # 500 characters on screen, 1000 code points
    res = _api(ann).post("/api/reports", {"kind": "user", "target_id": bob.pk, "reason": "spam", "note": thumbs},
                         format="json")
    assert res.status_code == 201 and res.json()["note"] == thumbs
    res = _api(ann).post("/api/reports", {"kind": "chat_message", "target_id": message.pk, "reason": "spam",
                                          "note": "a\u202eb"}, format="json")
    assert (res.status_code, list(res.json()["fields"])) == (400, ["note"])
    with pytest.raises(ApiError) as exc:  # the service applies the policy too (callers other than the API)
        services.report_create(reporter=ann, kind="chat_message", target_id=message.pk, reason="spam",
                               note="x" * 501)
    assert exc.value.fields == {"note": ["too_long: At most 500 characters."]}


def test_a_message_of_a_room_never_joined_is_not_found(chat):
    room, ann, bob, message = chat
    stranger = UserFactory()
    res = _api(stranger).post("/api/reports", {"kind": "chat_message", "target_id": message.pk, "reason": "spam"},
                              format="json")
    assert (res.status_code, res.json()["code"]) == (404, "not_found")


def test_one_report_per_target_and_the_rate_limit(chat, settings):
    room, ann, bob, message = chat
    api = _api(ann)
    body = {"kind": "user", "target_id": bob.pk, "reason": "spam"}
    assert api.post("/api/reports", body, format="json").status_code == 201
    again = api.post("/api/reports", {**body, "reason": "hate"}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "already_reported")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "report": "3/hour"}}
    others = [UserFactory() for _ in range(2)]
    # two requests counted already this hour (201 and 409): one more passes, the next is throttled
    assert api.post("/api/reports", {**body, "target_id": others[0].pk}, format="json").status_code == 201
    res = api.post("/api/reports", {**body, "target_id": others[1].pk}, format="json")
    assert (res.status_code, res.json()["code"]) == (429, "throttled")
    assert "Retry-After" in res
    assert _api(UserFactory()).post("/api/reports", {**body, "target_id": others[1].pk},
                                    format="json").status_code == 201  # per user


def test_the_queue_puts_the_most_reported_first_then_the_newest(mod, chat):
    room, ann, bob, message = chat
    lone = Report.objects.create(reporter=ann, kind="user", target_key=f"user:{ann.pk + 1000}", reason="spam")
    crowd = [Report.objects.create(reporter=UserFactory(), kind="user", user=bob, reported_user=bob,
                                   target_key=f"user:{bob.pk}", reason="hate") for _ in range(3)]
    newest = Report.objects.create(reporter=bob, kind="user", user=ann, reported_user=ann,
                                   target_key=f"user:{ann.pk}", reason="spam")
    Report.objects.create(reporter=ann, kind="user", user=bob, reported_user=bob, target_key=f"user:{bob.pk}",
                          reason="spam", status="resolved")
    res = mod.get("/admin/moderation/report/")  # open ones by default
    order = [r.pk for r in res.context["cl"].result_list]
    # 3 reports on bob (newest of them first), then the two single ones, newest first
    assert order == [crowd[2].pk, crowd[1].pk, crowd[0].pk, newest.pk, lone.pk]
    assert [r.on_target for r in res.context["cl"].result_list] == [3, 3, 3, 1, 1]
    assert len(mod.get("/admin/moderation/report/?status=all").context["cl"].result_list) == 6
    assert len(mod.get("/admin/moderation/report/?status=resolved").context["cl"].result_list) == 1


def test_a_report_page_shows_the_chat_around_the_message_and_it_can_be_assigned(mod, moderator, chat):
    room, ann, bob, message = chat
    report_id = _api(ann).post("/api/reports", {"kind": "chat_message", "target_id": message.pk,
                                                "reason": "harassment"}, format="json").json()["id"]
    rooms.chat_post(code=room.code, user=ann, data={"text": "please stop"})
    page = mod.get(f"/admin/moderation/report/{report_id}/change/")
    assert page.status_code == 200
    texts = [m.text for m in page.context["chat"]]
    assert texts == ["hi", "good luck", "you are an idiot", "please stop"]
    assert b"/assign/" in page.content and b"/resolve/" in page.content
    form = mod.get(f"/admin/moderation/report/{report_id}/assign/")
    assert form.status_code == 200 and form.context["form"]["moderator"].value() == moderator.pk
    assert mod.post(f"/admin/moderation/report/{report_id}/assign/", {"moderator": moderator.pk}).status_code == 302
    assert Report.objects.get(pk=report_id).assigned_to_id == moderator.pk
    colleague = make_moderator(username="mod2")
    assert mod.post(f"/admin/moderation/report/{report_id}/assign/", {"moderator": colleague.pk}).status_code == 302
    assert Report.objects.get(pk=report_id).assigned_to_id == colleague.pk
    assert mod.post(f"/admin/moderation/report/{report_id}/assign/", {"moderator": ann.pk}).status_code == 200  # staff only
    assert LogEntry.objects.filter(additional_data__action="report_assign", actor=moderator).count() == 2


def test_resolving_with_a_ban_sanctions_through_the_service_and_records_the_outcome(mod, moderator, chat):
    room, ann, bob, message = chat
    reports = [_api(u).post("/api/reports", {"kind": "user", "target_id": bob.pk, "reason": "hate"},
                            format="json").json()["id"] for u in (ann, UserFactory())]
    url = f"/admin/moderation/report/{reports[0]}/resolve/"
    assert mod.get(url).status_code == 200
    missing = mod.post(url, {"outcome": "suspend", "user": bob.pk, "note": "hate speech"})
    assert missing.status_code == 200 and b"needs a length" in missing.content
    assert mod.post(url, {"outcome": "ban", "user": bob.pk, "note": "hate speech"}).status_code == 302
    sanction = Sanction.objects.get(user=bob)
    assert (sanction.kind, sanction.reason, sanction.created_by_id, sanction.until) == (
        "ban", "hate speech", moderator.pk, None)
    rows = Report.objects.filter(pk__in=reports)
    assert {(r.status, r.outcome, r.outcome_note, r.resolved_by_id, r.sanction_id) for r in rows} == {
        ("resolved", "ban", "hate speech", moderator.pk, sanction.pk)}
    res = _api(bob).get("/api/me")
    assert (res.status_code, res.json()["code"]) == (403, "banned")
    assert LogEntry.objects.filter(additional_data__action="report_resolve").count() == 2
    # a resolved report cannot be resolved again
    again = mod.post(url, {"outcome": "dismiss", "note": "no"})
    assert again.status_code == 200 and b"resolved" in again.content


def test_resolving_with_a_suspension_and_a_dismissal(mod, chat, nobody):
    from django.utils import timezone

    room, ann, bob, message = chat
    first = _api(ann).post("/api/reports", {"kind": "user", "target_id": bob.pk, "reason": "stalling"},
                           format="json").json()["id"]
    assert nobody.post(f"/admin/moderation/report/{first}/resolve/",
                       {"outcome": "dismiss", "note": "x"}).status_code == 302  # to the login page
    before = timezone.now()
    assert mod.post(f"/admin/moderation/report/{first}/resolve/",
                    {"outcome": "suspend", "user": bob.pk, "hours": "48", "note": "stalling"}).status_code == 302
    sanction = Sanction.objects.get(user=bob)
    assert sanction.kind == "suspend"
    hours = (sanction.until - before).total_seconds() / 3600
    assert 48 <= hours < 48.02
    res = _api(bob).get("/api/me")
    assert (res.status_code, res.json()["code"]) == (403, "suspended")
    second = _api(bob).post  # bob cannot report while suspended
    assert second("/api/reports", {"kind": "user", "target_id": ann.pk, "reason": "spam"},
                  format="json").status_code == 403
    other = _api(bob.__class__.objects.create(username="carl", display_name="Carl")).post(
        "/api/reports", {"kind": "user", "target_id": ann.pk, "reason": "spam"}, format="json").json()["id"]
    assert mod.post(f"/admin/moderation/report/{other}/resolve/",
                    {"outcome": "dismiss", "note": "nothing wrong"}).status_code == 302
    assert Report.objects.get(pk=other).outcome == "dismiss"
    assert not Sanction.objects.filter(user=ann).exists()
