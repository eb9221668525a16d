"""The tournaments screen in a real browser (Debian's Chromium through Playwright) against the real
service (uvicorn + a Celery worker on the test database): the organiser (desktop) creates a tournament, a
friend (phone, 390x844) opens its link and joins, the organiser's entrants list grows over the socket;
the start and a table's end (run by the worker) update both screens live: a button to each one's table,
then the standings. Screenshots of both sizes go to var/artifacts/."""

import json

import pytest
from django.utils import timezone, translation
from playwright.sync_api import expect

from config.celery_app import app as celery_app
from games.models import Game
from tests.factories import UserFactory, token_for
from tournaments.models import Tournament, TournamentTable

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _page(browser, user, *, phone=False, locale="en-US"):
    token = token_for(user)
    ctx = browser.new_context(viewport=PHONE if phone else DESKTOP, locale=locale, has_touch=phone)
    ctx.add_init_script(f"localStorage.setItem('chinchi.token', {json.dumps(json.dumps(token))});")
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


def _worker_runs(task: str, *args) -> None:
    """Hand a task to the live stack's Celery worker (its broadcasts reach the server's sockets)."""
    celery_app.send_task(task, args=list(args))


def test_create_join_by_link_and_follow_it_live(server, browser, artifacts):
    org = UserFactory(display_name="Orla")
    friend = UserFactory(display_name="Fede")
    desk = _page(browser, org)
    desk.goto(f"{server}/#tournaments")
    expect(desk.locator("#tournament-create")).to_be_visible()
    desk.screenshot(path=artifacts / "tournament-create-desktop.png", full_page=True)
    desk.fill("#t-name", "Friday night")
    desk.select_option("#t-game", "chinchirorin")
    desk.select_option("#t-format", "swiss")
    desk.fill("#t-rounds", "2")
    desk.click("#tournament-create button[type=submit]")
    expect(desk.locator("#tournament-name")).to_have_text("Friday night")
    code = desk.locator("#tournament-code-shown").inner_text()
    link = desk.input_value("#tournament-url")
    assert link == f"{server}/tournament/{code}"

    phone = _page(browser, friend, phone=True)
    phone.goto(f"{server}/#tournaments")
    expect(phone.locator("#tournament-create")).to_be_visible()
    phone.screenshot(path=artifacts / "tournament-create-phone.png", full_page=True)
    phone.goto(link)
    phone.click("#tournament-join")
    expect(phone.locator("#tournament-players")).to_contain_text("Fede")
    expect(desk.locator("#tournament-players")).to_contain_text("2. Fede")  # over the socket
    desk.screenshot(path=artifacts / "tournament-open-desktop.png", full_page=True)
    phone.screenshot(path=artifacts / "tournament-open-phone.png", full_page=True)

    t = Tournament.objects.get(code=code)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    _worker_runs("tournaments.tasks.start_tournament", t.pk)
    expect(phone.locator("#tournament-my-table")).to_be_visible(timeout=30_000)
    expect(desk.locator("#tournament-my-table")).to_be_visible()
    expect(desk.locator("#tournament-state")).to_contain_text("Round 1 of 2")

    table = TournamentTable.objects.get(tournament=t, round=1)
    Game.objects.filter(pk=table.game_id).update(
        status=Game.FINISHED, finished_at=timezone.now(),
        result={"standing": [{"seat": 0, "place": 2}, {"seat": 1, "place": 1}], "reason": "test"})
    _worker_runs("tournaments.tasks.table_ended", table.game_id)
    expect(desk.locator("#tournament-state")).to_contain_text("Round 2 of 2", timeout=30_000)
    first = desk.locator("#tournament-standings tbody tr").first
    expect(first).to_contain_text("Fede")
    expect(first.locator("td").nth(2)).to_have_text("1")
    expect(phone.locator("#tournament-standings tbody tr").first).to_contain_text("Fede")
    desk.screenshot(path=artifacts / "tournament-running-desktop.png", full_page=True)
    phone.screenshot(path=artifacts / "tournament-running-phone.png", full_page=True)

    phone.click("#tournament-my-table")
    expect(phone).to_have_url(f"{server}/room/{TournamentTable.objects.get(tournament=t, round=2).room.code}")


def test_the_rules_are_named_in_the_players_language(server, browser, artifacts):
    """The creation form's rules menu and a tournament's header name the preset or play style as the
    games' catalogue does in the player's language (never the raw id); the choice made is what is sent."""
    from rooms.catalogue import catalogue

    with translation.override("ja"):
        games = {g["id"]: g for g in catalogue()["games"]}
    presets = [p["name"] for p in games["chinchon"]["presets"]]
    (style,) = [s for s in games["chinchirorin"]["settings"] if s["name"] == "style"]
    styles = {c["value"]: c["label"] for c in style["choices"]}
    assert "Standard" not in presets and styles["common"] != "Common"  # a Japanese catalogue

    page = _page(browser, UserFactory(display_name="Orla"), locale="ja-JP")
    page.goto(f"{server}/#tournaments")
    named = page.locator("#t-rule option:not([value=''])")
    expect(named).to_have_text(presets)
    page.select_option("#t-game", "chinchirorin")
    expect(named).to_have_text(list(styles.values()))
    page.select_option("#t-rule", "common")
    page.fill("#t-rounds", "2")
    page.click("#tournament-create button[type=submit]")
    expect(page.locator("#tournament-state")).to_contain_text(f"({styles['common']})")
    code = page.locator("#tournament-code-shown").inner_text()
    assert Tournament.objects.get(code=code).rules == {"style": "common"}
    page.screenshot(path=artifacts / "tournament-open-ja-desktop.png", full_page=True)
