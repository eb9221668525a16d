"""The web client in a real browser (Debian's Chromium through Playwright) against the real service
(uvicorn + a Celery worker on the test database). Two browser contexts — a desktop and a 360x740 phone —
create a room, share it by its link, join, chat both ways and play a whole game of each kind against each
other with a CPU in the third seat; the phone plays a Chinchón turn by keyboard only; one player reloads
mid-game and gets its seat back. Screenshots of the lobby and of each table go to var/artifacts/."""

import json
import re
import time

import pytest
from playwright.sync_api import expect

from games.models import Game
from tests.live import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser,
              pytest.mark.django_db(transaction=True)]

GAME_SECONDS = 150  # an upper bound for a whole game, far above what it takes (it fails, never waits)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}


def _page(browser, *, phone: bool = False, locale: str = "en-US"):
    ctx = browser.new_context(viewport=PHONE if phone else DESKTOP, locale=locale, has_touch=phone)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


def _guest(page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#guest-name", name)
    page.click("#guest-form button[type=submit]")


def _create_room(page, game: str, *, rules: dict[str, str], seats: int = 3) -> tuple[str, str]:
    """Fill the create form (built from the catalogue) and submit it; returns (code, invite_url)."""
    page.check(f"#create-game-{game}")
    page.select_option("#create-seats", str(seats))
    page.click("details.settings > summary")
    for name, value in rules.items():
        page.select_option(f"#rule-{name}", value)
    page.select_option("#create-cpu-speed", '"fast"')
    page.click("#create-button")
    code = page.locator("#room-code").inner_text()
    return code, page.input_value("#invite-url")


def _finished(page) -> bool:
    return page.locator("#result-title").count() > 0


# One decision of a human that loses fast, made in the page by clicking its buttons (one round trip to the
# browser each). It keeps high cards that meld with nothing (a loose card adds its value to the score) and
# throws away jokers and cards that share a rank or a suit neighbourhood with another: take a high lone
# card from the discard pile, else draw from the stock; discard the card worth least loose; decline
# re-entry. Answers what it did, or "wait".
CHINCHON_STEP = """() => {
  if (!document.querySelector('.turnline.mine')) return 'wait';
  const value = (c) => (c === 'JK' ? 25 : Math.min(parseInt(c, 10), 10));
  const rank = (c) => parseInt(c, 10);
  const held = [...document.querySelectorAll('.hand [data-card]')].map((e) => e.dataset.card);
  const loose = (c) => {
    if (c === 'JK') return -100;
    let worth = value(c);
    for (const o of held) {
      if (o === c || o === 'JK') continue;
      if (rank(o) === rank(c)) worth -= 15;
      else if (o.slice(-1) === c.slice(-1) && Math.abs(rank(o) - rank(c)) <= 2) worth -= 10;
    }
    return worth;
  };
  const top = document.querySelector('#draw-discard:not([disabled])');
  const stock = document.querySelector('#draw-stock:not([disabled])');
  if (top && top.dataset.top && loose(top.dataset.top) >= 10) { top.click(); return 'took'; }
  if (stock) { stock.click(); return 'drew'; }
  const cards = [...document.querySelectorAll('.hand button.pick:not([disabled])')];
  if (cards.length) {
    cards.reduce((a, b) => (loose(b.dataset.card) < loose(a.dataset.card) ? b : a)).click();  // select it
    const discard = document.querySelector('#discard-button:not([disabled])');
    if (discard) { discard.click(); return 'discarded'; }
  }
  const decline = document.querySelector('[data-action="reenter"][data-value="false"]:not([disabled])');
  if (decline) { decline.click(); return 'declined'; }
  return 'wait';
}"""
CHINCHIRORIN_STEP = """() => {
  const button = document.querySelector('.game-actions button.act.primary:not([disabled])');
  if (!button) return 'wait';
  button.click();
  return button.dataset.action;
}"""


def _chinchon_step(page) -> None:
    page.evaluate(CHINCHON_STEP)


def _chinchirorin_step(page) -> None:
    page.evaluate(CHINCHIRORIN_STEP)


def _play_out(pages, step, on_round=None) -> None:
    deadline = time.monotonic() + GAME_SECONDS
    rounds = 0
    while not all(_finished(p) for p in pages):
        if time.monotonic() > deadline:
            for i, p in enumerate(pages):
                p.screenshot(path=ROOT / "var" / "artifacts" / f"timeout-{i}.png", full_page=True)
            raise AssertionError("the game did not end in time")
        for p in pages:
            if not _finished(p):
                step(p)
        rounds += 1
        if on_round:
            on_round(rounds)
        pages[0].wait_for_timeout(20)


def _tab_to(page, predicate_js: str, presses: int = 80) -> None:
    """Press Tab until the focused element satisfies ``predicate_js`` (a JS expression over ``el``)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate(f"(() => {{ const el = document.activeElement; return !!el && ({predicate_js}); }})()"):
            return
    raise AssertionError(f"Tab never reached {predicate_js}")


def _keyboard_turn(page, other) -> str:
    """Play ``page``'s next Chinchón turn with the keyboard only (Tab/Enter): draw from the stock, choose
    a card, discard it (``other`` plays by clicks until then). Returns the card discarded."""
    deadline = time.monotonic() + GAME_SECONDS
    while not page.locator("#draw-stock:not([disabled])").count():
        assert time.monotonic() < deadline and not _finished(page), "the phone's turn never came"
        _chinchon_step(other)
        page.wait_for_timeout(60)
    _tab_to(page, "el.id === 'draw-stock'")
    page.keyboard.press("Enter")
    page.wait_for_selector(".hand button.pick:not([disabled])")
    _tab_to(page, "el.matches('.hand button.pick:not([disabled])')")
    card = page.evaluate("document.activeElement.dataset.card")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"
    _tab_to(page, "el.id === 'discard-button'")
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelector('#draw-discard')?.dataset.top === '{card}'")
    return card


def _standing(page) -> list[str]:
    return page.locator(".standing li").all_inner_texts()


def _assert_result_shown(pages, game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.FINISHED
    names = {gp.seat: gp for gp in game.players.all()}
    assert len(game.result["standing"]) == 3
    for p in pages:
        lines = _standing(p)
        assert len(lines) == 3
        for line, row in zip(lines, game.result["standing"], strict=True):
            assert line.startswith(f"{row['place']}. ")
            amount = row.get("points", row.get("score"))
            assert re.search(rf"(^|\s){amount}(\s|$)", line), (line, row)
            if not names[row["seat"]].cpu:
                assert names[row["seat"]].user.display_name in line


def _game_id(page) -> int:
    return int(page.locator(".table").get_attribute("data-game"))


def test_two_players_share_a_chinchon_room_chat_and_play_it_out(server, browser, artifacts):
    host = _page(browser)
    phone = _page(browser, phone=True)
    _guest(host, server, "Alba")
    code, link = _create_room(host, "chinchon", rules={"elimination": "50"})
    assert link == f"{server}/join/{code}"
    _guest(phone, link, "Bruno")  # the invite link asks for a name, then joins
    host.wait_for_selector(".seat:has-text('Bruno'):not(:has-text('offline'))")  # his socket is open
    phone.wait_for_selector(".seat-who:has-text('Alba')")
    host.screenshot(path=artifacts / "lobby-desktop.png", full_page=True)
    phone.screenshot(path=artifacts / "lobby-phone.png", full_page=True)

    host.click("#start-game")  # the empty third seat gets a CPU
    for p in (host, phone):
        p.wait_for_selector(".table.chinchon")
    assert host.locator(".player").count() == 3

    host.fill("#chat-text", "Hola, Bruno")
    host.press("#chat-text", "Enter")
    phone.wait_for_selector(".chat-text:has-text('Hola, Bruno')")
    phone.click('[data-phrase="good_luck"]')
    phone.click("#chat-emoji button >> nth=0")
    host.wait_for_selector(".chat-text:has-text('Good luck!')")
    host.wait_for_selector(".emoji-msg")

    card = _keyboard_turn(phone, host)
    assert phone.locator(f'.hand [data-card="{card}"]').count() < 2
    host.screenshot(path=artifacts / "chinchon-desktop.png", full_page=True)
    phone.click("#suits-toggle")  # French suits on the phone
    phone.screenshot(path=artifacts / "chinchon-phone.png", full_page=True)

    _play_out([host, phone], _chinchon_step)
    host.screenshot(path=artifacts / "chinchon-result-desktop.png", full_page=True)
    _assert_result_shown([host, phone], _game_id(host))


def test_two_players_play_chinchirorin_and_a_reload_keeps_the_seat(server, browser, artifacts):
    host = _page(browser)
    guest = _page(browser, phone=True)
    _guest(host, server, "Chika")
    _code, link = _create_room(host, "chinchirorin", rules={"first_dealer": '"seat"'})
    _guest(guest, link, "Daigo")
    host.wait_for_selector(".seat-who:has-text('Daigo')")
    host.click("#start-game")
    for p in (host, guest):
        p.wait_for_selector(".table.chinchirorin")
    reloaded = []

    def reload_once(rounds: int) -> None:
        if reloaded or not host.locator(".last-hand").count() or not host.locator(".rolls .roll").count():
            return  # wait for the second hand's throws
        host.screenshot(path=artifacts / "chinchirorin-desktop.png", full_page=True)
        guest.screenshot(path=artifacts / "chinchirorin-phone.png", full_page=True)
        guest.reload()
        guest.wait_for_selector('.table.chinchirorin .player.me[data-seat="1"]')
        assert guest.locator(".player.me .pname").inner_text() == "Daigo"
        reloaded.append(rounds)

    _play_out([host, guest], _chinchirorin_step, reload_once)
    assert reloaded, "the game ended before the reload"
    _assert_result_shown([host, guest], _game_id(host))


def test_the_page_speaks_spanish_to_a_spanish_browser_and_switches(server, browser):
    page = _page(browser, locale="es-ES")
    page.goto(server)
    assert page.locator("html").get_attribute("lang") == "es"
    assert page.locator("#guest-form h3").inner_text() == "Jugar como invitado"
    page.select_option("#lang-select", "en")
    page.click(".lang button[type=submit]")
    page.wait_for_selector("html[lang=en]")
    assert page.locator("#guest-form h3").inner_text() == "Play as a guest"


def test_a_room_reopened_by_its_link_keeps_its_cpu_levels_and_names_achievements_in_the_page_language(
        server, browser):
    """A reload (or an invitation link) opens the room before the home screen read the catalogue: the
    seats still show the CPU level's label and offer every level; a level chosen for an empty seat survives
    a room message until "Add computer"; the socket's achievement message (English by contract) is shown
    by the name of the page's language."""
    host = _page(browser, locale="es-ES")
    sockets = []

    def route(ws) -> None:  # pass every frame through, and keep a hand on the page's side
        ws.connect_to_server()
        sockets.append(ws)

    host.route_web_socket(re.compile(r"/ws/rooms/"), route)
    _guest(host, server, "Chika")
    _code, link = _create_room(host, "chinchirorin", rules={}, seats=3)
    host.select_option("#seat-level-2", "hard")
    guest = _page(browser)
    _guest(guest, link, "Daigo")
    host.wait_for_selector(".seat-who:has-text('Daigo')")  # the room message redrew the seats
    host.locator("li.seat", has=host.locator("#seat-level-2")).locator("[data-testid=add-cpu]").click()
    host.wait_for_selector(".seat-who:has-text('Ordenador (Difícil)')")

    held = []  # the catalogue's read is held back: the room is drawn before it arrives
    host.route("**/api/games/catalogue", lambda route: held.append(route))
    host.reload()
    host.wait_for_selector(".seat-who:has-text('Daigo')")
    expect(host.locator(".seat-who").nth(2)).to_have_text("Ordenador")  # never the level's raw id
    assert host.locator("#seat-level-2").count() == 0
    deadline = time.monotonic() + 15
    while not held:  # the held request reaches the handler
        assert time.monotonic() < deadline, "the catalogue was never asked for"
        host.wait_for_timeout(20)
    for route in held:
        route.continue_()
    host.unroute("**/api/games/catalogue")
    expect(host.locator(".seat-who").nth(2)).to_have_text("Ordenador (Difícil)")
    host.wait_for_function("document.querySelectorAll('#seat-level-2 option').length === 3")
    assert host.locator("#seat-level-2 option").all_inner_texts() == ["Fácil", "Normal", "Difícil"]

    host.wait_for_function("!document.querySelector('#conn-state').textContent")  # the socket is open
    sockets[-1].send(json.dumps({"type": "achievement", "seat": 0, "achievement": {
        "id": "first_game", "name": "First game", "description": "Finish a game."}}))
    host.wait_for_selector("#toast:not([hidden])")
    assert host.locator("#toast").inner_text() == "Chika ha conseguido el logro «Primera partida»."


def test_a_phone_reaches_every_menu_entry_and_the_stats_fit_its_width(server, browser, artifacts):
    phone = _page(browser, phone=True)
    _guest(phone, server, "Emi")
    phone.wait_for_selector("#menu:not([hidden])")
    width = phone.evaluate("window.innerWidth")
    rights = phone.evaluate("[...document.querySelectorAll('#menu button')].map((b) => b.getBoundingClientRect().right)")
    assert len(rights) == 9 and max(rights) <= width, rights  # with Tournaments, Coins and Your games
    phone.click("#menu button[data-screen=stats]")
    phone.wait_for_selector("#stats-body table.grid")
    phone.screenshot(path=artifacts / "stats-phone.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= width


def test_a_503_is_sent_again_after_its_retry_after_and_shown_only_when_it_lasts(server, browser):
    """A 503 ``unavailable`` changed nothing (client guide): the page sends the same request again after
    its ``Retry-After``, up to three times, and shows the error only when every try was answered 503;
    another 503 is shown at once."""
    busy = {"status": 503, "headers": {"Retry-After": "1", "Content-Type": "application/json"},
            "body": json.dumps({"code": "unavailable", "detail": "Busy for a moment.", "retry_after": 1})}
    page = _page(browser)
    tries = []

    def busy_once(route):
        tries.append(route.request.method)
        if len(tries) == 1:
            route.fulfill(**busy)
        else:
            route.continue_()

    page.route("**/api/auth/guest", busy_once)
    _guest(page, server, "Patient")
    expect(page.locator("#create-button")).to_be_visible(timeout=15_000)
    assert tries == ["POST", "POST"]
    assert "Busy" not in (page.locator("#toast").text_content() or "")
    page.context.close()

    page = _page(browser)
    always = []

    def busy_always(route):
        always.append(route.request.method)
        route.fulfill(**busy)

    page.route("**/api/auth/guest", busy_always)
    _guest(page, server, "Unlucky")
    expect(page.locator("#toast")).to_have_text("Busy for a moment.", timeout=15_000)  # after 3 waits of 1 s
    assert always == ["POST"] * 4
    expect(page.locator("#guest-form")).to_be_visible()  # still signed out
    page.context.close()

    page = _page(browser)  # another 503 (server_busy, a proxy's) is shown at once
    other = []

    def busy_otherwise(route):
        other.append(route.request.method)
        route.fulfill(status=503, headers={"Content-Type": "application/json"},
                      body=json.dumps({"code": "server_busy", "detail": "No room code free."}))

    page.route("**/api/auth/guest", busy_otherwise)
    _guest(page, server, "Hasty")
    expect(page.locator("#toast")).to_have_text("No room code free.")
    assert other == ["POST"]
    page.context.close()
