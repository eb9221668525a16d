"""factory_boy factories of rooms, seats and chat messages."""

import factory

from rooms.models import ChatMessage, Room, Seat
from tests.factories import UserFactory


class RoomFactory(factory.django.DjangoModelFactory):
    """An open unranked Chinchirorin room of 4 seats whose host sits in seat 0 (seats made after)."""

    class Meta:
        model = Room
        skip_postgeneration_save = True

    code = factory.Sequence(lambda n: "".join("ABCDEFGHJKMNPQRSTUVWXYZ23456789"[(n // 31**i) % 31]
                                              for i in range(6)))
    host = factory.SubFactory(UserFactory)
    game_name = "chinchirorin"
    seat_count = 4
    rules = factory.LazyFunction(dict)

    @factory.post_generation
    def with_seats(obj, create, extracted, **kwargs):
        """Make the ``seat_count`` seats, the host in seat 0."""
        if create:
            Seat.objects.bulk_create([Seat(room=obj, index=i, user=obj.host if i == 0 else None)
                                      for i in range(obj.seat_count)])


class ChatMessageFactory(factory.django.DjangoModelFactory):
    """A text message by the room's host from seat 0."""

    class Meta:
        model = ChatMessage

    room = factory.SubFactory(RoomFactory)
    user = factory.LazyAttribute(lambda o: o.room.host)
    seat = 0
    text = factory.Sequence(lambda n: f"message {n}")
