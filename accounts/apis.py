"""The Accounts API (API.md "Accounts"): guest, register, login, logout, me."""

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import services
from accounts.authentication import StandingTokenAuthentication
from accounts.serializers import (
    AuthAnswerSerializer,
    GuestSerializer,
    LoginSerializer,
    MeSerializer,
    RegisterSerializer,
    UserSerializer,
)
from accounts.throttles import GuestCreateThrottle, LoginThrottle, RegisterThrottle


def client_address(request) -> str | None:
    """The client's IP address: the peer's, or the one the trusted proxies (``NUM_PROXIES``) forwarded."""
    return BaseThrottle().get_ident(request)


def client_device(request) -> str:
    """The page's device id (header ``X-Device-Id``), or ``""`` (``accounts.traces``)."""
    return request.headers.get("X-Device-Id", "")


def _answer(user, token: str, code: int) -> Response:
    return Response({"user": UserSerializer(user).data, "token": token}, status=code)


class GuestApi(APIView):
    """Play as a guest with only a display name: no sign-up."""

    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []
    throttle_classes = [GuestCreateThrottle]

    @extend_schema(request=GuestSerializer, responses={201: AuthAnswerSerializer}, operation_id="auth_guest")
    def post(self, request):
        ser = GuestSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        user, token = services.user_create_guest(address=client_address(request), device=client_device(request),
                                                 **ser.validated_data)
        return _answer(user, token, status.HTTP_201_CREATED)


class RegisterApi(APIView):
    """Register an account; sent with a guest's token, the guest is upgraded and keeps its id."""

    permission_classes = [permissions.AllowAny]
    authentication_classes = [StandingTokenAuthentication]
    throttle_classes = [RegisterThrottle]

    @extend_schema(request=RegisterSerializer, responses={201: AuthAnswerSerializer}, operation_id="auth_register")
    def post(self, request):
        ser = RegisterSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        caller = request.user if request.user.is_authenticated else None
        sent = getattr(request.auth, "sent_key", None)  # the guest's own key, answered again
        user, token = services.user_register(guest=caller, address=client_address(request), guest_token=sent,
                                             device=client_device(request), **ser.validated_data)
        return _answer(user, token, status.HTTP_201_CREATED)


class LoginApi(APIView):
    """Log in with username and password; answers the user and its token."""

    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []
    throttle_classes = [LoginThrottle]

    @extend_schema(request=LoginSerializer, responses={200: AuthAnswerSerializer}, operation_id="auth_login")
    def post(self, request):
        ser = LoginSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        user, token = services.user_login(request=request, address=client_address(request),
                                          device=client_device(request), **ser.validated_data)
        return _answer(user, token, status.HTTP_200_OK)


class LogoutApi(APIView):
    """Log out: the token is revoked."""

    @extend_schema(request=None, responses={204: None}, operation_id="auth_logout")
    def post(self, request):
        services.user_logout(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    """The caller's account and ratings."""

    @extend_schema(responses={200: MeSerializer}, operation_id="me")
    def get(self, request):
        return Response(MeSerializer(request.user).data)
