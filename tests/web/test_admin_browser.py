"""The moderators' admin in a real browser (issue 37 item 7): "Verify replay" on a game's page, inside
the change form, runs the replay check (it used to post the change form itself: 403)."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from games import services as games_services
from games.models import Game, GamePlayer
from games.selectors import game_view
from rooms import services as rooms
from rooms.models import Room
from tests.factories import UserFactory
from tests.live import live_stack

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.browser,
              pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    """The service as in tests/web/conftest.py, with this process's SECRET_KEY so that a session made
    here (``Client.force_login``) is the server's too."""
    with django_db_blocker.unblock(), live_stack(tmp_path_factory.mktemp("admin-server"),
                                                 SECRET_KEY=settings.SECRET_KEY) as url:
        yield url


def _finished_game() -> Game:
    """A real Chinchón game: dealt, one draw, aborted (3 log rows to replay)."""
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = rooms.room_create(user=ann, game="chinchon", seats=2)
    rooms.room_join(code=room.code, user=bob)
    rooms.room_start(code=room.code, user=ann)
    game = Game.objects.get(pk=Room.objects.get(pk=room.pk).game_id)
    seat = game_view(game=game, seat=0)["turn"]
    actor = GamePlayer.objects.get(game=game, seat=seat).user
    games_services.game_apply_action(game_id=game.pk, actor=actor, expected_seq=game_view(game=game, seat=seat)["seq"],
                                     action={"type": "draw", "source": "stock"})
    games_services.game_abort(game_id=game.pk, reason="test")
    return game


def test_verify_replay_from_the_game_page(server, browser):
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    with ThreadPoolExecutor(1) as pool:  # away from Playwright's event loop: the game's broadcasts run there
        game = pool.submit(_finished_game).result()
    admin = Client()
    admin.force_login(boss)  # a session in the database (the server hashes passwords otherwise)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_cookies([{"name": "sessionid", "value": admin.cookies["sessionid"].value, "url": server}])
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{server}/admin/games/game/{game.pk}/change/")
    page.click("#verify-replay")
    expect(page.locator(".messagelist")).to_contain_text("Replay verified: 2 actions replayed")
    assert page.url.endswith(f"/admin/games/game/{game.pk}/change/")
