"""config.compiled: a queryset compiled once and run again answers what the ORM answers, relations and
annotations included, and refuses a query whose parameters are not its placeholders."""

import hashlib

import pytest
from django.db.models import OuterRef, Subquery

from config.compiled import CompiledQuery, Param
from games import locking
from games.models import GameAction, GamePlayer
from rooms import services as room_services
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _game(seats: int):
    users = [UserFactory() for _ in range(seats)]
    room = room_services.room_create(user=users[0], game="chinchirorin", seats=seats, rules={})
    for u in users[1:]:
        room_services.room_join(code=room.code, user=u)
    room_services.room_start(code=room.code, user=users[0])
    room.refresh_from_db()
    return room.game_id, users


def _fields(gp: GamePlayer) -> tuple:
    return (gp.pk, gp.seat, gp.user_id, gp.user and gp.user.username, gp.game.pk, gp.game.seq, gp.game.state,
            bytes(gp.game.seed), gp.game.created_at, getattr(gp, "prior_seq", "none"), gp.watched)


def test_the_lock_read_equals_the_orm_for_each_game_and_each_prior_key():
    from rooms.models import Room, Spectator

    (g1, users1), (g2, _users2) = _game(3), _game(2)
    users1[0].refresh_from_db()
    Spectator.objects.create(room=Room.objects.get(game_id=g1), user=UserFactory(), connections=1)
    Spectator.objects.create(room=Room.objects.get(game_id=g2), user=UserFactory(), connections=0)
    row = GameAction.objects.filter(game_id=g1).order_by("seq").first()
    GameAction.objects.filter(pk=row.pk).update(user=users1[0], action_id="k-1")
    for game_id in (g1, g2, 10**9):
        compiled = locking._LOCK_READ.run(game_id=game_id)
        orm = list(locking._lock_queryset(game_id))
        assert [_fields(p) for p in compiled] == [_fields(p) for p in orm]
        assert all(p.user is None or p.user.pk == p.user_id for p in compiled)
        for key in ("k-1", "k-2"):
            compiled = locking._LOCK_READ_PRIOR.run(game_id=game_id, user_id=users1[0].pk, action_id=key)
            orm = list(locking._lock_queryset(game_id, (users1[0].pk, key)))
            assert [_fields(p) for p in compiled] == [_fields(p) for p in orm]
    hit = locking._LOCK_READ_PRIOR.run(game_id=g1, user_id=users1[0].pk, action_id="k-1")
    assert {p.prior_seq for p in hit} == {row.seq}
    # a spectator socket open on g1's room, none on g2's (its spectator row has no socket left)
    assert {p.watched for p in locking._LOCK_READ.run(game_id=g1)} == {True}
    assert {p.watched for p in locking._LOCK_READ.run(game_id=g2)} == {False}


def test_parameters_that_are_not_placeholders_are_refused():
    a, b = Param("a", 11), Param("b", 12)
    fixed = CompiledQuery(lambda: GamePlayer.objects.filter(game_id=a, seat=0), [a])
    with pytest.raises(ValueError, match="not a placeholder"):
        fixed.run(a=1)
    missing = CompiledQuery(lambda: GamePlayer.objects.filter(game_id=a), [a, b])
    with pytest.raises(ValueError, match="placeholders"):
        missing.run(a=1, b=2)
    ok = CompiledQuery(lambda: GamePlayer.objects.filter(game_id=a).annotate(
        n=Subquery(GameAction.objects.filter(game_id=OuterRef("game_id")).values("seq")[:1])), [a])
    with pytest.raises(ValueError, match="expected"):
        ok.run(b=1)
    assert ok.run(a=10**9) == []


def test_declared_constants_are_kept_in_every_run():
    a = Param("a", 13)
    game_id, _users = _game(3)
    seat0 = CompiledQuery(lambda: GamePlayer.objects.filter(game_id=a, seat=0), [a], constants=(0,))
    assert [(p.game_id, p.seat) for p in seat0.run(a=game_id)] == [(game_id, 0)]
    other = CompiledQuery(lambda: GamePlayer.objects.filter(game_id=a, seat=2), [a], constants=(0,))
    with pytest.raises(ValueError, match="not a placeholder"):
        other.run(a=game_id)


def test_the_token_read_finds_the_token_with_its_user_and_nothing_else():
    from accounts.selectors import token_get
    from tests.factories import token_for

    user = UserFactory()
    key = token_for(user)
    got = token_get(key)
    assert (got.digest, got.user_id, got.user.username, got.user.display_name) == (
        hashlib.sha256(key.encode()).hexdigest(), user.pk, user.username, user.display_name)
    assert [token_get(k) for k in ("x" * 40, key.upper(), "a\x00b", "k" * 65, "")] == [None] * 5
