"""URLs of the web client: the page at ``/``, ``/join/<code>`` (the rooms' ``invite_url``) and
``/room/<code>`` (the page of a room one holds a seat in), ``/watch/<code>`` (a room watched without a
seat), ``/replay/<id>`` (a finished game stepped through), the web app manifest and the service worker
(``/manifest.webmanifest``, ``/sw.js``), ``/friend/<code>`` (a friend link: the page
adds that friend through ``POST /api/friends {code}``), the page's translations for JavaScript and the
language switch."""

from django.urls import path, re_path
from django.views.i18n import set_language

from web import views

PAGE_PREFIXES = ("/join/", "/room/", "/watch/", "/replay/", "/friend/", "/jsi18n/", "/manifest.webmanifest", "/sw.js")
"""The paths (besides ``/``) that serve the page or its own files."""

urlpatterns = [
    path("", views.page, name="web-home"),
    re_path(r"^join/(?P<code>[A-Za-z0-9]{1,12})/?$", views.page, name="web-join"),
    re_path(r"^room/(?P<code>[A-Za-z0-9]{1,12})/?$", views.page, name="web-room"),
    re_path(r"^tournament/(?P<code>[A-Za-z0-9]{1,12})/?$", views.page, name="web-tournament"),
    re_path(r"^watch/(?P<code>[A-Za-z0-9]{1,12})/?$", views.page, name="web-watch"),
    re_path(r"^replay/(?P<game_id>[0-9]{1,18})/?$", views.page, name="web-replay"),
    path("manifest.webmanifest", views.manifest, name="web-manifest"),
    path("sw.js", views.service_worker, name="web-sw"),
    re_path(r"^friend/(?P<code>[A-Za-z0-9]{1,16})/?$", views.page, name="web-friend"),
    re_path(r"^jsi18n/(?P<lang>en|es|ja)/$", views.javascript_catalog, name="web-jsi18n"),
    path("i18n/setlang/", set_language, name="set_language"),
]
