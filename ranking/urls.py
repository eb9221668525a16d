"""URLs of the ranking API; included under ``api/`` by config/urls.py."""

from django.urls import path

from ranking import apis, history

urlpatterns = [
    path("friends", apis.FriendsApi.as_view(), name="friends"),
    path("me/games", history.MyGamesApi.as_view(), name="me-games"),
    path("me/friend-code", apis.FriendCodeApi.as_view(), name="friend-code"),
    path("users", apis.UsersSearchApi.as_view(), name="users-search"),
    path("queue", apis.QueueApi.as_view(), name="queue"),
    path("leaderboard", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("leaderboard/xp", apis.XpLeaderboardApi.as_view(), name="leaderboard-xp"),
    path("achievements", apis.AchievementsApi.as_view(), name="achievements"),
    path("users/<int:user_id>/stats", apis.UserStatsApi.as_view(), name="user-stats"),
    path("users/<int:user_id>/achievements", apis.UserAchievementsApi.as_view(), name="user-achievements"),
    path("users/<int:user_id>/achievements/progress", apis.UserAchievementProgressApi.as_view(),
         name="user-achievements-progress"),
]
