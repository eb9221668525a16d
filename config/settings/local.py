"""Development settings: `make run` uses these (DEBUG on unless the environment says otherwise)."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env

DEBUG = env.bool("DEBUG", default=True)
