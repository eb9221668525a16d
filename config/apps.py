"""The project's own start-up hooks (``config.apps.ChinchiConfig`` in ``INSTALLED_APPS``), run by every
process once Django's logging is configured: Python warnings go through logging (so under
``LOG_FORMAT=json`` they are JSON lines too), and each message of ``settings.STARTUP_WARNINGS`` (e.g.
production's insecure-cookie escape hatch) is logged as a WARNING by the ``chinchi.startup`` logger."""

import logging

from django.apps import AppConfig
from django.conf import settings

logger = logging.getLogger("chinchi.startup")


class ChinchiConfig(AppConfig):
    name = "config"
    label = "chinchi_config"
    verbose_name = "Chinchi configuration"

    def ready(self) -> None:
        logging.captureWarnings(True)
        for message in getattr(settings, "STARTUP_WARNINGS", ()):
            logger.warning(message)
