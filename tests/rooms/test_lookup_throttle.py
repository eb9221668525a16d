"""Issue 12 probe 4: room codes cannot be tried at speed. Join attempts and room look-ups are throttled
per user and per address (429 ``throttled`` with ``Retry-After``); the other room endpoints count their
misses (403/404) in the same budget, while players using their own room are never slowed down; an unknown
code and a room the caller may not join answer in the same shape."""

import pytest
from rest_framework.settings import api_settings

from rooms import services
from tests.factories import GuestFactory, UserFactory

pytestmark = pytest.mark.django_db

UNKNOWN = ["ABCDEF", "BCDEFG", "CDEFGH", "DEFGHJ", "EFGHJK", "FGHJKM", "GHJKMN", "HJKMNP"]


@pytest.fixture
def low_rates(settings):
    """Room look-ups: 3 a minute per user, 5 per address (the other rates as configured)."""
    rates = dict(api_settings.DEFAULT_THROTTLE_RATES, room_lookup="3/min", room_lookup_address="5/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


def test_the_probe_random_join_attempts_meet_429_at_the_documented_rate(make_client):
    """400 join attempts of one guest at full speed: with the default 30/min the 31st is refused."""
    client = make_client(GuestFactory())
    answers = [client.post(f"/api/rooms/{UNKNOWN[i % len(UNKNOWN)]}/join").status_code for i in range(31)]
    assert answers == [404] * 30 + [429]
    res = client.get(f"/api/rooms/{UNKNOWN[0]}")
    assert res.status_code == 429 and res.json()["code"] == "throttled"
    assert 1 <= int(res["Retry-After"]) <= 60


def test_per_user_and_per_address(make_client, low_rates):
    one = make_client(UserFactory())
    for code in UNKNOWN[:3]:
        assert one.get(f"/api/rooms/{code}").status_code == 404
    assert one.post(f"/api/rooms/{UNKNOWN[3]}/join").status_code == 429
    # the address counted all four (DRF asks every throttle); another user there gets the fifth, then the
    # address is spent for everyone there
    two, three = make_client(UserFactory()), make_client(UserFactory())
    assert [two.get(f"/api/rooms/{c}").status_code for c in UNKNOWN[:2]] == [404, 429]
    assert three.get(f"/api/rooms/{UNKNOWN[0]}").status_code == 429
    # another address is not affected
    assert three.get(f"/api/rooms/{UNKNOWN[0]}", REMOTE_ADDR="198.51.100.7").status_code == 404


def test_misses_of_other_room_endpoints_count_but_a_players_own_room_use_does_not(make_client, low_rates):
    host = make_client(UserFactory())
    room = services.room_create(user=host.user, game="chinchon", seats=2)
    for _ in range(6):  # the member's own requests: answered, never counted
        assert host.get(f"/api/rooms/{room.code}/messages").status_code == 200
        assert host.post(f"/api/rooms/{room.code}/messages", {"phrase": "gg"}, format="json").status_code in (201, 429)
    prober = make_client(UserFactory())
    answers = [prober.post(f"/api/rooms/{c}/leave").status_code for c in UNKNOWN[:3]]
    answers.append(prober.post(f"/api/rooms/{room.code}/leave").status_code)  # 403 not_a_player: a miss too
    assert answers == [404, 404, 404, 429]
    assert prober.get(f"/api/rooms/{room.code}/messages").status_code == 429


def test_an_unknown_code_and_a_room_you_may_not_join_answer_in_the_same_shape(make_client):
    host, other, late = (make_client(UserFactory()) for _ in range(3))
    guest = make_client(GuestFactory())
    full = services.room_create(user=host.user, game="chinchon", seats=2)
    services.room_join(code=full.code, user=other.user)
    ranked = services.room_create(user=host.user, game="chinchon", seats=2, ranked=True)
    answers = [late.post(f"/api/rooms/{UNKNOWN[0]}/join"), late.post(f"/api/rooms/{full.code}/join"),
               guest.post(f"/api/rooms/{ranked.code}/join")]
    assert [(a.status_code, a.json()["code"]) for a in answers] == [
        (404, "not_found"), (409, "room_full"), (403, "registration_required")]
    assert {tuple(sorted(a.json())) for a in answers} == {("code", "detail")}  # nothing about the room
