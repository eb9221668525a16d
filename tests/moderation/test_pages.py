"""Pages a moderator reads (issue 11, item 4): the user's page, game search by player, the game's page
(players, timeline, hidden cards only after the end, standing, seed, "Verify replay"), the chat list."""

import pytest
from django.contrib.messages import get_messages

from games import services as games_services
from games.models import Game, GameAction
from games.selectors import game_view
from moderation.models import Report
from ranking.models import Friendship, Rating, RatingChange
from rooms import services as rooms
from rooms.models import ChatMessage, Room
from tests.factories import UserFactory
from tests.ranking.factories import make_game

pytestmark = pytest.mark.django_db

SUITS = {"O": "Oros", "C": "Copas", "E": "Espadas", "B": "Bastos"}


def _chinchon_game(ann, bob) -> Game:
    room = rooms.room_create(user=ann, game="chinchon", seats=2)
    rooms.room_join(code=room.code, user=bob)
    rooms.room_start(code=room.code, user=ann)
    return Game.objects.get(pk=Room.objects.get(pk=room.pk).game_id)


def test_the_user_page_links_everything(mod):
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    playing = _chinchon_game(ann, bob)
    done = make_game(users=[ann, bob], places=[1, 2])
    RatingChange.objects.create(game=done, user=ann, game_name="chinchirorin", seat=0, place=1, before=1500,
                                after=1520, change=20, k=40)
    Rating.objects.create(user=ann, game="chinchirorin", rating=1520, games=1)
    room = Room.objects.get(game_id=playing.pk)
    said = rooms.chat_post(code=room.code, user=ann, data={"text": "gg all"})
    made = Report.objects.create(reporter=ann, kind="user", user=bob, reported_user=bob, target_key=f"user:{bob.pk}",
                                 reason="spam")
    got = Report.objects.create(reporter=bob, kind="user", user=ann, reported_user=ann, target_key=f"user:{ann.pk}",
                                reason="hate")
    Friendship.objects.create(user_low=min(ann, bob, key=lambda u: u.pk), user_high=max(ann, bob, key=lambda u: u.pk),
                              source="invite")
    page = mod.get(f"/admin/accounts/user/{ann.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    for link in (f"/admin/games/game/{playing.pk}/change/", f"/admin/games/game/{done.pk}/change/",
                 f"/admin/rooms/room/{room.pk}/change/", f"/admin/rooms/chatmessage/{said.pk}/change/",
                 f"/admin/moderation/report/{made.pk}/change/", f"/admin/moderation/report/{got.pk}/change/",
                 f"/admin/accounts/user/{bob.pk}/change/"):
        assert link in html, link
    ov = page.context["ov"]
    assert [g.pk for g in ov["games_playing"]] == [playing.pk]
    assert [g.pk for g in ov["games_recent"]] == [done.pk]
    assert [(c.before, c.after) for c in ov["rating_history"]["chinchirorin"]] == [(1500, 1520)]
    assert "gg all" in html and "1500 → 1520" in html


def test_game_search_by_player_name_or_username(mod):
    ann = UserFactory(username="annie", display_name="Ann Lee")
    bob = UserFactory(username="bobby", display_name="Bob")
    g1 = make_game(users=[ann, bob], places=[1, 2])
    g2 = make_game(users=[bob, UserFactory()], places=[1, 2])

    def found(q):
        res = mod.get("/admin/games/game/", {"q": q})
        assert res.status_code == 200
        return sorted(g.pk for g in res.context["cl"].result_list)

    assert found("annie") == [g1.pk]
    assert found("Ann Lee") == [g1.pk]
    assert found("bobby") == sorted([g1.pk, g2.pk])
    assert found(str(g2.pk)) == [g2.pk]
    assert found("nobody-here") == []


def test_the_game_page_hides_cards_until_the_end_then_shows_seed_and_verifies(mod, boss):
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    game = _chinchon_game(ann, bob)
    seat = game_view(game=game, seat=0)["turn"]
    view = game_view(game=game, seat=seat)
    games_services.game_apply_action(game_id=game.pk, actor=ann if seat == 0 else bob, expected_seq=view["seq"],
                                     action={"type": "draw", "source": "stock"})
    drawn = next(ev["card"] for ev in GameAction.objects.get(game=game, seq=1).events if ev["type"] == "drawn")
    named = "joker" if drawn == "JK" else f"{drawn[:-1]} of {SUITS[drawn[-1]]}"  # the seed is random: a joker too
    words = f"draws {named} from the stock"
    page = mod.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "draws from the stock" in page and words not in page
    assert "shown once the game is over" in page and bytes(game.seed).hex() not in page
    games_services.game_abort(game_id=game.pk, reason="test")
    res = mod.get(f"/admin/games/game/{game.pk}/change/")
    page = res.content.decode()
    assert words in page and bytes(game.seed).hex() in page
    rows = res.context["timeline"]
    assert [(r["seq"], r["by"]) for r in rows] == [(0, "system"), (1, "player"), (2, "system")]
    assert rows[1]["who"] == ("Ann" if seat == 0 else "Bob") + f" ({(ann if seat == 0 else bob).username})"
    # verify replay: the real game passes, a tampered log fails
    res = mod.post(f"/admin/games/game/{game.pk}/verify/")
    assert res.status_code == 302
    assert "Replay verified: 2 actions replayed" in [str(m) for m in get_messages(res.wsgi_request)][0]
    GameAction.objects.filter(game=game, seq=1).update(events=[])
    res = mod.post(f"/admin/games/game/{game.pk}/verify/")
    assert [str(m) for m in get_messages(res.wsgi_request)][-1] == "Replay FAILED: seq 1: the events differ"
    assert mod.get(f"/admin/games/game/{game.pk}/verify/").status_code == 403  # POST only


def test_the_final_standing_is_on_the_page(mod):
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    game = make_game(users=[ann, bob], places=[2, 1], points=[700, 1300])
    res = mod.get(f"/admin/games/game/{game.pk}/change/")
    assert [(r["place"], r["seat"], r["points"]) for r in res.context["standing"]] == [(1, 1, 1300), (2, 0, 700)]


def test_the_chat_list_is_newest_first_with_the_text(mod):
    ann = UserFactory()
    room = rooms.room_create(user=ann, game="chinchirorin", seats=2)
    for text in ("one", "two", "three"):
        rooms.chat_post(code=room.code, user=ann, data={"text": text})
    rooms.chat_post(code=room.code, user=ann, data={"emoji": "🎲"})
    res = mod.get("/admin/rooms/chatmessage/")
    assert [m.text or m.emoji for m in res.context["cl"].result_list] == ["🎲", "three", "two", "one"]
    assert "three" in res.content.decode()
    assert ChatMessage.objects.count() == 4
