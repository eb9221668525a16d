"""Request guards that must run before any view."""

from django.conf import settings
from django.http import JsonResponse


class BodySizeLimitMiddleware:
    """Refuse a body over ``settings.MAX_BODY_BYTES`` (64 KiB) with 413 ``too_large`` before parsing."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse({"code": "parse_error", "detail": "Bad Content-Length."}, status=400)
        if length > settings.MAX_BODY_BYTES:
            return JsonResponse(
                {"code": "too_large", "detail": f"Request body over {settings.MAX_BODY_BYTES // 1024} KiB."},
                status=413,
            )
        return self.get_response(request)
