"""factory_boy factories of the ranking models."""

import factory
from django.utils import timezone

from ranking.models import FriendRequest, Friendship, QueueEntry, Rating
from ranking.services import QUEUE_TTL
from tests.factories import GuestFactory, UserFactory  # noqa: F401  (re-exported for the ranking tests)


class RatingFactory(factory.django.DjangoModelFactory):
    """A rating row: 1500 after one rated game unless told."""

    class Meta:
        model = Rating

    user = factory.SubFactory(UserFactory)
    game = "chinchirorin"
    rating = 1500
    games = 1


class FriendshipFactory(factory.django.DjangoModelFactory):
    """A friendship; pass ``a`` and ``b`` (any order)."""

    class Meta:
        model = Friendship
        exclude = ["a", "b"]

    a = factory.SubFactory(UserFactory)
    b = factory.SubFactory(UserFactory)
    user_low = factory.LazyAttribute(lambda o: o.a if o.a.id < o.b.id else o.b)
    user_high = factory.LazyAttribute(lambda o: o.b if o.a.id < o.b.id else o.a)
    source = Friendship.Source.REQUEST


class FriendRequestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FriendRequest

    from_user = factory.SubFactory(UserFactory)
    to_user = factory.SubFactory(UserFactory)


class QueueEntryFactory(factory.django.DjangoModelFactory):
    """A waiting entry queued now."""

    class Meta:
        model = QueueEntry

    user = factory.SubFactory(UserFactory)
    game = "chinchirorin"
    seats = 2
    created_at = factory.LazyFunction(timezone.now)
    expires_at = factory.LazyAttribute(lambda o: o.created_at + QUEUE_TTL)


# ------------------------------------------------------------------------------ games rows built directly
def make_game(*, users, places, game="chinchirorin", ranked=True, status="finished", human_acted=True,
              reason="rounds_complete", events=None, cpus=(), group="room-TEST01", rules=None, played_for=(),
              points=None):
    """A finished game built from rows (no engine run): ``users[i]`` in seat i (None for a CPU seat listed
    in ``cpus``), ``places[i]`` its final place. ``events``: the log's events (one GameAction row at seq 1,
    by player unless ``human_acted`` is False). ``points``: the standing's points/score per seat."""
    import os

    from games.models import Game, GameAction, GamePlayer

    key = "points" if game == "chinchirorin" else "score"
    standing = sorted(
        ({"seat": i, "place": p, key: (points[i] if points else 1000)} for i, p in enumerate(places)),
        key=lambda r: (r["place"], r["seat"]),
    )
    result = {"standing": standing, "reason": reason}
    if status == "aborted":
        result = {"standing": [], "reason": "aborted"}
    g = Game.objects.create(game=game, rules=rules or {}, state={}, seq=1, status=status, seed=os.urandom(32),
                            ranked=ranked, group=group, result=result, human_acted=human_acted,
                            finished_at=timezone.now())
    for i, u in enumerate(users):
        GamePlayer.objects.create(game=g, seat=i, user=u, cpu=i in cpus, cpu_level="normal" if i in cpus else None,
                                  away=i in played_for)
    GameAction.objects.create(game=g, seq=0, seat=None, by="system", action={}, events=[])
    GameAction.objects.create(game=g, seq=1, seat=0, by="player" if human_acted else "timeout",
                              user=users[0] if human_acted else None, action={"type": "roll"}, events=events or [])
    return g
