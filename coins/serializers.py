"""Serializers of the coins API (shapes in README.md "Coins")."""

from rest_framework import serializers

from coins import challenges
from coins.models import LedgerEntry
from config.timefmt import DateTimeMsField


class LedgerEntrySerializer(serializers.ModelSerializer):
    """One ledger row: ``{id, amount, balance_after, reason, game_id, challenge, note, created_at}``;
    ``amount`` in coins (negative: out), ``game_id`` null unless a game's, ``challenge`` "" unless a
    claim's, ``note`` a moderator's reason ("" otherwise)."""

    game_id = serializers.IntegerField(allow_null=True, read_only=True)
    created_at = DateTimeMsField(read_only=True)

    class Meta:
        model = LedgerEntry
        fields = ["id", "amount", "balance_after", "reason", "game_id", "challenge", "note", "created_at"]


class DailyGrantSerializer(serializers.Serializer):
    """``{amount, available, next_at}``: coins the daily grant gives now, whether it may be claimed now,
    when the next UTC day starts."""

    amount = serializers.IntegerField()
    available = serializers.BooleanField()
    next_at = DateTimeMsField()


class LedgerPageSerializer(serializers.Serializer):
    """A page of the ledger, newest first: ``{count, next, previous, results}``."""

    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    results = LedgerEntrySerializer(many=True)


class WalletSerializer(serializers.Serializer):
    """``GET /api/me/wallet``: ``{balance, daily_grant, stakes, ledger}``; ``stakes``: the values a room's
    ``stake`` setting may take."""

    balance = serializers.IntegerField(help_text="Coins held (never below 0).")
    daily_grant = DailyGrantSerializer()
    stakes = serializers.ListField(child=serializers.IntegerField())
    ledger = LedgerPageSerializer()


class DailyClaimSerializer(serializers.Serializer):
    """``POST /api/me/wallet/daily``: ``{balance, daily_grant, entry}`` (the grant's ledger row)."""

    balance = serializers.IntegerField()
    daily_grant = DailyGrantSerializer()
    entry = LedgerEntrySerializer()


class RewardSerializer(serializers.Serializer):
    coins = serializers.IntegerField()
    xp = serializers.IntegerField()


class ChallengeSerializer(serializers.Serializer):
    """One active challenge with the caller's progress: ``progress`` of ``target`` in ``metric`` counted from
    the caller's finished games of ``game`` between ``starts_at`` and ``ends_at``; ``claimed`` once its
    reward was taken."""

    id = serializers.CharField()
    game = serializers.ChoiceField(choices=["chinchirorin", "chinchon"])
    period = serializers.ChoiceField(choices=["daily", "weekly"])
    name = serializers.CharField()
    description = serializers.CharField()
    metric = serializers.ChoiceField(choices=list(challenges.METRICS))
    target = serializers.IntegerField()
    progress = serializers.IntegerField()
    completed = serializers.BooleanField()
    claimed = serializers.BooleanField()
    reward = RewardSerializer()
    starts_at = DateTimeMsField()
    ends_at = DateTimeMsField()


class ChallengesSerializer(serializers.Serializer):
    """``GET /api/challenges``: ``{challenges: [...]}`` (per game: its daily ones, then its weekly one)."""

    challenges = ChallengeSerializer(many=True)


class ChallengeClaimSerializer(serializers.Serializer):
    """``POST /api/challenges/{id}/claim``: ``{challenge, balance, entry}``."""

    challenge = ChallengeSerializer()
    balance = serializers.IntegerField()
    entry = LedgerEntrySerializer()
