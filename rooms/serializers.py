"""Serializers of the Rooms API: the ``room`` and chat ``message`` shapes (API.md "Rooms", "WebSocket")
and the request bodies. Numbers and booleans are strict: ``"4"`` is not a seat count, ``1`` is not true."""

import contextvars

from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.serializers import UserSerializer
from config.links import public_link
from config.textpolicy import PolicyTextField, names_told_apart
from config.timefmt import DateTimeMsField
from games.engine.errors import InvalidRules
from games.engine.registry import get_engine
from rooms.models import CPU_LEVELS, CPU_SPEEDS, GAME_CHOICES, SEATS_AUTO, ChatMessage, Room, RoomStatus
from rooms.selectors import room_spectators

GAMES = [g for g, _ in GAME_CHOICES]


def invite_url(code: str, base_url: str | None = None) -> str:
    """The link that opens the room in the web client: ``<base>/join/<code>`` (:func:`config.links.public_link`;
    without a base, a path made absolute by each socket before sending)."""
    return public_link(f"/join/{code}", base_url)


def resolved_rules(game_name: str, rules: dict, seats: int | None) -> dict:
    """Every setting of ``rules`` resolved by the engine for ``seats`` (the stored settings as they are
    should the engine no longer accept them)."""
    engine = get_engine(game_name)
    try:
        return engine.rules_to_dict(engine.validate_rules(dict(rules or {}), seats))
    except InvalidRules:
        return dict(rules or {})


class StrictIntegerField(serializers.IntegerField):
    """An integer that is a JSON number (no string, no boolean, no float)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false`` only."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictChoiceField(serializers.ChoiceField):
    """A choice whose value must have the choice's own type (``30``, not ``"30"``)."""

    def to_internal_value(self, data):
        if data is None and self.allow_null:
            return None
        for choice in self.choices:
            if data == choice and type(data) is type(choice) and not isinstance(data, bool):
                return choice
        self.fail("invalid_choice", input=data)


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string", "enum": [SEATS_AUTO]}]})
class SeatCountField(serializers.Field):
    """``seats``: a JSON integer (checked against the rules' seat range by the engine) or ``"auto"``."""

    default_error_messages = {"invalid": gettext_lazy("A whole number of seats, or \"auto\".")}

    def to_internal_value(self, data):
        if data == SEATS_AUTO or (isinstance(data, int) and not isinstance(data, bool)):
            return data
        self.fail("invalid")

    def to_representation(self, value):
        return value


@extend_schema_field(OpenApiTypes.OBJECT)
class RulesField(serializers.Field):
    """The game's settings: a JSON object (checked by the engine, errors naming ``rules.<setting>``)."""

    default_error_messages = {"invalid": gettext_lazy("Must be an object of settings.")}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


# Plain serializers for the ``room`` shape, built at every room change: see accounts.serializers.UserSerializer.
class SeatSerializer(serializers.Serializer):
    """``{index, user|null, cpu, cpu_level, connected, left}``; ``left``: the player left mid-game and the
    seat is played for until the game ends."""

    index = serializers.IntegerField(read_only=True)
    user = UserSerializer(allow_null=True, read_only=True)
    cpu = serializers.BooleanField(read_only=True)
    cpu_level = serializers.CharField(allow_null=True, read_only=True)
    connected = serializers.SerializerMethodField()
    left = serializers.BooleanField(read_only=True)

    def get_connected(self, seat) -> bool:
        return seat.connections > 0


class SpectatorSerializer(serializers.Serializer):
    """A user watching the room: ``{id, display_name}``."""

    id = serializers.IntegerField(source="user_id")
    display_name = serializers.CharField(source="user.display_name")


def _bound(serializer: serializers.Serializer) -> serializers.Serializer:
    """``serializer`` with its fields bound now, a nested serializer's own fields too: afterwards they
    are only read, from any thread."""
    for field in serializer.fields.values():
        getattr(field, "fields", None)
    return serializer


# One list serializer of each for the process: making a serializer deep-copies its declared fields (every
# field's __init__ again, the nested UserSerializer's too), which was most of a room message's cost (a game
# start, a rematch and every seat's socket opening or closing build one). Neither reads its context, so one
# instance serves every room, every thread: its fields are bound once, here, and only read afterwards.
_SEAT_LIST = SeatSerializer(many=True)
_SPECTATOR_LIST = SpectatorSerializer(many=True)
for _list in (_SEAT_LIST, _SPECTATOR_LIST):
    _bound(_list.child)


class RoomSerializer(serializers.Serializer):
    """``room``: ``{code, invite_url, game, host, seats, seats_auto, rules (every setting resolved),
    turn_seconds, ranked, cpu_level, cpu_speed, status, game_id, version, spectators_allowed,
    spectators, voice_allowed}``. ``seats_auto``: created (or patched) with ``seats: "auto"``: the room offers the rules'
    most seats and a start seats the party. ``spectators_allowed``: users with the code may watch (never
    while a ranked game is in progress); ``spectators``: who watches now (``[{id, display_name}]``, users
    with a spectator socket open). ``voice_allowed``: the seated players may talk over voice (docs/voice.md).
    Seated players whose display names look alike (TR39 skeleton) are
    shown with the suffix `` #<seat + 1>`` (``config.textpolicy``), host too. Context ``base_url``: see
    :func:`invite_url`."""

    code = serializers.CharField(read_only=True)
    invite_url = serializers.SerializerMethodField()
    game = serializers.CharField(source="game_name", read_only=True)
    host = UserSerializer(allow_null=True, read_only=True)
    seats = serializers.SerializerMethodField()
    seats_auto = serializers.BooleanField(read_only=True)
    rules = serializers.SerializerMethodField()
    turn_seconds = serializers.IntegerField(allow_null=True, read_only=True)
    ranked = serializers.BooleanField(read_only=True)
    cpu_level = serializers.ChoiceField(choices=CPU_LEVELS, read_only=True)
    cpu_speed = serializers.ChoiceField(choices=CPU_SPEEDS, read_only=True)
    status = serializers.ChoiceField(choices=RoomStatus.choices, read_only=True)
    game_id = serializers.IntegerField(allow_null=True, read_only=True)
    version = serializers.IntegerField(read_only=True)
    spectators_allowed = serializers.BooleanField(read_only=True)
    spectators = serializers.SerializerMethodField()
    voice_allowed = serializers.BooleanField(read_only=True)

    def get_invite_url(self, room) -> str:
        return invite_url(room.code, self.context.get("base_url"))

    @extend_schema_field(SeatSerializer(many=True))
    def get_seats(self, room):
        seats = self.context.get("seats")  # rows already in hand (see room_data)
        seats = sorted(room.seats.all() if seats is None else seats, key=lambda s: s.index)
        return _SEAT_LIST.to_representation(seats)

    @extend_schema_field(SpectatorSerializer(many=True))
    def get_spectators(self, room):
        return _SPECTATOR_LIST.to_representation(room_spectators(room))

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_rules(self, room):
        auto_open = room.seats_auto and room.status != RoomStatus.PLAYING  # seats not known before the start
        return resolved_rules(room.game_name, room.rules, None if auto_open else room.seat_count)

    def to_representation(self, room):
        data = super().to_representation(room)
        seated = {s["index"]: s["user"] for s in data["seats"] if s["user"]}
        shown = names_told_apart({index: user["display_name"] for index, user in seated.items()})
        host = data.get("host")
        for index, user in seated.items():
            user["display_name"] = shown[index]
            if host and host["id"] == user["id"]:
                host["display_name"] = shown[index]
        return data


class RoomCreateSerializer(serializers.Serializer):
    """Body of ``POST /api/rooms`` (and, every field optional, of ``PATCH``)."""

    game = StrictChoiceField(choices=GAMES)
    seats = SeatCountField(required=False, help_text="2..8 by game and preset, or \"auto\" (the default: the table follows the party).")
    rules = RulesField(required=False)
    turn_seconds = StrictChoiceField(choices=[30, 60], allow_null=True, required=False)
    ranked = StrictBooleanField(required=False)
    cpu_level = StrictChoiceField(choices=list(CPU_LEVELS), required=False)
    cpu_speed = StrictChoiceField(choices=list(CPU_SPEEDS), required=False)
    spectators_allowed = StrictBooleanField(required=False, help_text="Let users with the code watch "
                                            "(default false; never while a ranked game is in progress).")
    voice_allowed = StrictBooleanField(required=False, help_text="Let the seated players join voice "
                                       "(default true; docs/voice.md).")

    def to_internal_value(self, data):
        """Refuse a key that is not a field of the body (400 ``invalid`` naming it) rather than ignore it: a
        game setting sent beside ``rules`` (``{"preset": "traditional"}``) would otherwise be dropped and
        the room made with the default rules."""
        if isinstance(data, dict):
            unknown = sorted(str(k) for k in data if k not in self.fields)
            if unknown:
                raise serializers.ValidationError({
                    k: [gettext_lazy("Unknown field; game settings go inside \"rules\".")] for k in unknown})
        return super().to_internal_value(data)


class RoomUpdateSerializer(RoomCreateSerializer):
    """Body of ``PATCH /api/rooms/{code}``: any fields of the create body."""

    game = StrictChoiceField(choices=GAMES, required=False)


@extend_schema_field({"type": "string", "pattern": "^(" + "|".join(CPU_LEVELS) + ")$"})
class CpuLevelField(StrictChoiceField):
    """A CPU level: easy, normal or hard (documented by a pattern: the enum is the room's ``cpu_level``)."""

    def __init__(self, **kwargs):
        super().__init__(choices=list(CPU_LEVELS), **kwargs)


class CpuSeatSerializer(serializers.Serializer):
    """Body of ``POST /api/rooms/{code}/cpu``: ``seat`` index, ``level`` (default the room's)."""

    seat = StrictIntegerField(min_value=0)
    level = CpuLevelField(required=False)


class StrictCharField(serializers.CharField):
    """A JSON string only (DRF would take ``5`` as ``"5"``)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


CHAT_TEXT_MAX = 200


class ChatPostSerializer(serializers.Serializer):
    """Body of a chat message: exactly one of ``text`` (the text policy, ``config.textpolicy``: trimmed,
    1–200 grapheme clusters, nothing invisible-only, no control/format/bidi characters, few combining
    marks), ``emoji``, ``phrase`` (an id)."""

    text = PolicyTextField(required=False, max_length=CHAT_TEXT_MAX)
    emoji = StrictCharField(required=False, trim_whitespace=False)
    phrase = StrictCharField(required=False, trim_whitespace=False)


class ChatMessageSerializer(serializers.ModelSerializer):
    """``message``: ``{id, seat, display_name, text|emoji|phrase, created_at}`` (only the key it has).
    ``display_name`` carries the suffix `` #<seat + 1>`` when it looks like another player's name in the
    room (context ``names``: ``{user_id: name as shown}``, from ``rooms.selectors.chat_names``)."""

    display_name = serializers.SerializerMethodField()
    created_at = DateTimeMsField()

    class Meta:
        model = ChatMessage
        fields = ["id", "seat", "display_name", "text", "emoji", "phrase", "created_at"]
        read_only_fields = fields

    def get_display_name(self, message) -> str:
        return self.context.get("names", {}).get(message.user_id, message.user.display_name)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        for key in ("text", "emoji", "phrase"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class PhraseSerializer(serializers.Serializer):
    """A quick phrase: ``{id, text}``."""

    id = serializers.CharField()
    text = serializers.CharField()


class CatalogueSerializer(serializers.Serializer):
    """``GET /api/chat/catalogue``: ``{emoji: [str], phrases: [{id, text}]}``."""

    emoji = serializers.ListField(child=serializers.CharField())
    phrases = PhraseSerializer(many=True)


class SeatRangeSerializer(serializers.Serializer):
    """``{min, max}`` seat counts."""

    min = serializers.IntegerField()
    max = serializers.IntegerField()


class GameSeatsSerializer(SeatRangeSerializer):
    """``{min, max, default}``: the game's seat range over all presets and a new room's default."""

    default = serializers.JSONField(help_text="Seats of a room created without `seats`.")


class PresetSerializer(serializers.Serializer):
    """A preset: ``{id, name, description, seats: {min, max}}``."""

    id = serializers.CharField(help_text="The value of `rules.preset`.")
    name = serializers.CharField()
    description = serializers.CharField()
    seats = SeatRangeSerializer()


class SettingChoiceSerializer(serializers.Serializer):
    """An allowed value of a ``choice`` setting: ``{value, label}``."""

    value = serializers.JSONField(help_text="The value to send (string, integer or null).")
    label = serializers.CharField()


class SettingSerializer(serializers.Serializer):
    """A rules setting: name (the key of ``rules``), type, default, value per preset, allowed values."""

    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["integer", "boolean", "choice", "integer_list"])
    default = serializers.JSONField(help_text="The value without a preset (or in a game with none).")
    presets = serializers.DictField(child=serializers.JSONField(), help_text="{preset id: its value}; {} when "
                                    "the game has no presets.")
    choices = SettingChoiceSerializer(many=True, required=False, help_text="type choice only.")
    min = serializers.IntegerField(required=False, help_text="integer: the least value; integer_list: the "
                                   "least item.")
    max = serializers.IntegerField(required=False, help_text="integer: the greatest value.")
    min_items = serializers.IntegerField(required=False, help_text="integer_list only.")
    max_items = serializers.IntegerField(required=False, help_text="integer_list only.")
    label = serializers.CharField()
    description = serializers.CharField()


class GameCatalogueSerializer(serializers.Serializer):
    """One game of the catalogue."""

    id = serializers.CharField(help_text="chinchirorin | chinchon: the room's `game`.")
    name = serializers.CharField()
    description = serializers.CharField()
    seats = GameSeatsSerializer()
    presets = PresetSerializer(many=True)
    settings = SettingSerializer(many=True)


class TurnSecondsSerializer(serializers.Serializer):
    """A turn timer: ``{value: null|30|60, label}``."""

    value = serializers.IntegerField(allow_null=True)
    label = serializers.CharField()


class CpuLevelSerializer(serializers.Serializer):
    """``{id, label}``."""

    id = serializers.CharField(help_text="easy | normal | hard: a room's `cpu_level`.")
    label = serializers.CharField()


class CpuSpeedSerializer(serializers.Serializer):
    """``{id, seconds, label}``: CPU seats act ``seconds`` after a decision window opens."""

    id = serializers.CharField(help_text="fast | normal | slow: a room's `cpu_speed`.")
    seconds = serializers.FloatField()
    label = serializers.CharField()


class RoomSwitchSerializer(serializers.Serializer):
    """``{name, type: "boolean", default, label, description}``: an on/off setting of the room (its field
    ``name`` in the room and in the create / PATCH bodies)."""

    name = serializers.ChoiceField(choices=["spectators_allowed", "voice_allowed"])
    type = serializers.ChoiceField(choices=["boolean"])
    default = serializers.BooleanField()
    label = serializers.CharField()
    description = serializers.CharField()


class VoiceSerializer(serializers.Serializer):
    """``GET /api/rooms/{code}/voice`` (docs/voice.md): what a seated player's client needs to join voice."""

    voice_allowed = serializers.BooleanField(help_text="The host lets the seated players talk.")
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="The seats in voice now.")
    ice_servers = serializers.ListField(
        child=serializers.DictField(), help_text="RTCIceServer objects {urls, username?, credential?} for "
        "RTCPeerConnection's iceServers (the VOICE_ICE_SERVERS setting; empty: host candidates only).")
    signal_max_bytes = serializers.IntegerField(help_text="The most bytes of a voice_signal message.")


class GamesCatalogueSerializer(serializers.Serializer):
    """``GET /api/games/catalogue``: ``{games, turn_seconds, cpu_levels, cpu_speeds, room_settings}``."""

    games = GameCatalogueSerializer(many=True)
    turn_seconds = TurnSecondsSerializer(many=True)
    cpu_levels = CpuLevelSerializer(many=True)
    cpu_speeds = CpuSpeedSerializer(many=True)
    room_settings = RoomSwitchSerializer(many=True)


_ROOM_CONTEXT: contextvars.ContextVar[dict] = contextvars.ContextVar("room_data_context")


class _SharedRoomSerializer(RoomSerializer):
    """The process's one RoomSerializer, as the seat and spectator lists above (its host's UserSerializer
    included; bench/README.md "1,000 games, a third look"): its context, which DRF gives every field
    through the root's ``_context``, is the :func:`room_data` call's (this thread's or task's), so one
    instance serves every room at once; ``{}`` outside a call."""

    @property
    def _context(self) -> dict:
        return _ROOM_CONTEXT.get({})

    @_context.setter
    def _context(self, value: dict) -> None:  # BaseSerializer.__init__ sets it: the call's is read instead
        pass


_ROOM = _bound(_SharedRoomSerializer())


def room_data(room: Room, seats: list | None = None, *, base_url: str | None = None) -> dict:
    """The ``room`` shape of ``room`` (reads its seats, unless ``seats``, the room's seat rows with their
    users, are given; prefetch them for lists); ``base_url``: see :func:`invite_url`."""
    context = {"base_url": base_url}
    if seats is not None:
        context["seats"] = seats
    token = _ROOM_CONTEXT.set(context)
    try:
        return _ROOM.to_representation(room)
    finally:
        _ROOM_CONTEXT.reset(token)


def message_data(message: ChatMessage, names: dict | None = None) -> dict:
    """The chat ``message`` shape; ``names``: ``{user_id: name as shown}`` (``rooms.selectors.chat_names``)."""
    return ChatMessageSerializer(message, context={"names": names or {}}).data
