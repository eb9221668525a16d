"""The coins API: ``GET /api/me/wallet`` (balance, daily grant, ledger pages) and ``POST
/api/me/wallet/daily`` (claim the daily grant). One API class per operation, thin over services and
selectors."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from coins import rules, selectors, services
from coins.serializers import (
    ChallengeClaimSerializer,
    ChallengesSerializer,
    DailyClaimSerializer,
    DailyGrantSerializer,
    LedgerEntrySerializer,
    WalletSerializer,
)
from config.schema import errors


class LedgerPagination(PageNumberPagination):
    """50 ledger rows a page; ``page_size`` up to 100."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 100


def _wallet_body(request, view) -> dict:
    wallet = services.wallet_of(user_id=request.user.pk)
    paginator = LedgerPagination()
    page = paginator.paginate_queryset(selectors.ledger_of(user_id=request.user.pk), request, view=view)
    ledger = paginator.get_paginated_response(LedgerEntrySerializer(page, many=True).data).data
    daily = DailyGrantSerializer(selectors.daily_grant_status(wallet=wallet)).data
    return {"balance": wallet.balance, "daily_grant": daily, "stakes": list(rules.STAKES), "ledger": ledger}


PAGE_PARAMS = [OpenApiParameter("page", OpenApiTypes.INT, required=False, description="Ledger page (1 = newest)."),
               OpenApiParameter("page_size", OpenApiTypes.INT, required=False, description="Rows a page, 1-100.")]


class WalletApi(APIView):
    """The caller's wallet: balance, the daily grant's status, the stake values, a page of the ledger."""

    @extend_schema(parameters=PAGE_PARAMS, responses={200: WalletSerializer, **errors(401, 403, 404)},
                   operation_id="me_wallet")
    def get(self, request):
        return Response(_wallet_body(request, self))


class WalletDailyApi(APIView):
    """Claim the daily grant: tops the wallet up to the daily amount, once per UTC day."""

    @extend_schema(request=None, responses={201: DailyClaimSerializer,
                                            **errors(401, 403, 409, s409="daily_grant_unavailable")},
                   operation_id="me_wallet_daily")
    def post(self, request):
        entry = services.wallet_claim_daily(user_id=request.user.pk)
        wallet = services.wallet_of(user_id=request.user.pk)
        body = {"balance": wallet.balance, "daily_grant": selectors.daily_grant_status(wallet=wallet), "entry": entry}
        return Response(DailyClaimSerializer(body).data, status=201)


class ChallengesApi(APIView):
    """The daily and weekly challenges active now, with the caller's progress."""

    @extend_schema(responses={200: ChallengesSerializer, **errors(401, 403)}, operation_id="challenges_list")
    def get(self, request):
        return Response(ChallengesSerializer({"challenges": selectors.challenge_rows(user_id=request.user.pk)}).data)


class ChallengeClaimApi(APIView):
    """Claim a completed challenge's reward (coins and XP), once per period."""

    @extend_schema(request=None, responses={
        201: ChallengeClaimSerializer,
        **errors(401, 403, 404, 409, s409="challenge_not_completed / challenge_claimed")}, operation_id="challenges_claim")
    def post(self, request, challenge_id: str):
        row, entry = services.challenge_claim(user_id=request.user.pk, challenge_id=challenge_id)
        body = {"challenge": row, "balance": entry.balance_after, "entry": entry}
        return Response(ChallengeClaimSerializer(body).data, status=201)
