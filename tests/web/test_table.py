"""The table as players see it, in a real browser against the real service: seats around the felt, card
backs, piles and the dice bowl, the dealer marked, the countdown on the seat whose turn it is, moves
animated from the socket's events (<= 400 ms, none under prefers-reduced-motion); the page in Japanese with
no English on screen; watching a room by its link; stepping through a finished game; the installable app
that opens offline; axe-core on every screen; the bytes of the first load and the room's first paint
(written to var/artifacts/perf.json). Screenshots of both tables mid-hand and at a hand's end, at phone and
desktop size, go to var/artifacts/ (docs/ holds copies)."""

import json
import re
import time
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from games.models import GameAction
from tests.web.test_browser import CHINCHIRORIN_STEP, CHINCHON_STEP, DESKTOP, GAME_SECONDS, PHONE, _finished

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser,
              pytest.mark.django_db(transaction=True)]

AXE = Axe()
JA_HANDS = ("ピンゾロ", "アラシ", "シゴロ", "の目", "ヒフミ", "目なし", "ションベン")
PAGE_BYTES = 150 * 1024

# Every text the page shows (text nodes, and the labels read aloud: aria-label, placeholder, a button's
# value; not the indices drawn on a card's face, a picture named by its label) less the names it was given (players, the room code, the brand) and addresses: what is left must
# hold no Latin letter, so a text missing from the Japanese catalogue (shown in English) is caught. Text
# under an element in another language (the language menu's own names) is left out.
NO_LATIN = """(names) => {
  const shown = (el) => !!el && !el.closest('[hidden]') && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const other = (el) => !!el.closest('[lang]:not([lang="ja"])');
  const strip = (t) => {
    for (const n of names) t = t.split(n).join('');
    return t.replace(/Chinchi/g, '').replace(/https?:\\/\\/\\S+/g, '');
  };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!shown(el) || other(el) || el.closest('script, style, svg')) continue;  // a card face is a picture
    if (/[A-Za-z]/.test(strip(n.textContent))) bad.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
    if (!shown(el) || other(el)) continue;
    for (const a of ['aria-label', 'placeholder', 'title']) {
      const v = el.getAttribute(a);
      if (v && /[A-Za-z]/.test(strip(v))) bad.push(a + '=' + v);
    }
  }
  if (/[A-Za-z]/.test(strip(document.title))) bad.push('title=' + document.title);
  return bad;
}"""

# The animation a just-arrived event set, read in one go (the next render drops it): [name, seconds].
ANIMATION = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const cs = getComputedStyle(el);
  return [cs.animationName, parseFloat(cs.animationDuration)];
}"""


def _context(browser, *, phone=False, locale="ja-JP", **kw):
    ctx = browser.new_context(viewport=PHONE if phone else DESKTOP, locale=locale, has_touch=phone, **kw)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


def _guest(page, url, name):
    page.goto(url)
    page.fill("#guest-name", name)
    page.click("#guest-form button[type=submit]")


def _create(page, game, *, seats=3, turn="30", rules=None):
    page.check(f"#create-game-{game}")
    page.select_option("#create-seats", str(seats))
    page.select_option("#create-turn", turn)
    page.select_option("#create-cpu-speed", '"fast"')
    if rules:
        page.click("details.settings > summary")
        for name, value in rules.items():
            page.select_option(f"#rule-{name}", value)
    page.click("#create-button")
    return page.locator("#room-code").inner_text()


def _api(page, path):
    """GET ``path`` with the page's own token (what the API says, to compare the drawing with)."""
    return page.evaluate("""async (path) => {
      const token = JSON.parse(localStorage.getItem('chinchi.token'));
      const res = await fetch(path, { headers: { Authorization: 'Token ' + token, Accept: 'application/json' } });
      return res.json();
    }""", path)


def _no_english(page, names):
    bad = page.evaluate(NO_LATIN, list(names))
    assert bad == [], bad


def _axe(page, screen):
    """axe-core (bundled with axe-playwright-python, nothing fetched) finds no serious or critical
    violation on the screen shown now."""
    result = AXE.run(page)
    worst = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in result.response["violations"]
             if v["impact"] in ("serious", "critical")]
    assert worst == [], (screen, worst)


def _step_until(pages, step, done, what):
    deadline = time.monotonic() + GAME_SECONDS
    while not done():
        assert time.monotonic() < deadline, f"never reached: {what}"
        for p in pages:
            if not _finished(p):
                p.evaluate(step)
        pages[0].wait_for_timeout(20)


def _shot(page, artifacts, name):
    """The room (desktop: the table and the chat, no menus) or the phone's screen, as a player sees it."""
    if page.viewport_size["width"] > PHONE["width"]:
        page.locator("#screen-room").screenshot(path=artifacts / f"{name}.png")
    else:
        page.screenshot(path=artifacts / f"{name}.png")


def test_chinchirorin_in_japanese_drawn_around_the_bowl_animated_and_replayed(server, browser, artifacts):
    host = _context(browser)
    guest = _context(browser, phone=True, reduced_motion="reduce")
    _guest(host, server, "Chika")
    code = _create(host, "chinchirorin", rules={"first_dealer": '"seat"'})
    _guest(guest, f"{server}/join/{code}", "Daigo")
    host.wait_for_selector(".seat-who:has-text('Daigo')")
    names = ("Chika", "Daigo", code, "WhatsApp")
    _no_english(host, names)
    _axe(host, "lobby")
    host.click("#start-game")
    for p in (host, guest):
        p.wait_for_selector(".table.chinchirorin .felt .player")
    game_id = int(host.locator(".table").get_attribute("data-game"))
    names += ("CPU 3",)

    view = _api(host, f"/api/games/{game_id}")
    assert host.locator(".felt .player").count() == 3
    dealer = view["table"]["dealer"]
    assert host.locator(".player .role.dealer").count() == 1
    assert host.locator(f'.player[data-seat="{dealer}"] .role.dealer').inner_text() == "親"
    assert set(host.locator(".player .role:not(.dealer)").all_inner_texts()) == {"子"}
    me_box = host.locator(".player.me").bounding_box()
    assert all(me_box["y"] >= b["y"] for b in (host.locator(".player").nth(i).bounding_box() for i in range(3)))

    # The countdown sits on the seat the API says is awaited.
    clock = host.locator(".player .seat-clock")
    expect(clock).to_have_text(re.compile(r"^\d+ 秒$"))
    awaited = _api(host, f"/api/games/{game_id}")["awaiting"]
    assert int(clock.locator("xpath=..").get_attribute("data-seat")) in awaited or not awaited

    # A throw tumbles into the bowl (<= 400 ms); under prefers-reduced-motion it does not move.
    motion, still = None, None
    deadline = time.monotonic() + GAME_SECONDS
    while motion is None or still is None:
        assert time.monotonic() < deadline, "no throw was seen"
        for p in (host, guest):
            p.evaluate(CHINCHIRORIN_STEP)
        motion = motion or host.evaluate(ANIMATION, ".throw-now.anim-roll .die-svg")
        still = still or guest.evaluate(ANIMATION, ".throw-now.anim-roll .die-svg")
        host.wait_for_timeout(20)
    assert motion[0] == "roll" and 0 < motion[1] <= 0.4, motion
    assert still[0] == "none", still

    # A hand's name is announced over the dice, in Japanese.
    _step_until([host, guest], CHINCHIRORIN_STEP, lambda: host.locator(".bowl .hand-name").count() and any(
        t in host.locator(".bowl .hand-name").inner_text() for t in JA_HANDS), "a hand named in the bowl")
    _no_english(host, names)
    _no_english(guest, names)
    _shot(host, artifacts, "chinchirorin-mid-desktop")
    _shot(guest, artifacts, "chinchirorin-mid-phone")
    _axe(host, "chinchirorin table")

    # A settled hand: the points each seat won or lost, as the API's last hand says.
    _step_until([host, guest], CHINCHIRORIN_STEP, lambda: host.locator(".player .delta").count() > 0,
                "a settled hand")
    last = _api(host, f"/api/games/{game_id}")["table"]["last_hand"]
    if last and last["payments"]:
        net = {}
        for pay in last["payments"]:
            net[pay["from"]] = net.get(pay["from"], 0) - pay["amount"]
            net[pay["to"]] = net.get(pay["to"], 0) + pay["amount"]
        shown = {int(el.get_attribute("data-seat")): el.locator(".delta").inner_text()
                 for el in host.locator(".player:has(.delta)").all()}
        if shown:  # the next hand may have begun meanwhile (then no delta is drawn)
            assert shown == {s: ("+" if n > 0 else "−") + str(abs(n)) for s, n in net.items() if n}
    _shot(host, artifacts, "chinchirorin-end-desktop")
    _shot(guest, artifacts, "chinchirorin-end-phone")

    _step_until([host, guest], CHINCHIRORIN_STEP, lambda: _finished(host) and _finished(guest), "the game's end")
    _no_english(host, names)
    _axe(host, "chinchirorin result")

    # The replay: one step per seq the log shows, from the finished table.
    host.click("#replay-link")
    host.wait_for_selector("#replay-step")
    assert host.url.endswith(f"/replay/{game_id}")
    hidden = {"turn", "step_down_offered", "betting_closed"}
    seqs = {a.seq for a in GameAction.objects.filter(game_id=game_id)
            if any(e["type"] not in hidden for e in a.events)}
    assert host.locator("#replay-counter").inner_text() == f"{len(seqs)} 手中 1 手目"
    host.click("#replay-forward")
    expect(host.locator("#replay-counter")).to_have_text(f"{len(seqs)} 手中 2 手目")
    host.click("#replay-back")
    expect(host.locator("#replay-counter")).to_have_text(f"{len(seqs)} 手中 1 手目")
    host.click("#replay-last")
    host.wait_for_selector(".replay .standing li")
    _no_english(host, names)
    _axe(host, "replay")
    # The shared link opens the same replay for the other player.
    guest.goto(host.input_value("#replay-url"))
    expect(guest.locator("#replay-counter")).to_have_text(f"{len(seqs)} 手中 1 手目")


def test_chinchon_in_japanese_backs_piles_moves_watchers_and_a_replay_without_hidden_cards(
        server, browser, artifacts):
    host = _context(browser)
    phone = _context(browser, phone=True)
    _guest(host, server, "Alba")
    code = _create(host, "chinchon", rules={"elimination": "50"})
    host.click("details.settings:has(#room-spectators) > summary")
    host.check("#room-spectators")
    host.wait_for_selector("#watch-link")
    # The room's rules in the settings panel, in Japanese too: the preset under the creation form's word.
    rules = host.locator("details.settings dl.rules")
    expect(rules.locator("dt", has_text=re.compile("^ルール$"))).to_have_count(1)
    expect(rules.locator("dd", has_text=re.compile("^標準$"))).to_have_count(1)
    watch = host.locator("#watch-link").get_attribute("href")
    assert watch.endswith(f"/watch/{code}")
    _guest(phone, f"{server}/join/{code}", "Bruno")
    host.wait_for_selector(".seat-who:has-text('Bruno')")
    host.click("#start-game")
    watcher = _context(browser, phone=True)
    _guest(watcher, watch, "Emi")
    for p in (host, phone, watcher):
        p.wait_for_selector(".table.chinchon .felt .player")
    game_id = int(host.locator(".table").get_attribute("data-game"))
    names = ("Alba", "Bruno", "Emi", "CPU 3", code, "WhatsApp")

    # Opponents' hands as backs with their count; the piles in the middle of the felt.
    sizes = _api(host, f"/api/games/{game_id}")["table"]["hand_sizes"]
    you = _api(host, f"/api/games/{game_id}")["you"]
    for seat, n in sizes.items():
        box = host.locator(f'.player[data-seat="{seat}"]')
        if int(seat) == you:
            assert box.locator(".backs").count() == 0
            continue
        expect(box.locator(".backs-count")).to_have_text(str(n))
        assert box.locator(".backs svg").count() == min(n, 8)
    assert host.locator(".felt .centre #draw-stock").count() == 1
    assert host.locator(".felt .centre #draw-discard").count() == 1

    # The watcher: every seat face down, no hand, no move, told it is watching.
    expect(watcher.locator(".watching")).to_have_text("この卓を観戦しています。")
    assert watcher.locator(".hand").count() == 0 and watcher.locator(".game-actions button.act.primary").count() == 0
    assert watcher.locator(".player .backs").count() == 3
    assert watcher.locator("#chat-form").is_hidden()
    _no_english(watcher, names)
    _axe(watcher, "watching")

    # A card drawn slides into the hand (<= 400 ms). The phone draws it from the stock: its replay below
    # must show that card, and its own steps may otherwise take every card from the discard pile.
    moved = None
    deadline = time.monotonic() + GAME_SECONDS
    while moved is None:
        assert time.monotonic() < deadline, "no draw was seen"
        if phone.locator("#draw-stock:not([disabled])").count():
            phone.click("#draw-stock")
            moved = phone.wait_for_function(ANIMATION, arg=".hand .anim-draw").json_value()
            break
        for p in (phone, host):  # a turn that starts with a discard (the mano's eighth card) is played on
            p.evaluate(CHINCHON_STEP)
        host.wait_for_timeout(20)
    assert moved[0] == "slide-in" and 0 < moved[1] <= 0.4, moved
    _no_english(host, names)
    _no_english(phone, names)
    _shot(host, artifacts, "chinchon-mid-desktop")
    _shot(phone, artifacts, "chinchon-mid-phone")
    _axe(host, "chinchon table")
    _axe(phone, "chinchon table, phone")

    _step_until([host, phone], CHINCHON_STEP, lambda: host.locator(".reveal").count() > 0, "a hand's end")
    _no_english(host, names)
    _shot(host, artifacts, "chinchon-end-desktop")
    _shot(phone, artifacts, "chinchon-end-phone")

    for p in (host, phone):
        p.on("dialog", lambda d: d.accept())
    deadline = time.monotonic() + GAME_SECONDS
    while not (_finished(host) and _finished(phone)):  # both resign (a seat out declines re-entry): it ends
        assert time.monotonic() < deadline, "the game did not end"
        for p in (host, phone):
            if _finished(p):
                continue
            if p.locator("#resign").count():
                try:  # the controls are drawn anew with each message: a button gone mid-click is tried again
                    p.click("#resign", timeout=3000)
                except PlaywrightTimeoutError:
                    pass
            else:
                p.evaluate(CHINCHON_STEP)
        host.wait_for_timeout(50)

    # Phone's replay: its own drawn cards only; another seat's draw from the stock is never a card.
    phone.click("#replay-link")
    phone.wait_for_selector("#replay-step")
    mine = _api(phone, f"/api/games/{game_id}")["you"]
    seen = phone.evaluate("""() => {
      const range = document.querySelector('#replay-step');
      const out = [];
      for (let i = 0; i <= Number(range.max); i++) {
        const r = document.querySelector('#replay-step');
        r.value = i; r.dispatchEvent(new Event('input'));
        for (const li of document.querySelectorAll('.replay-event')) out.push([li.dataset.type, li.dataset.seat,
          li.querySelectorAll('.card').length]);
      }
      return out;
    }""")
    drawn = [s for s in seen if s[0] == "drawn"]
    assert drawn and all(int(s[1]) == mine for s in drawn)
    assert [s for s in seen if s[0] == "draw" and int(s[1]) != mine]  # the others' draws are there, as moves
    _no_english(phone, names)
    _axe(phone, "replay, phone")


def test_the_page_installs_as_an_app_and_opens_offline(server, browser):
    page = _context(browser, locale="en-US")
    page.goto(server)
    manifest = page.evaluate("""async () => {
      const link = document.querySelector('link[rel=manifest]');
      return (await fetch(link.href)).json();
    }""")
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert {"192x192", "512x512"} <= {i["sizes"] for i in manifest["icons"]}
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    _guest(page, server, "Fumi")
    page.wait_for_selector("#menu:not([hidden])")
    page.reload()  # now under the worker
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    kept = page.evaluate("""async () => {
      const out = [];
      for (const name of await caches.keys()) {
        for (const req of await (await caches.open(name)).keys()) out.push(new URL(req.url).pathname);
      }
      return out;
    }""")
    assert "/" in kept and "/static/web/app.js" in kept
    assert not [k for k in kept if k.startswith("/api/") or k.startswith("/ws/")]

    page.context.set_offline(True)
    page.reload()
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator("#offline")).to_contain_text("offline")
    assert page.locator("h1.brand").inner_text() == "Chinchi"
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#offline")).to_be_hidden()
    page.wait_for_selector("#menu:not([hidden])")  # signed in again, as before


def test_every_screen_passes_axe_and_the_first_load_is_small_and_quick(server, browser, artifacts):
    page = _context(browser, locale="en-US", service_workers="block")
    page.goto(server)
    page.wait_for_selector("#screen-welcome:not([hidden])")
    _axe(page, "welcome")
    _guest(page, server, "Gin")
    page.wait_for_selector("#create-fields select")
    _axe(page, "home")
    for screen in ("stats", "leaderboard", "friends", "queue", "account"):
        page.click(f"#menu button[data-screen={screen}]")
        page.wait_for_selector(f"#screen-{screen}:not([hidden])")
        page.wait_for_load_state("networkidle")
        _axe(page, screen)
    page.click("#menu button[data-screen=home]")
    page.wait_for_selector("#create-fields select")
    code = _create(page, "chinchon")
    _axe(page, "room lobby")

    # A fresh browser opens the room by its link: every byte it fetched of the page's own files (not the
    # API, not the socket), and the first paint.
    token = page.evaluate("JSON.parse(localStorage.getItem('chinchi.token'))")
    fresh = _context(browser, locale="ja-JP", service_workers="block")  # the largest catalogue
    fresh.add_init_script(f"localStorage.setItem('chinchi.token', JSON.stringify({json.dumps(token)}))")
    fresh.goto(f"{server}/room/{code}")
    fresh.wait_for_selector("#room-code")
    fresh.wait_for_load_state("networkidle")
    perf = fresh.evaluate("""() => {
      const own = [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
        .filter((e) => new URL(e.name).origin === location.origin && !new URL(e.name).pathname.startsWith('/api/'));
      const paint = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
      return { files: own.map((e) => [new URL(e.name).pathname, e.transferSize, e.encodedBodySize, e.decodedBodySize]),
               bytes: own.reduce((n, e) => n + e.transferSize, 0),
               first_paint_ms: paint['first-paint'], first_contentful_paint_ms: paint['first-contentful-paint'] };
    }""")
    Path(artifacts / "perf.json").write_text(json.dumps(perf, indent=1))
    assert perf["files"] and all(f[1] > 0 for f in perf["files"]), perf  # every file came over the network
    assert perf["bytes"] <= PAGE_BYTES, perf


# An audio context that records the pitch of every tone started instead of playing it.
FAKE_AUDIO = """window.__tones = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    const o = { type: '', frequency: { value: 0 }, connect: (n) => n, stop() {},
                start() { window.__tones.push(o.frequency.value); } };
    return o;
  }
  createGain() { return { gain: { value: 0, exponentialRampToValueAtTime() {} }, connect: (n) => n }; }
};"""
TICK_HZ = 1200  # the page's countdown tick (app.js sounds.tick)


def test_the_last_ten_seconds_of_ones_own_turn_tick_unless_the_sound_is_off(server, browser):
    page = _context(browser, locale="en-US")
    page.add_init_script(FAKE_AUDIO)
    page.clock.install()
    _guest(page, server, "Hana")
    _create(page, "chinchirorin", seats=2, rules={"first_dealer": '"seat"'})
    page.click("#start-game")
    page.wait_for_selector(".turnline.mine")
    clock = page.locator(".player.me .seat-clock")
    expect(clock).to_have_text(re.compile(r"^\d+ s$"))
    assert int(clock.inner_text().split()[0]) > 10
    assert TICK_HZ not in page.evaluate("window.__tones")
    left = int(clock.inner_text().split()[0])
    page.clock.fast_forward((left - 8) * 1000)  # the page's clock only: the server's deadline is still far
    expect(clock).to_have_class(re.compile(r"\burgent\b"))
    page.wait_for_function(f"window.__tones.includes({TICK_HZ})")

    page.click("#sound-toggle")  # off: the countdown stays silent
    page.evaluate("window.__tones = []")
    page.clock.fast_forward(3000)
    expect(clock).to_have_text(re.compile(r"^[0-5] s$"))
    assert page.evaluate("window.__tones") == []


def test_traditional_shows_the_draw_for_the_first_mano_in_japanese(server, browser):
    """``traditional`` draws cards for the first mano: the table tells it (a toast naming each card and the
    mano) and the replay's first step shows every seat's card; in Japanese, with no English left."""
    host = _context(browser)
    _guest(host, server, "Alba")
    host.check("#create-game-chinchon")
    host.select_option("#create-preset", "traditional")
    code = _create(host, "chinchon", seats=2)
    host.click("#start-game")
    host.wait_for_selector(".table.chinchon .felt .player")
    game_id = int(host.locator(".table").get_attribute("data-game"))
    draw = _api(host, f"/api/games/{game_id}/log")["events"][0]
    assert draw["type"] == "mano_draw"
    players = _api(host, f"/api/games/{game_id}")["players"]
    names = (*[p["display_name"] for p in players], code, "WhatsApp")
    mano = next(p["display_name"] for p in players if p["seat"] == draw["mano"])
    expect(host.locator("#toast")).to_contain_text("マノ(先手)決めに引いたカード")
    expect(host.locator("#toast")).to_contain_text(f"{mano} さんが一番高いカードを引き、マノ(先手)です。")
    _no_english(host, names)
    host.on("dialog", lambda d: d.accept())
    host.click("#resign")
    host.wait_for_selector("#result-title")
    host.click("#replay-link")
    item = host.locator('.replay-event[data-type="mano_draw"]')
    expect(item.locator(".mano-draw-card")).to_have_count(sum(len(r) for r in draw["rounds"]))
    expect(item).to_contain_text("全員が1枚ずつカードを引きます")
    _no_english(host, names)
