"""Compression of the page's own files: its HTML, its script texts (``/jsi18n/``), the service worker and
manifest, and its static files (``/static/web/``), gzip when the browser accepts it (Django's
GZipMiddleware); the API, the admin and everything else are left as they are."""

from django.conf import settings
from django.middleware.gzip import GZipMiddleware

from web.urls import PAGE_PREFIXES


class PageGZipMiddleware(GZipMiddleware):
    """GZipMiddleware for the page's paths only. Placed before WhiteNoise, so its static files pass
    through it."""

    def process_response(self, request, response):
        path = request.path
        static = "/" + settings.STATIC_URL.lstrip("/") + "web/"
        if path == "/" or path.startswith(static) or path.startswith(PAGE_PREFIXES):
            return super().process_response(request, response)
        return response
