"""Test settings: DATABASE_URL and REDIS_URL from the environment when set (CI points them at the
machine's PostgreSQL and Redis); otherwise an in-memory SQLite database and in-memory channel layer and
cache, and the tests that need a real service are skipped (and named)."""

from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR, env

DEBUG = False
SECRET_KEY = "test-secret-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

if not env("DATABASE_URL", default=""):
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(BASE_DIR / "var" / "test.sqlite3")}}

REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": "test"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                                  "CONFIG": {"hosts": [REDIS_URL], "prefix": "test"}}}
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"

# Tasks run in-process unless a test starts a real worker (the worker gets CELERY_TASK_ALWAYS_EAGER=0 and its
# own queue, CELERY_TASK_DEFAULT_QUEUE; GAMES_TIME_SCALE shortens turn seconds for the timer tests).
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_TASK_DEFAULT_QUEUE", default="celery")
GAMES_TIME_SCALE = env.float("GAMES_TIME_SCALE", default=1.0)
CELERY_TASK_EAGER_PROPAGATES = True
VAPID_KEY_FILE = env("VAPID_KEY_FILE", default=str(BASE_DIR / "var" / "vapid-test.pem"))
