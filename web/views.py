"""The one page of the web client. Everything after the first load goes through the public API."""

from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

PAGE_LANGUAGES = [("en", "English"), ("es", "Español")]
"""The languages the page's own texts are written in (web/locale/); the first is the fallback."""


def page_language(request) -> str:
    """The page's language: the request's (the ``django_language`` cookie, else Accept-Language) when the
    page has it, else English."""
    language = translation.get_language_from_request(request)
    codes = [code for code, _ in PAGE_LANGUAGES]
    return language if language in codes else codes[0]


@require_safe
def page(request, code: str | None = None):
    """The client page (200 HTML, in :func:`page_language`); ``code``: a room to join (``/join/<code>``)
    or reopen (``/room/<code>``). The room is looked up by the script through the API, so an unknown code
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
