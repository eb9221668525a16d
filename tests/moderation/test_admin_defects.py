"""Issue 37 item 7: the admin's defects — the wallet's ledger link, look-alike user search, a playing game's
hidden action — each checked through the admin's own pages (the verify-replay button: tests/web)."""

import pytest

from coins.services import wallet_adjust
from games import services as games_services
from games.models import Game, GameAction, GamePlayer
from games.selectors import game_view
from rooms import services as rooms
from rooms.models import Room
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_wallet_page_links_to_its_entries(boss):
    ann, bob = UserFactory(), UserFactory()
    wallet_adjust(user_id=ann.pk, amount=40, note="prize", by=None)
    wallet_adjust(user_id=bob.pk, amount=7, note="other prize", by=None)
    page = boss.get(f"/admin/coins/wallet/{ann.pk}/change/").content.decode()
    link = f"/admin/coins/ledgerentry/?wallet={ann.pk}"
    assert f'href="{link}">2 entries<' in page  # the start grant and the prize
    res = boss.get(link)
    assert res.status_code == 200
    assert sorted(e.amount for e in res.context["cl"].result_list) == [40, 500]


def test_user_search_finds_look_alike_names(mod):
    latin = UserFactory(username="hana", display_name="Hana")
    cyrillic = UserFactory(username="hana2", display_name="Han\u0430")  # a Cyrillic a at the end
    leet = UserFactory(username="h4na_x", display_name="H4na")
    UserFactory(username="hannah", display_name="Hannah")

    def found(q):
        res = mod.get("/admin/accounts/user/", {"q": q})
        assert res.status_code == 200
        return sorted(u.pk for u in res.context["cl"].result_list)

    every = sorted([latin.pk, cyrillic.pk, leet.pk])
    assert found("Hana") == every
    assert found("Han\u0430") == every
    assert found("H4NA") == every
    cyrillic.display_name = "Olga"
    cyrillic.save(update_fields=["display_name"])
    assert found("Hana") == sorted([latin.pk, cyrillic.pk, leet.pk])  # "hana2" still looks like "hana"...
    assert found("0lga") == [cyrillic.pk]  # ...and the new name is searched too


def test_a_playing_games_actions_are_not_shown_until_it_is_over(mod):
    ann, bob = UserFactory(display_name="Ann"), UserFactory(display_name="Bob")
    room = rooms.room_create(user=ann, game="chinchon", seats=2)
    rooms.room_join(code=room.code, user=bob)
    rooms.room_start(code=room.code, user=ann)
    game = Game.objects.get(pk=Room.objects.get(pk=room.pk).game_id)
    seat = game_view(game=game, seat=0)["turn"]
    actor = GamePlayer.objects.get(game=game, seat=seat).user
    games_services.game_apply_action(game_id=game.pk, actor=actor, expected_seq=game_view(game=game, seat=seat)["seq"],
                                     action={"type": "draw", "source": "stock"})
    row = GameAction.objects.get(game=game, seq=1)
    page = mod.get(f"/admin/games/gameaction/{row.pk}/change/").content.decode()
    assert "stock" not in page and "Action:" not in page
    games_services.game_abort(game_id=game.pk, reason="test")
    page = mod.get(f"/admin/games/gameaction/{row.pk}/change/").content.decode()
    assert "stock" in page and "Action:" in page
