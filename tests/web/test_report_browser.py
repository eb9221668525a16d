"""Reports and notices in the web page, in a real browser (issue 37 item 4): a player reports another
player from the table and a chat message from the chat; a moderator's warning kept while the player was
away is shown at their next visit and marked seen; a suspended player is told why and appeals. Screenshots
at phone and desktop size go to var/artifacts/."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts import sanctions
from moderation.models import Appeal, Notice, Report
from rooms import services as rooms
from tests.factories import UserFactory, token_for

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser,
              pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def _in_thread(fn):
    """Run ``fn`` away from Playwright's event loop (the services' broadcasts run in it)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result()


def _page(browser, key, viewport):
    ctx = browser.new_context(viewport=viewport)
    ctx.add_init_script(f"localStorage.setItem('chinchi.token', JSON.stringify({key!r}));")
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


def _until(check):
    """Poll the database until ``check()`` is true (the page's request may still be on its way)."""
    import time

    deadline = time.monotonic() + 15
    while not check():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.1)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_report_a_player_and_a_message_and_read_a_warning(server, browser, artifacts, viewport):
    def setup():
        ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
        room = rooms.room_create(user=ann, game="chinchirorin", seats=2, rules={"first_dealer": "seat"})
        rooms.room_join(code=room.code, user=bob)
        rooms.chat_post(code=room.code, user=bob, data={"text": "you play like a potato"})
        rooms.room_start(code=room.code, user=ann)
        Notice.objects.create(user=ann, kind="warning", text="A moderator warns you about your behaviour: be kind")
        return ann, bob, room.code, token_for(ann)

    ann, bob, code, key = _in_thread(setup)
    page = _page(browser, key, viewport)
    page.goto(f"{server}/room/{code}")
    notices = page.locator("#notices")
    expect(notices).to_contain_text("be kind")
    page.screenshot(path=str(artifacts / f"notices-{viewport['width']}.png"))
    page.click("#notices-ok")
    expect(notices).to_have_count(0)
    _until(lambda: Notice.objects.filter(user=ann, seen_at__isnull=False).exists())

    page.click(f'.players [data-report="user:{bob.pk}"]')
    dialog = page.locator("#report-dialog")
    expect(dialog).to_be_visible()
    page.select_option("#report-reason", "harassment")
    page.fill("#report-note", "rude all game")
    page.screenshot(path=str(artifacts / f"report-dialog-{viewport['width']}.png"))
    page.click("#report-send")
    expect(dialog).to_have_count(0)
    _until(lambda: Report.objects.filter(reporter=ann, kind="user", user=bob, reason="harassment",
                                         note="rude all game").exists())

    message = page.locator("#chat-log .chat-msg", has_text="potato")
    message.locator(".report-btn").click()
    page.select_option("#report-reason", "harassment")
    page.click("#report-send")
    expect(page.locator("#toast")).to_contain_text("Report sent")
    _until(lambda: Report.objects.filter(reporter=ann, kind="chat_message",
                                         content="you play like a potato").exists())
    assert page.locator("#chat-log .report-btn").count() == 1  # Bob's message only: none on one's own


def test_a_suspended_player_is_told_why_and_appeals(server, browser, artifacts):
    def setup():
        ann, mod = UserFactory(display_name="Ann"), UserFactory(is_staff=True)
        key = token_for(ann)
        sanction = sanctions.user_suspend(user=ann, by=mod, reason="Stalled five games",
                                          until=timezone.now() + timedelta(hours=5))
        return ann, sanction, key

    ann, sanction, key = _in_thread(setup)
    page = _page(browser, key, PHONE)
    page.goto(f"{server}/")
    form = page.locator("#appeal-form")
    expect(form).to_contain_text("Stalled five games")
    page.fill("#appeal-text", "My phone died mid-game.")
    page.screenshot(path=str(artifacts / "appeal-390.png"))
    page.click("#appeal-send")
    expect(page.locator("#appeal-sent")).to_be_visible()
    _until(lambda: Appeal.objects.filter(sanction=sanction, text="My phone died mid-game.").exists())
