"""URLs: the API under /api/, its schema and docs (Swagger UI and ReDoc from our own static files), the
admin, /healthz, /metrics, and the web client (``/``, ``/join/<code>``, ``/room/<code>``, ``/jsi18n/``,
``/i18n/setlang/``)."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from config.errors import handler404 as api_not_found
from config.health import healthz
from config.metrics import metrics_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="api_docs/redoc.html"),
         name="api-redoc"),
    path("api-auth/", include("rest_framework.urls")),
    path("api/", include("accounts.urls")),
    path("api/", include("rooms.urls")),
    path("api/games/", include("games.urls")),
    path("api/", include("ranking.urls")),
    path("api/", include("coins.urls")),
    path("api/", include("moderation.urls")),
    path("api/", include("tournaments.urls")),
    path("api/", include("notify.urls")),
    # Anything else under /api/ is a JSON 404 in the API's error shape, in DEBUG too.
    re_path(r"^api/(?!(docs|schema|redoc)$)", csrf_exempt(api_not_found)),  # /api/docs still redirects to /api/docs/
    path("", include("web.urls")),
]

handler400 = "config.errors.handler400"
handler403 = "config.errors.handler403"
handler404 = "config.errors.handler404"
handler500 = "config.errors.handler500"
