"""The ranking API (API.md "Ratings and people"): one API class per resource, thin over services and
selectors.

- ``GET /api/friends`` -> ``{friends: [{player, since, source}], incoming: [{player, at}], outgoing: [...]}``
- ``POST /api/friends {user_id}`` -> 201 ``{status: "requested"|"friends", player}`` when something
  changed (a request sent, or one from that user accepted), 200 when already so; 400 ``invalid`` for
  oneself, 404 ``not_found`` for an unknown user. ``POST /api/friends {code}`` (a friend code) -> 201
  ``{status: "friends", player}`` at once (200 when already friends); 404 for an unknown code.
- ``GET /api/me/friend-code`` -> ``{code, url}``; ``POST`` renews it (201).
- ``GET /api/users?search=`` -> up to 20 ``user`` (``{id, username, display_name, is_guest}``).
- ``DELETE /api/friends {user_id}`` (or ``?user_id=``) -> 204: removes the friend, cancels the caller's
  request or declines theirs; idempotent.
- ``GET /api/queue`` -> ``{status, game, seats, room, queued_at, expires_at}``.
- ``POST /api/queue {game, seats, preset?, style?}`` -> 201 the same (``waiting``, or ``matched`` with ``room``); guests
  403 ``registration_required``.
- ``DELETE /api/queue`` -> 204.
- ``GET /api/leaderboard?game=&scope=all|friends&page=`` -> ``{count, next, previous, results: [{rank,
  player, rating, games}]}``.
- ``GET /api/leaderboard/xp?scope=all|friends&period=all|week&page=`` -> ``{count, next, previous,
  results: [{rank, player, xp, level}]}``; ``period`` also on ``/api/leaderboard``.
- ``GET /api/achievements`` (public) -> ``[{id, name, description, xp, target}]``.
- ``GET /api/users/{id}/stats``, ``GET /api/users/{id}/achievements``,
  ``GET /api/users/{id}/achievements/progress`` -> ``[{..., xp, target, progress, earned, awarded_at,
  game_id}]``.
"""

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.serializers import UserSerializer
from config.errors import ApiError
from config.links import public_link, request_base_url
from config.schema import ACCEPT_LANGUAGE, errors
from ranking import selectors, services
from ranking.serializers import (
    MAX_ID,
    AchievementEntrySerializer,
    AchievementProgressSerializer,
    AwardSerializer,
    FriendAddSerializer,
    FriendAnswerSerializer,
    FriendCodeSerializer,
    FriendsSerializer,
    FriendTargetSerializer,
    LeaderboardQuerySerializer,
    LeaderboardRowSerializer,
    QueueJoinSerializer,
    QueueStatusSerializer,
    UserSearchQuerySerializer,
    UserStatsSerializer,
    XpLeaderboardQuerySerializer,
    XpLeaderboardRowSerializer,
)


def _target_id(request) -> int:
    """``user_id`` from the body, or from the query string (some clients send no body with DELETE)."""
    data = request.data if isinstance(request.data, dict) and request.data else request.query_params
    ser = FriendTargetSerializer(data={"user_id": data.get("user_id")})
    ser.is_valid(raise_exception=True)
    return ser.validated_data["user_id"]


class FriendsApi(APIView):
    """Friends and friend requests of the caller (guests included)."""

    @extend_schema(responses={200: FriendsSerializer}, operation_id="friends_list")
    def get(self, request):
        return Response(FriendsSerializer(selectors.friends_for_user(request.user)).data)

    @extend_schema(request=FriendAddSerializer, responses={200: FriendAnswerSerializer, 201: FriendAnswerSerializer,
                                                           **errors(400, 401, 404)},
                   operation_id="friends_add")
    def post(self, request):
        ser = FriendAddSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        if "code" in ser.validated_data:
            other, changed = services.friend_add_by_code(user=request.user, code=ser.validated_data["code"])
            result = "friends"
        else:
            result, changed = services.friend_request_send(user=request.user,
                                                           to_user_id=ser.validated_data["user_id"])
            other = get_user_model().objects.get(id=ser.validated_data["user_id"])
        body = {"status": result, "player": selectors.player_of(other)}
        return Response(FriendAnswerSerializer(body).data, status=status.HTTP_201_CREATED if changed else 200)

    @extend_schema(request=FriendTargetSerializer,
                   responses={204: None, **errors(404, s404="not_found: no such user")}, operation_id="friends_remove",
                   parameters=[OpenApiParameter("user_id", OpenApiTypes.INT, required=False,
                                                description="Instead of the body.")])
    def delete(self, request):
        services.friend_remove(user=request.user, other_user_id=_target_id(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


def _friend_code_body(row, request) -> dict:
    """``{code, url}``; the link's base is ``PUBLIC_URL`` when set, else the address the request came to
    (as the rooms' ``invite_url``), and the web client at ``/friend/<code>`` handles it."""
    return {"code": row.code, "url": public_link(f"/friend/{row.code}", request_base_url(request))}


class FriendCodeApi(APIView):
    """The caller's friend code and link: whoever uses it (``POST /api/friends {code}``) becomes a friend at
    once. ``POST`` renews it (the old code stops working)."""

    @extend_schema(responses={200: FriendCodeSerializer, **errors(401)}, operation_id="friend_code_get")
    def get(self, request):
        return Response(_friend_code_body(services.friend_code_get(user=request.user), request))

    @extend_schema(request=None, responses={201: FriendCodeSerializer, **errors(401)},
                   operation_id="friend_code_renew")
    def post(self, request):
        row = services.friend_code_get(user=request.user, renew=True)
        return Response(_friend_code_body(row, request), status=status.HTTP_201_CREATED)


class UsersSearchApi(APIView):
    """Find players to befriend by username or display name (``?search=``, 1-50 characters)."""

    @extend_schema(parameters=[UserSearchQuerySerializer],
                   responses={200: UserSerializer(many=True), **errors(400, 401)}, operation_id="users_search")
    def get(self, request):
        q = UserSearchQuerySerializer(data=request.query_params)
        q.is_valid(raise_exception=True)
        found = selectors.users_search(text=q.validated_data["search"], user=request.user)
        return Response(UserSerializer(found, many=True).data)


class QueueApi(APIView):
    """The ranked queue among friends: join, look, leave."""

    @extend_schema(responses={200: QueueStatusSerializer}, operation_id="queue_status")
    def get(self, request):
        return Response(QueueStatusSerializer(selectors.queue_status(request.user)).data)

    @extend_schema(request=QueueJoinSerializer, responses={201: QueueStatusSerializer, **errors(400, 401, 403)},
                   operation_id="queue_join")
    def post(self, request):
        if getattr(request.user, "is_guest", False):
            raise ApiError("registration_required", "Ranked play needs a registered account.", 403)
        ser = QueueJoinSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        services.queue_join(user=request.user, **ser.validated_data)
        return Response(QueueStatusSerializer(selectors.queue_status(request.user)).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None}, operation_id="queue_leave")
    def delete(self, request):
        services.queue_leave(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeaderboardPagination(PageNumberPagination):
    """50 rows a page; ``page_size`` up to 100."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 100


def _board_page(view, request, rows, serializer_class) -> Response:
    """One page (``?page=``, ``?page_size=``) of a leaderboard's ``rows``, serialised; 404 past the last."""
    paginator = view.pagination_class()
    page = paginator.paginate_queryset(rows, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)


class LeaderboardApi(APIView):
    """Players with at least one rated game of ``game``, best rating first; ``scope=friends``: the caller
    and its friends."""

    pagination_class = LeaderboardPagination

    @extend_schema(parameters=[LeaderboardQuerySerializer,
                               OpenApiParameter("page", OpenApiTypes.INT, required=False),
                               OpenApiParameter("page_size", OpenApiTypes.INT, required=False)],
                   responses={200: LeaderboardRowSerializer(many=True),
                              **errors(404, s404="not_found: a page past the last one")}, operation_id="leaderboard")
    def get(self, request):
        q = LeaderboardQuerySerializer(data=request.query_params)
        q.is_valid(raise_exception=True)
        return _board_page(self, request, selectors.leaderboard(user=request.user, **q.validated_data), LeaderboardRowSerializer)


def _user_or_404(user_id: int):
    user = get_user_model().objects.filter(id=user_id).first() if 0 < user_id <= MAX_ID else None
    if user is None:
        raise ApiError("not_found", "No such user.", 404)
    return user


class XpLeaderboardApi(APIView):
    """Players (guests included) by experience: all-time or this week's XP (games plus achievement and
    challenge grants), most first, with their level; ``scope=friends``: the caller and its friends."""

    pagination_class = LeaderboardPagination

    @extend_schema(parameters=[XpLeaderboardQuerySerializer,
                               OpenApiParameter("page", OpenApiTypes.INT, required=False),
                               OpenApiParameter("page_size", OpenApiTypes.INT, required=False)],
                   responses={200: XpLeaderboardRowSerializer(many=True),
                              **errors(400, 401, 404, s404="not_found: a page past the last one")},
                   operation_id="leaderboard_xp")
    def get(self, request):
        q = XpLeaderboardQuerySerializer(data=request.query_params)
        q.is_valid(raise_exception=True)
        return _board_page(self, request, selectors.xp_leaderboard(user=request.user, **q.validated_data), XpLeaderboardRowSerializer)


class AchievementsApi(APIView):
    """Every achievement: its name, its condition in words, the XP it grants and its progress target, in
    the request's language. Public."""

    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    @extend_schema(responses={200: AchievementEntrySerializer(many=True)}, operation_id="achievements",
                   auth=[], parameters=[ACCEPT_LANGUAGE])
    def get(self, request):
        return Response(AchievementEntrySerializer(selectors.achievement_catalogue(), many=True).data)


class UserAchievementProgressApi(APIView):
    """Every achievement with a player's progress toward it (e.g. 3 of 10 games), earned or locked."""

    @extend_schema(responses={200: AchievementProgressSerializer(many=True), **errors(401, 404)},
                   operation_id="user_achievements_progress", parameters=[ACCEPT_LANGUAGE])
    def get(self, request, user_id: int):
        rows = selectors.user_achievement_progress(_user_or_404(user_id))
        return Response(AchievementProgressSerializer(rows, many=True).data)


class UserStatsApi(APIView):
    """A player's games, wins, draws, losses, per-game counts, rating history, XP and level."""

    @extend_schema(responses={200: UserStatsSerializer}, operation_id="user_stats")
    def get(self, request, user_id: int):
        return Response(UserStatsSerializer(selectors.user_stats(_user_or_404(user_id))).data)


class UserAchievementsApi(APIView):
    """The achievements a player holds, in the order they were awarded."""

    @extend_schema(responses={200: AwardSerializer(many=True)}, operation_id="user_achievements")
    def get(self, request, user_id: int):
        return Response(AwardSerializer(selectors.user_achievements(_user_or_404(user_id)), many=True).data)
