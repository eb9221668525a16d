"""The text policy (issue 12 item 3, probe 3): each rule by hand-picked code points, with the rule named
in the error; grapheme counting; and the REST/socket fields that use it (display names, chat). The
look-alike names of a room are told apart in the room, the game view and chat."""

import unicodedata

import pytest

from config.textpolicy import TextPolicyError, clean_text, grapheme_count, names_told_apart, skeleton
from tests.factories import UserFactory

CYRILLIC_A = "\u0430"


def _rule(text, **kw) -> str:
    with pytest.raises(TextPolicyError) as exc:
        clean_text(text, max_length=kw.pop("max_length", 32), **kw)
    return exc.value.rule


@pytest.mark.parametrize(("text", "rule"), [
    ("Ha\u0085na", "control"),          # NEXT LINE, a C1 control (the probe)
    ("Ha\x07na", "control"),
    ("Ha\u2028na", "line_break"),
    ("\u202eanaH", "bidi"),             # RIGHT-TO-LEFT OVERRIDE
    ("Hana\u2066", "bidi"),
    ("Ha\u200bna", "format"),           # ZERO WIDTH SPACE
    ("Ha\u00adna", "format"),           # SOFT HYPHEN
    ("Ha\u200dna", "format"),           # ZWJ outside an emoji sequence
    ("Ha\ue000na", "private_use"),
    ("Ha\ud800na", "surrogate"),
    ("Ha\U000e0000na", "unassigned"),    # Cn: reserved in plane 14
    ("\u200b\u200b", "format"),
    ("\u3164\u3164", "blank"),          # HANGUL FILLER: renders as nothing
    ("\u2800", "blank"),                # BRAILLE PATTERN BLANK
    ("   ", "blank"),
    ("", "blank"),
    ("e" + "\u0301" * 4, "combining_marks"),
    ("Z\u0351\u0352\u0353\u0354\u0355algo", "combining_marks"),
    ("x" * 33, "too_long"),
    ("Hana #2", "reserved_suffix"),
    ("Hana #\uff12", "reserved_suffix"),  # FULLWIDTH DIGIT TWO: its skeleton ends in "#2"
    (5, "not_text"),
])
def test_refused_texts_name_their_rule(text, rule):
    assert _rule(text, reserved_suffix=True) == rule


def test_error_messages_start_with_the_rule_and_show_the_code_point():
    with pytest.raises(TextPolicyError) as exc:
        clean_text("Ha\u0085na", max_length=32)
    assert str(exc.value.detail[0]) == "control: U+0085 is a control character."


@pytest.mark.parametrize(("text", "clusters"), [
    ("Hana", 4),
    ("e\u0301", 1),                                   # NFC makes it one code point
    ("\U0001f44d\U0001f3fd", 1),                      # thumbs up, skin tone
    ("\U0001f1ef\U0001f1f5", 1),                      # flag: two regional indicators
    ("\U0001f468\u200d\U0001f469\u200d\U0001f467", 1),  # family: ZWJ inside an emoji sequence is fine
    ("\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", 1),  # England: tag characters
    ("\u2764\ufe0f", 1),                              # heart with VS16
    ("\u0e01\u0e34\u0e4a", 1),                        # Thai: base + 2 marks
    ("Ti\u1ebfng Vi\u1ec7t", 10),
    ("\u5c71\u7530 \u82b1\u5b50", 5),                  # ideographs with a space
])
def test_accepted_texts_and_grapheme_counts(text, clusters):
    cleaned = clean_text(text, max_length=32)
    assert cleaned == unicodedata.normalize("NFC", text)
    assert grapheme_count(cleaned) == clusters
    assert _rule(text * 33, max_length=32 * clusters) == "too_long"


def test_nfc_and_trimming():
    assert clean_text("  Jose\u0301  ", max_length=32) == "Jos\u00e9"


def test_skeletons_match_look_alikes_only():
    assert skeleton("H" + CYRILLIC_A + "na") == skeleton("Hana")
    assert skeleton("rn") == skeleton("m")
    assert skeleton("Hana") != skeleton("Hanna")


def test_names_told_apart_suffixes_every_look_alike_with_its_seat():
    names = {0: "Hana", 1: "H" + CYRILLIC_A + "na", 2: "Bob", 3: "Bob"}
    assert names_told_apart(names) == {0: "Hana #1", 1: "H" + CYRILLIC_A + "na #2", 2: "Bob #3", 3: "Bob #4"}
    assert names_told_apart({0: "Ann", 1: "Bob"}) == {0: "Ann", 1: "Bob"}
    assert names_told_apart({7: "Ann", 9: "Ann"}, seats={7: 0, 9: 2}) == {7: "Ann #1", 9: "Ann #3"}


# ------------------------------------------------------------------------------------ through the API
@pytest.mark.django_db
@pytest.mark.parametrize(("name", "rule"), [("Ha\u0085na", "control"), ("\u200b", "format"),
                                            ("\u202eanaH", "bidi"), ("Hana #1", "reserved_suffix")])
def test_guest_and_register_refuse_bad_names_naming_field_and_rule(api, name, rule):
    res = api.post("/api/auth/guest", {"display_name": name}, format="json")
    assert res.status_code == 400
    assert res.json()["fields"]["display_name"][0].startswith(f"{rule}: ")
    assert res.json()["detail"].startswith(f"display_name: {rule}: ")


@pytest.mark.django_db
def test_chat_text_follows_the_policy(make_client, user):
    from rooms import services

    client = make_client(user)
    room = services.room_create(user=user, game="chinchon", seats=2)
    url = f"/api/rooms/{room.code}/messages"
    for text, rule in [("\u200b\u200b", "format"), ("a" + "\u0301" * 10, "combining_marks"),
                       ("\u3164", "blank"), ("x" * 201, "too_long"), ("hi\u202e", "bidi")]:
        res = client.post(url, {"text": text}, format="json")
        assert res.status_code == 400, text
        assert res.json()["fields"]["text"][0].startswith(f"{rule}: ")
    flags = "\U0001f1ef\U0001f1f5" * 200  # 200 clusters, 400 code points
    assert client.post(url, {"text": flags}, format="json").status_code == 201


@pytest.mark.django_db
def test_look_alike_players_are_told_apart_in_room_game_and_chat(make_client):
    from rooms import services

    latin, cyrillic = UserFactory(display_name="Hana"), UserFactory(display_name="H" + CYRILLIC_A + "na")
    room = services.room_create(user=latin, game="chinchirorin", seats=2)
    services.room_join(code=room.code, user=cyrillic)
    a, b = make_client(latin), make_client(cyrillic)
    seats = a.get(f"/api/rooms/{room.code}").json()
    assert [s["user"]["display_name"] for s in seats["seats"]] == ["Hana #1", "H" + CYRILLIC_A + "na #2"]
    assert seats["host"]["display_name"] == "Hana #1"
    b.post(f"/api/rooms/{room.code}/messages", {"text": "hi"}, format="json")
    assert a.get(f"/api/rooms/{room.code}/messages").json()[-1]["display_name"] == "H" + CYRILLIC_A + "na #2"
    game_id = a.post(f"/api/rooms/{room.code}/start").json()["game_id"]
    view = b.get(f"/api/games/{game_id}").json()
    assert {p["seat"]: p["display_name"] for p in view["players"]} == {0: "Hana #1", 1: "H" + CYRILLIC_A + "na #2"}


@pytest.mark.django_db
def test_report_notes_follow_the_policy(make_client, user):
    other = make_client(UserFactory())
    url = "/api/reports"
    body = {"kind": "user", "target_id": user.pk, "reason": "spam"}
    res = other.post(url, {**body, "note": "look \u202eereh"}, format="json")
    assert res.status_code == 400 and res.json()["fields"]["note"][0].startswith("bidi: ")
    res = other.post(url, {**body, "note": "  "}, format="json")  # an empty note is allowed
    assert res.status_code == 201, res.json()
