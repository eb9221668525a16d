"""The party on the page (issue #39 items 4-6) in a real browser against the real service: a friend's
online status, "invite a friend" from the lobby reaching the friend's page on their user socket, the pot
and level badges on the table, "your turn" while the player looks at another screen, the wallet screen
(balance, daily coins, ledger, challenges), the XP leaderboard beside the rating one, and "your games"
with its download. Screenshots at phone (390x844) and desktop size go to var/artifacts/."""

import json

import httpx
import pytest
from playwright.sync_api import expect

from accounts.models import User
from games.models import Game
from ranking.models import XpGrant
from ranking.services import friendship_make
from tests.factories import token_for

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser,
              pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _page(browser, viewport):
    ctx = browser.new_context(viewport=viewport, locale="en-US", accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


def _guest(page, url: str, name: str) -> User:
    page.goto(url)
    page.fill("#guest-name", name)
    page.click("#guest-form button[type=submit]")
    expect(page.locator("#menu")).to_be_visible()
    return User.objects.get(display_name=name)


def test_the_party_on_the_page(server, browser, artifacts):
    ann_page, bob_page = _page(browser, DESKTOP), _page(browser, PHONE)
    ann, bob = _guest(ann_page, server, "Ann"), _guest(bob_page, server, "Bob")
    friendship_make(user_a_id=ann.pk, user_b_id=bob.pk, source="request")

    # friends: Bob's page holds a user socket open, so Ann sees him online
    ann_page.click("#menu button[data-screen=friends]")
    expect(ann_page.locator("#friends-body li:has-text('Bob') [data-testid=online]")).to_have_text("online")

    # a Chinchón room for two with a stake; Ann invites Bob from the lobby
    ann_page.click("#menu button[data-screen=home]")
    ann_page.check("#create-game-chinchon")
    ann_page.click("details.settings > summary")
    ann_page.select_option("#rule-stake", "10")
    ann_page.click("#create-button")
    code = ann_page.locator("#room-code").inner_text()
    ann_page.select_option("#invite-friend", str(bob.pk))
    ann_page.click("#invite-send")
    expect(ann_page.locator("#toast")).to_have_text("Invitation sent to Bob.")
    expect(bob_page.locator("[data-testid=notice]")).to_contain_text(f"Ann invites you to Chinchón (room {code})")
    bob_page.click("#toast button")
    expect(ann_page.locator(".seat-who:has-text('Bob')")).to_be_visible()
    ann_page.screenshot(path=artifacts / "party-lobby-desktop.png", full_page=True)

    # Bob looks at his coins while Ann starts: the pot is on the table; whoever is awaited hears of it
    bob_page.click("#menu button[data-screen=wallet]")
    expect(bob_page.locator("[data-testid=balance]")).to_have_text("Balance: 500 coins")
    ann_page.click("#start-game")
    expect(ann_page.locator("[data-testid=pot]")).to_have_text("Pot: 20 coins · 10 coins each from Ann, Bob · re-entry 10 coins")
    expect(ann_page.locator(".player[data-seat='0'] [data-testid=level]")).to_have_text("Lv 1")
    game = Game.objects.get(pk=Game.objects.filter(players__user=ann).values("pk")[:1])
    if game.state["awaiting"] == [1]:  # Bob is not in front of the table: the notice tells him
        expect(bob_page.locator("[data-testid=notice]")).to_contain_text(f"Your turn in Chinchón (room {code})")
    ann_page.screenshot(path=artifacts / "party-table-desktop.png", full_page=True)
    bob_page.click("#menu button[data-screen=wallet]")  # read again: the stake is paid
    expect(bob_page.locator("[data-testid=balance]")).to_have_text("Balance: 490 coins")
    expect(bob_page.locator("#ledger tbody tr").first).to_contain_text("Stake")
    expect(bob_page.locator("[data-testid=challenge]").first).to_be_visible()
    bob_page.screenshot(path=artifacts / "party-wallet-phone.png", full_page=True)

    # Bob resigns (through the API, as any client may): Ann wins the pot; her games list it
    token = token_for(bob)
    seq = httpx.get(f"{server}/api/games/{game.pk}", headers={"Authorization": f"Token {token}"}).json()["seq"]
    res = httpx.post(f"{server}/api/games/{game.pk}/actions", json={"type": "resign", "seq": seq},
                     headers={"Authorization": f"Token {token}"})
    assert res.status_code == 200, res.text
    ann_page.click("#menu button[data-screen=games]")
    row = ann_page.locator(f"#my-games tr[data-game='{game.pk}']")
    expect(row).to_contain_text("Won (place 1)")
    expect(row).to_contain_text("Ann, Bob")
    with ann_page.expect_download() as info:
        row.locator("button").click()
    record = json.loads(open(info.value.path()).read())
    assert (record["format"], record["game"]["id"], record["result"]["pot"]) == (
        "chinchi-game-record/1", game.pk, {"total": 20, "payouts": [{"seat": 0, "coins": 20}]})
    ann_page.screenshot(path=artifacts / "party-games-desktop.png", full_page=True)

    # the XP leaderboard beside the rating one: a win over a seat that quit before playing earns no XP
    # (docs/economy.md); XP a claimed challenge grants puts Ann on the board
    ann_page.click("#menu button[data-screen=leaderboard]")
    expect(ann_page.locator("#lb-xp-body")).to_contain_text("Nobody has experience yet.")
    XpGrant.objects.create(user=ann, amount=40, reason="challenge", ref="party-page-test")
    ann_page.click("#menu button[data-screen=home]")
    ann_page.click("#menu button[data-screen=leaderboard]")
    expect(ann_page.locator("#lb-xp tbody tr.me")).to_contain_text("Ann")
    expect(ann_page.locator("#lb-xp tbody tr.me td").nth(2)).to_have_text("40")
    bob_page.click("#menu button[data-screen=games]")
    expect(bob_page.locator(f"#my-games tr[data-game='{game.pk}']")).to_contain_text("Lost (place 2)")
    bob_page.screenshot(path=artifacts / "party-games-phone.png", full_page=True)
