"""The admin site moderators work in: Django's admin with the dashboard at its front page
(``moderation/dashboard.html``, figures from :func:`moderation.dashboard.dashboard_data`)."""

from django.contrib import admin

from moderation.dashboard import dashboard_data


class ModerationSite(admin.AdminSite):
    """``/admin/``: the stock admin, titled for the service, its index page showing the dashboard above the
    list of models (the dashboard is for staff; each model still needs its own permission)."""

    site_header = "Chinchi moderation"
    site_title = "Chinchi admin"
    index_title = "Dashboard"
    index_template = "moderation/dashboard.html"

    def index(self, request, extra_context=None):
        context = {"dashboard": dashboard_data(), **(extra_context or {})}
        return super().index(request, extra_context=context)
