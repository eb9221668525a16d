"""URLs of the coins API; included under ``api/`` by config/urls.py."""

from django.urls import path

from coins import apis

urlpatterns = [
    path("me/wallet", apis.WalletApi.as_view(), name="me-wallet"),
    path("me/wallet/daily", apis.WalletDailyApi.as_view(), name="me-wallet-daily"),
    path("challenges", apis.ChallengesApi.as_view(), name="challenges"),
    path("challenges/<str:challenge_id>/claim", apis.ChallengeClaimApi.as_view(), name="challenge-claim"),
]
