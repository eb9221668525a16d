"""Serializers of the games API: they document the shapes in the OpenAPI schema (API.md "Games").

Views are built by :func:`games.selectors.game_view`; these serializers describe them and parse the few
request fields DRF checks (``autoplay``'s ``on``, the log's ``after``). An action body is checked by the
service (its shape is the engine's), so :class:`ActionRequestSerializer` only documents it.
"""

from rest_framework import serializers

ACTION_TYPES = ["roll", "bet", "step_down", "draw", "discard", "close", "reenter", "resign"]
EVENT_TYPES = sorted({
    # chinchirorin
    "first_dealer_roll", "first_dealer_tie", "dealer", "step_down_offered", "step_down", "hand_started",
    "bet", "betting_closed", "throw", "hand", "opening", "payment", "hand_settled", "resigned", "game_over",
    # chinchón
    "mano_draw", "mano", "deal", "turn", "draw", "drawn", "restock", "discard", "close", "reveal", "score", "out",
    "reentry_offer", "reenter", "resign", "game_end",
    # chinchón with a stake (coins)
    "stake", "reentry_paid", "pot_won",
    # the service
    "game_aborted", "pot_refunded",
})


class ActionRequestSerializer(serializers.Serializer):
    """``{type, seq, ..., action_id?}``: the action's own fields (``amount``, ``down``, ``source``,
    ``card``, ``accept``) as the game defines them; ``seq`` the view's seq."""

    type = serializers.ChoiceField(choices=ACTION_TYPES)
    seq = serializers.IntegerField(min_value=0)
    action_id = serializers.CharField(max_length=64, required=False)
    amount = serializers.IntegerField(required=False, help_text="bet")
    down = serializers.BooleanField(required=False, help_text="step_down")
    source = serializers.ChoiceField(choices=["stock", "discard"], required=False, help_text="draw")
    card = serializers.CharField(required=False, help_text="discard / close, e.g. \"7O\", \"JK\"")
    accept = serializers.BooleanField(required=False, help_text="reenter")


class AutoplayRequestSerializer(serializers.Serializer):
    """``{on: bool}``: hand the seat to the CPU, or take it back."""

    on = serializers.BooleanField()

    def to_internal_value(self, data):
        # A boolean only: DRF would take "yes"/1 as true.
        if isinstance(data, dict) and "on" in data and not isinstance(data["on"], bool):
            raise serializers.ValidationError({"on": ["Must be true or false."]})
        return super().to_internal_value(data)


class PlayerSerializer(serializers.Serializer):
    """One seat as everyone sees it; ``points`` (chinchirorin) or ``score`` (chinchón)."""

    seat = serializers.IntegerField()
    display_name = serializers.CharField()
    points = serializers.IntegerField(required=False)
    score = serializers.IntegerField(required=False)
    connected = serializers.BooleanField()
    cpu = serializers.BooleanField()
    cpu_playing = serializers.BooleanField()
    away = serializers.BooleanField()
    resigned = serializers.BooleanField()
    out = serializers.BooleanField()
    reentries = serializers.IntegerField()


class FairnessSerializer(serializers.Serializer):
    """sha256 of the seed from the start; the seed (64 hex) once finished or aborted."""

    commitment = serializers.CharField()
    seed = serializers.CharField(allow_null=True)
    scheme = serializers.CharField()


class StandingSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    place = serializers.IntegerField()
    points = serializers.IntegerField(required=False)
    score = serializers.IntegerField(required=False)


class SeatCoinsSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    coins = serializers.IntegerField()


class ResultPotSerializer(serializers.Serializer):
    """A staked game's pot: ``total`` coins; ``payouts`` (finished: the best-placed stakers' shares) or
    ``refunds`` (aborted: what each seat had paid in, given back)."""

    total = serializers.IntegerField()
    payouts = SeatCoinsSerializer(many=True, required=False)
    refunds = SeatCoinsSerializer(many=True, required=False)


class ResultSerializer(serializers.Serializer):
    standing = StandingSerializer(many=True)
    reason = serializers.ChoiceField(choices=["rounds_complete", "zero_points", "last_seat", "chinchon",
                                              "all_out", "resignations", "aborted"])
    pot = ResultPotSerializer(required=False, help_text="Only in a game with a stake (coins).")


class ActionBodySerializer(serializers.Serializer):
    """A complete action body the caller may post as it is (adding ``seq``); more keys per type."""

    type = serializers.CharField(help_text="An action type: " + ", ".join(ACTION_TYPES) + ".")


class GameViewSerializer(serializers.Serializer):
    """The caller's view of a game (API.md "Games" ``view``)."""

    id = serializers.IntegerField()
    game = serializers.ChoiceField(choices=["chinchirorin", "chinchon"])
    seq = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["playing", "finished", "aborted"])
    phase = serializers.CharField()
    you = serializers.IntegerField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True)
    awaiting = serializers.ListField(child=serializers.IntegerField())
    deadline = serializers.DateTimeField(allow_null=True)
    players = PlayerSerializer(many=True)
    table = serializers.DictField(help_text="Per game: see API.md \"table\"; a staked Chinchón game adds "
                                            "pot {stake, total, stakers} (coins).")
    legal_actions = ActionBodySerializer(many=True)
    other_actions = ActionBodySerializer(many=True)
    fairness = FairnessSerializer()
    result = ResultSerializer(allow_null=True)


class LogEventSerializer(serializers.Serializer):
    """One event the caller may see; more keys per type."""

    seq = serializers.IntegerField()
    index = serializers.IntegerField()
    by = serializers.ChoiceField(choices=["player", "timeout", "away", "cpu"], required=False)
    type = serializers.ChoiceField(choices=EVENT_TYPES)


class LogPageSerializer(serializers.Serializer):
    """A page of the log: whole seqs only; ``next_after`` is the ``after`` of the next page."""

    events = LogEventSerializer(many=True)
    next_after = serializers.IntegerField()
    more = serializers.BooleanField()


class LogQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(required=False, default=-1, min_value=-1)
