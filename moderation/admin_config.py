"""``django.contrib.admin`` whose default site is :class:`moderation.sites.ModerationSite`: listed in
``INSTALLED_APPS`` instead of ``django.contrib.admin``, so every ``@admin.register`` lands on it."""

from django.contrib.admin.apps import AdminConfig


class ChinchiAdminConfig(AdminConfig):
    """The admin with the moderators' site (dashboard at the front page)."""

    default_site = "moderation.sites.ModerationSite"
