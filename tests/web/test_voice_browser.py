"""Voice at the table in a real browser (Debian's Chromium with its fake microphone) against the real
service: two seated players join voice and each page's ``RTCPeerConnection.getStats()`` shows inbound audio
bytes growing; a third joins and connects to both; one who leaves is dropped by the others; a banned
player's peers close their connection to it. Screenshots (desktop and phone) go to var/artifacts/."""

import os
import threading

import pytest
from channels.layers import channel_layers
from django.db import connection
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from accounts import sanctions
from accounts.models import User
from tests.factories import UserFactory
from tests.web.conftest import CHROMIUM_ARGS, chromium_path

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser, pytest.mark.redis,
              pytest.mark.django_db(transaction=True)]

FAKE_MEDIA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
              "--autoplay-policy=no-user-gesture-required"]
WAIT_SECONDS = 45  # an upper bound for ICE and the first audio packets, far above what they take
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# True once the connection to ``seat`` has received audio bytes and, read again later, more of them.
GROWING = """async (seat) => {
  const pc = window.chinchiVoice && window.chinchiVoice.connections()[seat];
  if (!pc) return false;
  let bytes = 0;
  (await pc.getStats()).forEach((r) => { if (r.type === "inbound-rtp" && r.kind === "audio") bytes += r.bytesReceived || 0; });
  const first = (window.__inboundFirst = window.__inboundFirst || {});
  if (!(seat in first) || first[seat].pc !== pc) { if (bytes > 0) first[seat] = { pc, bytes }; return false; }
  return bytes > first[seat].bytes;
}"""


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module with the fake microphone and its permission granted (the
    ``browser`` fixture of tests/web/conftest.py, plus the media flags)."""
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS + FAKE_MEDIA)
            yield b
            b.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


def _page(browser, viewport):
    ctx = browser.new_context(viewport=viewport, locale="en-US", has_touch=viewport is PHONE)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    return page


def _guest(page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#guest-name", name)
    page.click("#guest-form button[type=submit]")


def _inbound_growing(page, seat: int) -> None:
    """Wait until the page's connection to ``seat`` has received audio bytes, then more."""
    page.evaluate("(seat) => { if (window.__inboundFirst) delete window.__inboundFirst[seat]; }", seat)
    page.wait_for_function(GROWING, arg=seat, polling=250, timeout=WAIT_SECONDS * 1000)


def _shown_connected(page, seat: int) -> None:
    """The page lists ``seat`` in voice with its connection up (on failure: the page's voice log)."""
    try:
        page.wait_for_selector(f'#voice-list [data-seat="{seat}"][data-state="connected"]')
    except PlaywrightTimeout as exc:
        raise AssertionError(f"seat {seat} not shown connected; {page.evaluate('window.chinchiVoice.log()')}") from exc


def _dropped(page, seat: int) -> None:
    page.wait_for_function("(seat) => !(seat in window.chinchiVoice.connections())", arg=seat)
    page.wait_for_selector(f'#voice-list [data-seat="{seat}"]', state="detached")


def _ban_through_the_servers_layer(settings, user) -> None:
    """Ban ``user``: its sockets on the live server close (4409) through the server's own channel layer
    (the pub/sub layer on REDIS_URL, as config.settings.base sets it), not the tests' layer."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "config.channel_layer.PubSubLayer",
                                           "CONFIG": {"hosts": [os.environ["REDIS_URL"]]}}}
    channel_layers.backends.clear()
    moderator = UserFactory(display_name="Mod", is_staff=True)
    failed = []

    def ban():  # off this thread: Playwright's event loop runs here, and the ban publishes after its commit
        try:
            sanctions.user_ban(user=user, by=moderator, reason="abuse in voice")
        except Exception as exc:  # noqa: BLE001 - reported below
            failed.append(exc)
        finally:
            connection.close()

    worker = threading.Thread(target=ban)
    worker.start()
    worker.join()
    channel_layers.backends.clear()
    assert not failed, failed


def test_three_players_talk_a_leaver_is_dropped_and_a_banned_players_peers_close(server, browser, artifacts,
                                                                                   settings):
    ana, ben, cai = _page(browser, DESKTOP), _page(browser, PHONE), _page(browser, DESKTOP)
    _guest(ana, server, "Ana")
    ana.check("#create-game-chinchirorin")
    ana.click("#create-button")
    link = ana.input_value("#invite-url")
    _guest(ben, link, "Ben")
    _guest(cai, link, "Cai")
    for page in (ana, ben, cai):
        page.wait_for_selector("#voice-join")
    assert ana.evaluate("window.chinchiVoice.state()") == "off"  # nobody's microphone before "Join voice"

    ana.click("#voice-join")
    ben.click("#voice-join")
    _inbound_growing(ana, 1)
    _inbound_growing(ben, 0)
    cai.wait_for_selector('#voice-list [data-seat="1"]')  # not in voice, Cai sees who is

    cai.click("#voice-join")  # the third connects to both
    _inbound_growing(cai, 0)
    _inbound_growing(cai, 1)
    _inbound_growing(ana, 2)
    _inbound_growing(ben, 2)
    for page, others in ((ana, (1, 2)), (ben, (0, 2)), (cai, (0, 1))):
        for seat in others:
            _shown_connected(page, seat)
    ana.wait_for_selector("#voice-list .voice-peer.speaking")  # the fake microphone's beeps
    ana.screenshot(path=artifacts / "voice-desktop.png", full_page=True)
    ben.screenshot(path=artifacts / "voice-phone.png", full_page=True)

    ben.click("#voice-leave")  # dropped by the others
    _dropped(ana, 1)
    _dropped(cai, 1)
    ben.wait_for_selector("#voice-join")
    assert ben.evaluate("Object.keys(window.chinchiVoice.connections()).length") == 0
    _inbound_growing(ana, 2)  # the others still talk

    _ban_through_the_servers_layer(settings, User.objects.get(display_name="Cai"))
    _dropped(ana, 2)
    assert ana.evaluate("Object.keys(window.chinchiVoice.connections()).length") == 0
    cai.wait_for_function("window.chinchiVoice.state() === 'off'")


# Two voice instances of voice.js in one page, seat 0 (A) and seat 1 (B), joined at once with a relay for
# the server. Seat 1's offer reaches seat 0 in the same turn as seat 0 starts setting its own offer, while
# its state still reads "stable": the crossing that left both sides answering each other, and neither
# connected. Returns each side's connection states and both logs.
CROSSING = """async (waitSeconds) => {
  const { createVoice } = await import("/static/web/voice.js");
  const Native = window.RTCPeerConnection;
  const side = {};
  const pcs = [];
  let heldForA = null, offerHeld;
  const offerForA = new Promise((resolve) => { offerHeld = resolve; });
  window.RTCPeerConnection = class extends Native {
    constructor(cfg) { super(cfg); this.owner = window.__owner; pcs.push(this); }
    setLocalDescription(d) {
      if (this.owner !== "A" || !d || d.type !== "offer" || this.held) return super.setLocalDescription(d);
      this.held = true;
      return offerForA.then(() => {
        const op = super.setLocalDescription(d);  // queued; the state still reads "stable"
        side[0].voice.onMessage(heldForA);
        return op;
      });
    }
  };
  const h = (tag, attrs, ...kids) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k.startsWith("on")) el[k] = v; else if (k === "text") el.textContent = v;
      else if (k === "class") el.className = v; else if (v !== false && v != null) el.setAttribute(k, v);
    }
    for (const kid of kids.flat()) if (kid != null) el.append(kid);
    return el;
  };
  const joined = new Set();
  const relay = (from, msg) => {
    const other = from === 0 ? 1 : 0;
    if (msg.type === "voice_join") {
      joined.add(from);
      if (joined.size === 2) {
        const peers = { type: "voice_peers", seats: [0, 1], peers: [{ seat: 0, session: 1 }, { seat: 1, session: 2 }] };
        for (const [name, seat] of [["A", 0], ["B", 1]]) { window.__owner = name; side[seat].voice.onMessage(peers); }
        window.__owner = undefined;
      }
    } else if (msg.type === "voice_signal") {
      const { type, to_seat, ...rest } = msg;
      const out = { type, from_seat: from, ...rest };
      if (other === 0 && rest.sdp && rest.sdp.type === "offer" && !heldForA) { heldForA = out; offerHeld(); }
      else setTimeout(() => side[other].voice.onMessage(out));
    }
    return true;
  };
  for (const seat of [0, 1]) {
    const ctx = { send: (msg) => relay(seat, msg), api: async () => ({ ice_servers: [] }), code: () => "VOICE1",
      mySeat: () => seat, seatName: (s) => `seat ${s}`, isHost: () => false, toast: () => {}, patchRoom: () => {},
      gettext: (t) => t, fmt: (t) => t, onChange: () => side[seat].voice.render(side[seat].box, { voice_allowed: true }, h) };
    side[seat] = { box: document.createElement("div") };
    side[seat].voice = createVoice(ctx);
    const log = window.chinchiVoice.log;
    side[seat].log = log;
    side[seat].voice.render(side[seat].box, { voice_allowed: true }, h);
  }
  for (const seat of [0, 1]) side[seat].box.querySelector("#voice-join").click();
  const states = () => ["A", "B"].map((o) => pcs.filter((pc) => pc.owner === o && pc.signalingState !== "closed")
    .map((pc) => pc.connectionState).join(",") || "none");
  const until = Date.now() + waitSeconds * 1000;
  while (states().some((s) => s !== "connected") && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return { states: states(), logA: side[0].log(), logB: side[1].log() };
}"""


def test_crossing_offers_still_connect_the_two_seats(server, browser):
    """When the two seats' offers cross (both joined at once) and the lower seat's offer is still being made
    as the higher seat's arrives, the lower seat keeps its own offer, the higher one gives way, and both
    connect: neither ends up answering the other's offer."""
    page = _page(browser, DESKTOP)
    page.goto(server)
    got = page.evaluate(CROSSING, WAIT_SECONDS)
    assert got["states"] == ["connected", "connected"], got
    assert not [line for line in got["logA"] + got["logB"] if line.startswith(("signal failed", "close"))], got
