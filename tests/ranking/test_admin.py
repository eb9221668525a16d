"""The ranking admin pages answer, with their filters and search."""

import pytest

from ranking import services
from tests.ranking.factories import (
    FriendRequestFactory,
    FriendshipFactory,
    QueueEntryFactory,
    UserFactory,
    make_game,
)

pytestmark = pytest.mark.django_db


def test_admin_pages(client, django_user_model):
    admin = django_user_model.objects.create_superuser("boss", "b@example.com", "pw-12345-long", display_name="Boss")
    client.force_login(admin)
    a, b = UserFactory(), UserFactory()
    FriendshipFactory(a=a, b=b)
    FriendRequestFactory(from_user=a, to_user=UserFactory())
    QueueEntryFactory(user=a)
    g = make_game(users=[a, b], places=[1, 2], events=[{"type": "hand", "seat": 0, "hand": "pinzoro"}])
    services.game_process_finished(game_id=g.id)
    for path in (
        "/admin/ranking/rating/?game__exact=chinchirorin&q=player",
        "/admin/ranking/ratingchange/?game_name__exact=chinchirorin",
        "/admin/ranking/friendship/?source__exact=request&q=player",
        "/admin/ranking/friendrequest/",
        "/admin/ranking/queueentry/?status__exact=waiting",
        "/admin/ranking/gamerecord/?outcome__exact=win",
        "/admin/ranking/achievementaward/?achievement=pinzoro&q=player",
    ):
        assert client.get(path).status_code == 200, path
    # rating changes are read-only
    assert client.get("/admin/ranking/ratingchange/add/").status_code == 403
