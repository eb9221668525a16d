"""The one page of the web client. Everything after the first load goes through the public API."""

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils import translation
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

PAGE_LANGUAGES = [("en", "English"), ("es", "Español"), ("ja", "日本語")]
"""The languages the page's own texts are written in (web/locale/); the first is the fallback."""


def page_language(request) -> str:
    """The page's language: the request's (the ``django_language`` cookie, else Accept-Language) when the
    page has it, else English."""
    language = translation.get_language_from_request(request)
    codes = [code for code, _ in PAGE_LANGUAGES]
    return language if language in codes else codes[0]


@require_safe
def page(request, code: str | None = None, game_id: str | None = None):
    """The client page (200 HTML, in :func:`page_language`); ``code``: a room to join (``/join/<code>``),
    reopen (``/room/<code>``) or watch (``/watch/<code>``); ``game_id``: a finished game to replay
    (``/replay/<id>``). The room is looked up by the script through the API, so an unknown code
    is answered there."""
    language = page_language(request)
    with translation.override(language):
        response = render(request, "web/app.html", {"languages": PAGE_LANGUAGES, "language": language})
    response.headers["Content-Language"] = language
    return response


_catalog = JavaScriptCatalog.as_view(packages=["web"])


@require_safe
def javascript_catalog(request, lang: str):
    """The page's texts for its script in ``lang`` (Django's JavaScript catalogue, domain djangojs): the
    language is in the URL, so the script's texts always match the page's, whatever the request says."""
    with translation.override(lang):
        return _catalog(request)


SHELL_STATIC = ["web/app.js", "web/cards.js", "web/style.css", "web/favicon.svg", "web/icon.svg", "web/icon-192.png",
                "web/icon-512.png"]
"""The page's own static files, kept by the service worker for the home-screen app and offline starts."""


@require_safe
def manifest(request):
    """The web app manifest (``application/manifest+json``): name, icons (192 and 512 px PNG, SVG), start
    URL ``/``, standalone display, colours; the description in :func:`page_language`."""
    language = page_language(request)
    with translation.override(language):
        description = translation.gettext("Chinchirorin and Chinchón with friends, free in the browser.")
    data = {
        "name": "Chinchi",
        "short_name": "Chinchi",
        "description": description,
        "lang": language,
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f4f1e8",
        "theme_color": "#145a32",
        "icons": [
            {"src": static("web/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": static("web/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": static("web/icon.svg"), "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
        ],
    }
    response = JsonResponse(data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False})
    response.headers["Cache-Control"] = "no-cache"
    return response


@lru_cache(maxsize=1)
def _shell_version() -> str:
    """A digest of the shell's static files and the page template: a new one installs a new worker,
    which replaces the old cache."""
    digest = hashlib.sha256()
    for name in SHELL_STATIC:
        path = finders.find(name)
        digest.update(Path(path).read_bytes() if path else name.encode())
    digest.update((Path(__file__).parent / "templates" / "web" / "app.html").read_bytes())
    return digest.hexdigest()[:16]


SERVICE_WORKER = """// Chinchi's service worker: keeps the page's own files (the shell, its static files and texts), never
// the API or the socket. Pages: network first, else the kept shell (which says it is offline).
const CACHE = "chinchi-shell-%(version)s";
const SHELL = %(shell)s;
self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(["/", ...SHELL])).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("chinchi-shell-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
const OWN = (url) => url.origin === self.location.origin && (url.pathname.startsWith("%(static)s") || url.pathname.startsWith("/jsi18n/"));
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (request.mode === "navigate") {
    if (url.origin !== self.location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/admin/")) return;
    event.respondWith(fetch(request).then((response) => {
      if (response.ok) { const copy = response.clone(); caches.open(CACHE).then((cache) => cache.put("/", copy)); }
      return response;
    }).catch(() => caches.match("/", { cacheName: CACHE })));
    return;
  }
  if (!OWN(url)) return;
  event.respondWith(caches.open(CACHE).then((cache) => cache.match(request).then((kept) => {
    const fresh = fetch(request).then((response) => {
      if (response.ok) cache.put(request, response.clone());
      return response;
    });
    return kept ? (fresh.catch(() => kept), kept) : fresh;
  })));
});
"""


@require_safe
def service_worker(request):
    """``/sw.js``: the service worker (scope ``/``), versioned by :func:`_shell_version`."""
    body = SERVICE_WORKER % {"version": _shell_version(), "shell": json.dumps([static(n) for n in SHELL_STATIC]),
                             "static": settings.STATIC_URL if settings.STATIC_URL.startswith("/") else "/" + settings.STATIC_URL}
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response
