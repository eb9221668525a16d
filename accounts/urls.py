from django.urls import path

from accounts import apis

urlpatterns = [
    path("auth/guest", apis.GuestApi.as_view(), name="auth-guest"),
    path("auth/register", apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/login", apis.LoginApi.as_view(), name="auth-login"),
    path("auth/logout", apis.LogoutApi.as_view(), name="auth-logout"),
    path("me", apis.MeApi.as_view(), name="me"),
]
