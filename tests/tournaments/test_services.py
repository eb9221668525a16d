"""Tournament services: creating, entering, rounds that run themselves, standings, withdrawals."""

from datetime import timedelta

import pytest
from django.utils import timezone

from config.errors import ApiError
from games import services as games_services
from games.models import Game, GameAction
from rooms.models import Room, RoomStatus
from tests.factories import GuestFactory, UserFactory
from tests.tournaments.conftest import end_game, make_tournament, play_out, round_tables, start_now
from tournaments import services
from tournaments.models import Tournament, TournamentPlayer, TournamentTable

pytestmark = pytest.mark.django_db


def later(hours=1):
    return timezone.now() + timedelta(hours=hours)


def code_of(exc_info) -> tuple[int, str, list]:
    exc = exc_info.value
    return exc.status_code, exc.error_code, sorted((exc.fields or {}).keys())


# -------------------------------------------------------------------------------------------- create
@pytest.mark.parametrize(("body", "expected"), [
    ({"format": "round_robin", "seats": 3}, (400, "invalid", ["seats"])),
    ({"format": "swiss", "rounds": None}, (400, "invalid", ["rounds"])),
    ({"format": "swiss", "rounds": 3, "preset": "standard"}, (400, "invalid", ["preset"])),
    ({"format": "swiss", "rounds": 3, "style": "nope"}, (400, "invalid", ["style"])),
    ({"format": "round_robin", "max_players": 9}, (400, "invalid", ["max_players"])),
    ({"format": "swiss", "rounds": 3, "starts_at": timezone.now() - timedelta(minutes=1)},
     (400, "invalid", ["starts_at"])),
    ({"format": "swiss", "rounds": 3, "starts_at": timezone.now() + timedelta(days=31)},
     (400, "invalid", ["starts_at"])),
])
def test_create_refuses_bad_settings_and_changes_nothing(body, expected):
    body = {"game": "chinchirorin", "starts_at": later(), **body}
    with pytest.raises(ApiError) as exc:
        services.tournament_create(user=UserFactory(), **body)
    assert code_of(exc) == expected
    assert Tournament.objects.count() == 0


def test_chinchon_seats_follow_the_game_range():
    with pytest.raises(ApiError) as exc:
        services.tournament_create(user=UserFactory(), game="chinchon", format="swiss", rounds=2, seats=5,
                                   starts_at=later())
    assert code_of(exc)[2] == ["seats"]


def test_guest_may_not_organise():
    with pytest.raises(ApiError) as exc:
        services.tournament_create(user=GuestFactory(), game="chinchirorin", format="swiss", rounds=2,
                                   starts_at=later())
    assert code_of(exc) == (403, "registration_required", [])


def test_create_makes_a_code_and_enters_the_organiser():
    org = UserFactory()
    t = services.tournament_create(user=org, game="chinchon", format="swiss", rounds=4, seats=3,
                                   preset="traditional", starts_at=later())
    assert len(t.code) == 6 and t.status == "open" and t.rules == {"preset": "traditional"}
    assert t.max_players == 64
    assert list(TournamentPlayer.objects.filter(tournament=t).values_list("user_id", "seed")) == [(org.pk, 1)]
    assert t.saved_data["invite_url"].endswith(f"/tournament/{t.code}")


# ------------------------------------------------------------------------------------------ entrants
def test_join_is_idempotent_seeds_in_join_order_and_caps():
    t, users = make_tournament(3, format="round_robin", max_players=3)
    services.tournament_join(code=t.code.lower(), user=users[1])  # again: nothing changes
    assert list(TournamentPlayer.objects.filter(tournament=t).values_list("user_id", "seed")) == [
        (users[0].pk, 1), (users[1].pk, 2), (users[2].pk, 3)]
    with pytest.raises(ApiError) as exc:
        services.tournament_join(code=t.code, user=UserFactory())
    assert code_of(exc) == (409, "tournament_full", [])


def test_rated_refuses_guests_and_sanctioned_users_are_refused():
    t, _ = make_tournament(1, rated=True)
    with pytest.raises(ApiError) as exc:
        services.tournament_join(code=t.code, user=GuestFactory())
    assert code_of(exc) == (403, "registration_required", [])
    banned = UserFactory(banned_at=timezone.now())
    with pytest.raises(ApiError) as exc:
        services.tournament_join(code=t.code, user=banned)
    assert code_of(exc)[:2] == (403, "banned")
    assert TournamentPlayer.objects.filter(tournament=t).count() == 1


def test_unknown_code_is_404():
    with pytest.raises(ApiError) as exc:
        services.tournament_join(code="ZZZZZZ", user=UserFactory())
    assert code_of(exc) == (404, "not_found", [])


def test_organiser_removes_before_the_start_only():
    t, users = make_tournament(3)
    with pytest.raises(ApiError) as exc:
        services.tournament_remove_player(code=t.code, user=users[1], player_id=users[2].pk)
    assert code_of(exc) == (403, "not_organiser", [])
    with pytest.raises(ApiError) as exc:
        services.tournament_remove_player(code=t.code, user=users[0], player_id=users[0].pk)
    assert code_of(exc) == (400, "invalid", ["player"])
    services.tournament_remove_player(code=t.code, user=users[0], player_id=users[2].pk)
    assert sorted(TournamentPlayer.objects.filter(tournament=t).values_list("user_id", flat=True)) == [
        users[0].pk, users[1].pk]
    start_now(t)
    with pytest.raises(ApiError) as exc:
        services.tournament_remove_player(code=t.code, user=users[0], player_id=users[1].pk)
    assert code_of(exc) == (409, "already_started", [])
    with pytest.raises(ApiError) as exc:
        services.tournament_join(code=t.code, user=UserFactory())
    assert code_of(exc) == (409, "already_started", [])


def test_organiser_cancels_before_the_start():
    t, users = make_tournament(2)
    with pytest.raises(ApiError) as exc:
        services.tournament_cancel(code=t.code, user=users[1])
    assert code_of(exc) == (403, "not_organiser", [])
    services.tournament_cancel(code=t.code, user=users[0])
    t.refresh_from_db()
    assert (t.status, t.ended_reason) == ("cancelled", "organiser")
    assert not services.tournament_start(tournament_id=t.pk, now=later(2))
    with pytest.raises(ApiError) as exc:
        services.tournament_join(code=t.code, user=UserFactory())
    assert code_of(exc) == (409, "tournament_over", [])


# -------------------------------------------------------------------------------------------- rounds
def test_start_waits_for_its_time_and_cancels_a_lone_entrant():
    t, _ = make_tournament(1)
    assert not services.tournament_start(tournament_id=t.pk)  # not yet
    assert services.tournament_start(tournament_id=t.pk, now=later(2))
    t.refresh_from_db()
    assert (t.status, t.ended_reason) == ("cancelled", "not_enough_players")


def test_round_one_seats_everyone_in_started_rooms_and_a_bye():
    t, users = make_tournament(5, rated=True, turn_seconds=30)
    start_now(t)
    assert (t.status, t.round) == ("running", 1)
    tables = round_tables(t, 1)
    ids = [u.pk for u in users]
    # seeds 1..5: 1-2, 3-4, bye to 5
    assert [(tb.players, tb.status) for tb in tables] == [
        ([ids[0], ids[1]], "playing"), ([ids[2], ids[3]], "playing"), ([ids[4]], "bye")]
    for tb in tables[:2]:
        room = Room.objects.get(pk=tb.room_id)
        assert room.status == RoomStatus.PLAYING and room.ranked and room.turn_seconds == 30
        assert list(room.seats.order_by("index").values_list("user_id", flat=True)) == tb.players
        game = Game.objects.get(pk=tb.game_id)
        assert game.status == "playing" and game.ranked
        assert list(game.players.order_by("seat").values_list("user_id", flat=True)) == tb.players


def test_next_round_starts_when_the_last_table_ends_and_the_tournament_finishes():
    t, users = make_tournament(4, rounds=2)
    ids = [u.pk for u in users]
    start_now(t)
    r1 = round_tables(t, 1)
    end_game(r1[0].game_id, [1, 2])  # 1 beats 2
    t.refresh_from_db()
    assert t.round == 1 and round_tables(t, 2) == []
    end_game(r1[1].game_id, [2, 1])  # 4 beats 3
    t.refresh_from_db()
    assert t.round == 2
    # standings: 1, 4 on 1 (seed order); 2, 3 on 0 (Buchholz 1 each, seed order) -> 1-4, 2-3
    assert [tb.players for tb in round_tables(t, 2)] == [[ids[0], ids[3]], [ids[1], ids[2]]]
    r2 = round_tables(t, 2)
    end_game(r2[0].game_id, [1, 1])  # 1 and 4 draw
    end_game(r2[1].game_id, [1, 2])  # 2 beats 3
    t.refresh_from_db()
    assert (t.status, t.ended_reason) == ("finished", "completed")
    data = services.tournament_view(t)
    rows = [(s["player"]["id"], s["score"], s["tiebreak"]) for s in data["standings"]]
    # 1: 1.5 (Buchholz 2's 1 + 4's 1.5 = 2.5); 4: 1.5 (3's 0 + 1's 1.5 = 1.5); 2: 1 (1's 1.5 + 3's 0); 3: 0
    assert rows == [(ids[0], 1.5, 2.5), (ids[3], 1.5, 1.5), (ids[1], 1.0, 1.5), (ids[2], 0.0, 2.5)]
    first = data["tables"][0]
    assert (first["round"], first["status"], first["room"]) == (1, "ended", r1[0].room.code)
    assert [(s["player"]["id"], s["place"], s["points"]) for s in first["seats"]] == [(ids[0], 1, 1.0),
                                                                                       (ids[1], 2, 0.0)]


def test_a_table_end_is_recorded_once():
    t, _ = make_tournament(2, rounds=2)
    start_now(t)
    gid = round_tables(t, 1)[0].game_id
    end_game(gid, [2, 1])
    assert not services.tournament_table_ended(game_id=gid)
    t.refresh_from_db()
    assert t.round == 2 and TournamentTable.objects.filter(tournament=t).count() == 2


def test_withdrawn_player_is_not_paired_again_and_keeps_its_results():
    t, users = make_tournament(4, rounds=2)
    ids = [u.pk for u in users]
    start_now(t)
    services.tournament_leave(code=t.code, user=users[3])
    r1 = round_tables(t, 1)
    end_game(r1[0].game_id, [1, 2])
    end_game(r1[1].game_id, [2, 1])  # 4 (withdrawn) beat 3
    t.refresh_from_db()
    # active by standing: 1 (1), 2 (0, Buchholz 1), 3 (0, Buchholz 1, seed after 2): 3 has the bye (the
    # lowest-placed without one); 1 and 2 have met, but they are the only two left: paired again
    tables = round_tables(t, 2)
    assert [(tb.players, tb.status) for tb in tables] == [([ids[0], ids[1]], "playing"), ([ids[2]], "bye")]
    data = services.tournament_view(t)
    four = next(s for s in data["standings"] if s["player"]["id"] == ids[3])
    assert four["score"] == 1.0 and four["withdrawn"] is True


def test_round_robin_runs_every_pairing_then_finishes():
    t, users = make_tournament(3, format="round_robin", rounds=None)
    ids = [u.pk for u in users]
    start_now(t)
    assert t.rounds == 3
    seen = []
    for r in range(1, 4):
        tables = round_tables(t, r)
        seen.append([(tb.players, tb.status) for tb in tables])
        for tb in tables:
            if tb.status == "playing":
                end_game(tb.game_id, [1, 2])
        t.refresh_from_db()
    # circle over [1, 2, 3, phantom]: r1 1-bye, 2-3; r2 1-3, 2-bye... (hand-computed)
    assert seen == [[([ids[1], ids[2]], "playing"), ([ids[0]], "bye")],
                    [([ids[0], ids[2]], "playing"), ([ids[1]], "bye")],
                    [([ids[0], ids[1]], "playing"), ([ids[2]], "bye")]]
    assert t.status == "finished"
    data = services.tournament_view(t)
    # 1: bye + beat 3 + beat 2 = 3; 2: beat 3 + bye = 2; 3: bye = 1
    assert [(s["player"]["id"], s["score"]) for s in data["standings"]] == [(ids[0], 3.0), (ids[1], 2.0),
                                                                           (ids[2], 1.0)]


def test_a_sanctioned_entrant_is_withdrawn_at_the_next_round():
    t, users = make_tournament(4, rounds=2)
    start_now(t)
    type(users[1]).objects.filter(pk=users[1].pk).update(banned_at=timezone.now())
    for tb in round_tables(t, 1):
        end_game(tb.game_id, [1, 2])
    assert TournamentPlayer.objects.get(tournament=t, user=users[1]).withdrawn
    assert all(users[1].pk not in tb.players for tb in round_tables(t, 2))


def test_games_played_for_real_end_the_round_through_the_signal():
    """The games end for real (seats handed to the CPU, its moves run by the sweep): ``game_finished``
    reaches the tournament, which records the engine's places and starts round 2."""
    t, _ = make_tournament(2, rounds=2)
    start_now(t)
    table = round_tables(t, 1)[0]
    play_out([table.game_id])
    table.refresh_from_db()
    game = Game.objects.get(pk=table.game_id)
    expected = {row["seat"]: row["place"] for row in game.result["standing"]}
    assert table.status == "ended" and table.places == [expected[0], expected[1]]
    t.refresh_from_db()
    assert t.round == 2 and round_tables(t, 2)[0].status == "playing"


def test_an_aborted_table_scores_half_each():
    t, users = make_tournament(2, rounds=1)
    start_now(t)
    gid = round_tables(t, 1)[0].game_id
    games_services.game_abort(game_id=gid, reason="test")
    t.refresh_from_db()
    assert t.status == "finished"
    assert [s["score"] for s in services.tournament_view(t)["standings"]] == [0.5, 0.5]


def test_moderator_cancel_closes_tables_and_remove_withdraws():
    mod = UserFactory()
    t, users = make_tournament(4, rounds=2)
    start_now(t)
    services.tournament_moderate_remove(tournament_id=t.pk, user_id=users[2].pk, by=mod, reason="cheating")
    assert TournamentPlayer.objects.get(tournament=t, user=users[2]).withdrawn
    services.tournament_moderate_cancel(tournament_id=t.pk, by=mod, reason="abuse")
    t.refresh_from_db()
    assert (t.status, t.ended_reason) == ("cancelled", "moderator")
    for tb in round_tables(t, 1):
        assert Room.objects.get(pk=tb.room_id).status == RoomStatus.CLOSED
        assert Game.objects.get(pk=tb.game_id).status == "aborted"
    assert TournamentTable.objects.filter(tournament=t, round=2).count() == 0


def test_sweep_starts_due_tournaments_and_settles_lost_ends():
    t, _ = make_tournament(2, rounds=2)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    assert services.tournaments_sweep() == {"started": 1, "settled": 0}
    gid = round_tables(t, 1)[0].game_id
    Game.objects.filter(pk=gid).update(status=Game.FINISHED, result={"standing": [{"seat": 0, "place": 2},
                                                                                {"seat": 1, "place": 1}]})
    assert services.tournaments_sweep() == {"started": 0, "settled": 1}
    assert round_tables(t, 1)[0].places == [2, 1]


def test_a_no_show_is_played_for_when_the_first_turn_window_runs_out():
    """Nobody opened the table: when the first window's deadline passes, the awaited seat acts by
    timeout (the games' timers), and the game goes on without the player."""
    t, _ = make_tournament(2, rounds=1, turn_seconds=30)
    start_now(t)
    game = Game.objects.get(pk=round_tables(t, 1)[0].game_id)
    assert game.turn_seconds == 30 and game.deadline is not None
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    games_services.game_sweep()
    assert GameAction.objects.filter(game=game, by="timeout").exists()
    game.refresh_from_db()
    assert game.seq > 0
