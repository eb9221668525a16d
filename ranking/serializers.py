"""Serializers of the ranking API (API.md "Ratings and people"): request bodies and answer shapes."""

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.timefmt import DateTimeMsField
from ranking.achievements import level_for
from ranking.selectors import GAMES

MAX_ID = 2**63 - 1
"""The largest id a database row may have (64-bit): larger ones are refused before any query."""


class PlayerRefSerializer(serializers.Serializer):
    """``player``: ``{id, display_name}``."""

    id = serializers.IntegerField()
    display_name = serializers.CharField()


# -------------------------------------------------------------------------------------------------- friends
class FriendTargetSerializer(serializers.Serializer):
    """Body of ``DELETE /api/friends``: ``{user_id}``."""

    user_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class FriendAddSerializer(serializers.Serializer):
    """Body of ``POST /api/friends``: exactly one of ``user_id`` (sends a friend request, or accepts theirs)
    and ``code`` (a friend code: friends at once)."""

    user_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)
    code = serializers.CharField(min_length=1, max_length=16, required=False,
                                 help_text="A friend code (GET /api/me/friend-code), any case.")

    def validate(self, attrs):
        if len(attrs) != 1:
            raise serializers.ValidationError(gettext_lazy("Send exactly one of user_id, code."))
        return attrs


class FriendCodeSerializer(serializers.Serializer):
    """``GET``/``POST /api/me/friend-code``: ``{code, url}``; ``url`` = ``<PUBLIC_URL or the address served>/friend/<code>``, opened by the web client."""

    code = serializers.CharField()
    url = serializers.CharField()


class FriendSerializer(serializers.Serializer):
    """A friend: ``{player, since, source, online}`` (``source``: ``invite`` or ``request``)."""

    player = PlayerRefSerializer()
    since = DateTimeMsField()
    source = serializers.ChoiceField(choices=["invite", "request"])
    online = serializers.BooleanField(help_text="A user socket (/ws/me/) of the friend is open (docs/party.md).")


class FriendRequestSerializer(serializers.Serializer):
    """A pending request: ``{player, at}`` (the other user; when it was sent)."""

    player = PlayerRefSerializer()
    at = DateTimeMsField()


class FriendsSerializer(serializers.Serializer):
    """``GET /api/friends``: friends, requests received (``incoming``) and sent (``outgoing``)."""

    friends = FriendSerializer(many=True)
    incoming = FriendRequestSerializer(many=True)
    outgoing = FriendRequestSerializer(many=True)


class FriendAnswerSerializer(serializers.Serializer):
    """``POST /api/friends``: ``{status: "friends"|"requested", player}``."""

    status = serializers.ChoiceField(choices=["friends", "requested"])
    player = PlayerRefSerializer()


class UserSearchQuerySerializer(serializers.Serializer):
    """Query of ``GET /api/users``: ``search`` (1-50 characters, matched in usernames and display names)."""

    search = serializers.CharField(min_length=1, max_length=50)


# ---------------------------------------------------------------------------------------------------- queue
class QueueJoinSerializer(serializers.Serializer):
    """Body of ``POST /api/queue``: ``{game, seats, preset?, style?}`` (seats within the range of the game
    and preset; ``preset`` for chinchón, ``style`` for chinchirorin; defaults otherwise)."""

    game = serializers.ChoiceField(choices=list(GAMES))
    seats = serializers.IntegerField()
    preset = serializers.CharField(required=False, allow_blank=True, max_length=16,
                                   help_text="Chinchón: standard (default), traditional or wild_ace.")
    style = serializers.CharField(required=False, allow_blank=True, max_length=16,
                                  help_text="Chinchirorin: streamer (default) or common.")


class QueueStatusSerializer(serializers.Serializer):
    """``GET``/``POST /api/queue``: ``{status, game, seats, preset, style, room, queued_at, expires_at}``.

    ``status``: ``none`` (not queued), ``waiting``, ``matched`` (``room`` is the room code), ``expired``.
    """

    status = serializers.ChoiceField(choices=["none", "waiting", "matched", "expired"])
    game = serializers.CharField(allow_null=True)
    seats = serializers.IntegerField(allow_null=True)
    preset = serializers.CharField(allow_null=True)
    style = serializers.CharField(allow_null=True)
    room = serializers.CharField(allow_null=True)
    queued_at = DateTimeMsField(allow_null=True)
    expires_at = DateTimeMsField(allow_null=True)


# ---------------------------------------------------------------------------------------------- leaderboard
class LeaderboardQuerySerializer(serializers.Serializer):
    """Query of ``GET /api/leaderboard``: ``game`` (required), ``scope`` (``all`` default, or ``friends``)."""

    game = serializers.ChoiceField(choices=list(GAMES))
    scope = serializers.ChoiceField(choices=["all", "friends"], default="all", required=False)
    period = serializers.ChoiceField(choices=["all", "week"], default="all", required=False,
                                     help_text="all (default): all time; week: players with a rated game since "
                                               "Monday 00:00 UTC.")


class LeaderboardRowSerializer(serializers.Serializer):
    """One leaderboard row: ``{rank, player, rating, games}``; tied ratings share a rank (1, 1, 3)."""

    rank = serializers.IntegerField()
    player = serializers.SerializerMethodField()
    rating = serializers.IntegerField()
    games = serializers.IntegerField(source="period_games", help_text="Rated games of this game (this week's "
                                                                      "with period=week).")

    @extend_schema_field(PlayerRefSerializer)
    def get_player(self, obj) -> dict:
        return {"id": obj.user_id, "display_name": obj.user.display_name}


class XpLeaderboardQuerySerializer(serializers.Serializer):
    """Query of ``GET /api/leaderboard/xp``: ``scope`` (all, friends), ``period`` (all, week)."""

    scope = serializers.ChoiceField(choices=["all", "friends"], default="all", required=False)
    period = serializers.ChoiceField(choices=["all", "week"], default="all", required=False,
                                     help_text="all (default): all-time XP; week: XP earned since Monday 00:00 UTC.")


class XpLeaderboardRowSerializer(serializers.Serializer):
    """One XP leaderboard row: ``{rank, player, xp, level}``; equal XP share a rank (1, 1, 3). ``xp`` is the
    period's; ``level`` comes from the all-time XP."""

    rank = serializers.IntegerField()
    player = serializers.SerializerMethodField()
    xp = serializers.IntegerField()
    level = serializers.SerializerMethodField()

    @extend_schema_field(PlayerRefSerializer)
    def get_player(self, obj) -> dict:
        return {"id": obj.pk, "display_name": obj.display_name}

    def get_level(self, obj) -> int:
        return level_for(obj.total_xp)


# ----------------------------------------------------------------------------------------------- stats
class RatingHistoryRowSerializer(serializers.Serializer):
    """One rated game, or a moderator's adjustment: ``{game_id, at, before, after, change, reason}``
    (rating points; an adjustment has ``game_id`` null and its ``reason``, a game ``reason`` "")."""

    game_id = serializers.IntegerField(allow_null=True)
    at = DateTimeMsField()
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    change = serializers.IntegerField()
    reason = serializers.CharField()


class GameCountsSerializer(serializers.Serializer):
    """Per-game totals of a player."""

    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    rating = serializers.IntegerField()
    rated_games = serializers.IntegerField()
    hands_finished = serializers.IntegerField()


class ChinchirorinCountsSerializer(GameCountsSerializer):
    """Chinchirorin totals, with the hands rolled."""

    pinzoro = serializers.IntegerField()
    arashi = serializers.IntegerField()
    shigoro = serializers.IntegerField()
    hifumi = serializers.IntegerField()


class ChinchonCountsSerializer(GameCountsSerializer):
    """Chinchón totals, with the closes made (``minus_ten``: menos diez; ``chinchon``) and cards discarded."""

    minus_ten = serializers.IntegerField()
    chinchon = serializers.IntegerField()
    cards_discarded = serializers.IntegerField()


class PerGameSerializer(serializers.Serializer):
    chinchirorin = ChinchirorinCountsSerializer()
    chinchon = ChinchonCountsSerializer()


class RatingHistorySerializer(serializers.Serializer):
    chinchirorin = RatingHistoryRowSerializer(many=True)
    chinchon = RatingHistoryRowSerializer(many=True)


class UserStatsSerializer(serializers.Serializer):
    """``GET /api/users/{id}/stats`` (see :func:`ranking.selectors.user_stats`)."""

    player = PlayerRefSerializer()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    xp = serializers.IntegerField()
    level = serializers.IntegerField()
    level_xp = serializers.IntegerField(help_text="Total XP at which the current level starts.")
    next_level_xp = serializers.IntegerField(help_text="Total XP at which the next level starts.")
    per_game = PerGameSerializer()
    rating_history = RatingHistorySerializer()


class AchievementSerializer(serializers.Serializer):
    """A catalogue entry: ``{id, name, description}``."""

    id = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()


class AchievementEntrySerializer(AchievementSerializer):
    """``GET /api/achievements``: an entry with the ``xp`` it grants and the ``target`` its progress counts
    to (e.g. 10 games; 1 for a condition met within one game)."""

    xp = serializers.IntegerField()
    target = serializers.IntegerField()


class AchievementProgressSerializer(AchievementEntrySerializer):
    """A user's standing on one achievement: ``progress`` of ``target`` (e.g. 3 of 10), ``earned``, and once
    earned ``awarded_at`` and ``game_id``."""

    progress = serializers.IntegerField()
    earned = serializers.BooleanField()
    awarded_at = DateTimeMsField(allow_null=True)
    game_id = serializers.IntegerField(allow_null=True)


class AwardSerializer(AchievementSerializer):
    """An achievement a user holds: the entry plus ``awarded_at`` and ``game_id`` (null if unknown)."""

    awarded_at = DateTimeMsField()
    game_id = serializers.IntegerField(allow_null=True)
