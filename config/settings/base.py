"""Settings shared by every environment, all read from the environment (django-environ).

Variables (README.md lists them): DATABASE_URL, REDIS_URL, SECRET_KEY, DEBUG, ALLOWED_HOSTS,
CSRF_TRUSTED_ORIGINS, CORS_ALLOWED_ORIGINS, PUBLIC_URL, AWAY_GRACE_SECONDS, CELERY_TASK_ALWAYS_EAGER, DATABASE_POOL,
DATABASE_POOL_MAX_SIZE, DATABASE_POOL_MIN_SIZE, DATABASE_POOL_TIMEOUT, CONN_MAX_AGE, WEB_REQUEST_SLOTS,
WEB_REQUEST_SLOT_WAIT_SECONDS, LOG_FORMAT, LOG_LEVEL, METRICS_TOKEN, VOICE_ICE_SERVERS, VOICE_SIGNAL_MAX_BYTES,
VOICE_SIGNAL_BURST, VOICE_SIGNAL_PER_SECOND, VOICE_JOIN_COST.

No ``.env`` file is read: the environment is the process's own. ``.env`` is docker compose's (its
``env_file``), whose hosts (``postgres``, ``redis``) exist only inside compose; reading it here made
``make run`` and ``make test`` fail once an operator had copied ``.env.example`` (issue 15).
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from config.settings.checks import parse_ice_servers

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="insecure-development-key-change-me")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Web clients on other sites (scheme://host[:port]) that may call the API and open sockets with a token
# (django-cors-headers; no cookies cross-site: a token travels in the Authorization header).
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_URLS_REGEX = r"^/(api/|healthz$)"
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = ["Retry-After"]
CORS_PREFLIGHT_MAX_AGE = 3600
# Where clients reach the service, the base of the rooms' invite links; empty: the address each request
# (or socket) came to, so the link works however the service is reached.
PUBLIC_URL = env("PUBLIC_URL", default="").rstrip("/")

INSTALLED_APPS = [
    "config.apps.ChinchiConfig",  # start-up hooks: Python warnings into logging, STARTUP_WARNINGS logged
    "moderation.admin_config.ChinchiAdminConfig",  # django.contrib.admin with the moderators' site (dashboard)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc served from our own static files, no CDN
    "channels",
    "auditlog",
    "axes",
    "corsheaders",
    "accounts",
    "games",
    "rooms",
    "ranking",
    "coins",
    "moderation",
    "tournaments",
    "notify",
    "web",
]

MIDDLEWARE = [
    "config.metrics.MetricsMiddleware",  # first: counts and times every answer (GET /metrics)
    # /healthz answers whatever the Host (a balancer probes a replica by its address); before any Host check.
    "config.health_middleware.HealthzMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.BodySizeLimitMiddleware",
    "web.middleware.PageGZipMiddleware",  # the page's own files gzipped (not the API); outside WhiteNoise
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Admin login throttling (django-axes): after every middleware that can answer, as its documentation
    # asks (it only turns a response into its lock-out page once authentication flagged the request).
    "axes.middleware.AxesMiddleware",
    # Sync-only, and innermost on purpose: under ASGI Django runs each middleware async for as long as the
    # ones inside it can, and Django's own (MiddlewareMixin) then hop to a thread for every
    # process_request/process_response. With a sync-only middleware last, the whole chain runs in the
    # request's one thread, and Django switches between the event loop and that thread only once around
    # it and once for the view (tests/ops/test_middleware_mode.py; about 1.3 ms of CPU a request here).
    # The actor of the audit trail (request.user) is set by then.
    "auditlog.middleware.AuditlogMiddleware",
]

# django-axes watches the admin's login only (the API login has its own DRF throttle): its backend skips
# calls without a request (the test client's login, management commands), its handler records admin
# logins only. AXES_FAILURE_LIMIT failures from one address lock it out for AXES_COOLOFF_MINUTES.
AUTHENTICATION_BACKENDS = [
    "moderation.axes.AdminLoginAxesBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "moderation.axes.AdminLoginAxesHandler"
AXES_ONLY_ADMIN_SITE = True
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_MINUTES", default=15.0) / 60  # hours
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_CLIENT_IP_CALLABLE = "accounts.apis.client_address"  # NUM_PROXIES decides, as for the API's throttles
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # successful logins are not stored; failures are (admin "Access attempts")


ROOT_URLCONF = "config.urls"
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"  # JSON in the API's error shape under /api/
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "config" / "templates"],  # api_docs/: the ReDoc page without third-party fonts
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]



DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (server, worker, beat) share the file: wait for locks instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
elif env.bool("DATABASE_POOL", default=True):
    # Persistent connections through psycopg's pool (Django 5.1+): under ASGI each request runs its sync
    # code in a thread of its own (asgiref's thread-sensitive context), so CONN_MAX_AGE > 0 would leave one
    # open connection behind per thread (bench/README.md "Server": 16 concurrent games exhausted
    # PostgreSQL's 100 connections); a pool hands a connection back when the request ends and caps the
    # process at DATABASE_POOL_MAX_SIZE, the others waiting up to DATABASE_POOL_TIMEOUT seconds.
    # README.md "Serving" has the history. The pool needs CONN_MAX_AGE 0.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # the pool checks a connection before lending it
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=1),
        "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=10),
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
        "max_idle": 300.0,
    }
else:
    # No pool (Celery processes, where one thread per process keeps one connection): CONN_MAX_AGE seconds.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Server-side binding (parameters sent apart from the SQL) lets psycopg prepare a statement a connection
    # has run DATABASE_PREPARE_THRESHOLD times: PostgreSQL then parses and plans it once, not at every run
    # (the action path's locked read spent about 1 ms planning each time; bench/README.md "Server").
    # Django's default, client-side binding, cannot prepare. README.md "Serving".
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = env.bool(
        "DATABASE_SERVER_SIDE_BINDING", default=True)
    # "none" (or empty) turns preparing off: behind a pooler that cannot carry prepared statements.
    _threshold = env.str("DATABASE_PREPARE_THRESHOLD", default="5").strip().lower()
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None if _threshold in ("", "none") else int(_threshold)

# Requests of one server process running Django at once (config.asgi.SlottedASGIHandler); the others wait
# on the event loop. 0: no limit. README.md "Serving".
WEB_REQUEST_SLOTS = env.int("WEB_REQUEST_SLOTS", default=8)
if WEB_REQUEST_SLOTS < 0:
    raise ImproperlyConfigured("WEB_REQUEST_SLOTS must be 0 (no limit) or more")
# Seconds a request waits for a slot before it is answered 503 unavailable (as for a database connection).
WEB_REQUEST_SLOT_WAIT_SECONDS = env.float("WEB_REQUEST_SLOT_WAIT_SECONDS", default=10.0)
if WEB_REQUEST_SLOT_WAIT_SECONDS <= 0:
    raise ImproperlyConfigured("WEB_REQUEST_SLOT_WAIT_SECONDS must be more than 0")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# Server texts (chat phrases, achievements, error details, the games catalogue) in the games' own
# languages, picked from Accept-Language by LocaleMiddleware; translations in locale/ (domain django).
LANGUAGES = [("en", "English"), ("es", "Español"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env("STATIC_ROOT", default=None)  # collectstatic's target (production: staticfiles/)
# The ASGI server serves no files itself: WhiteNoise serves the admin's and the browsable API's assets,
# straight from the apps (no collectstatic needed) unless WHITENOISE_USE_FINDERS is turned off.
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=True)

# Bodies over 64 KiB are refused with 413 too_large (API.md "Errors").
MAX_BODY_BYTES = 64 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY_BYTES

REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6379/0")

# django-redis, not Django's own RedisCache: Django makes a cache object per thread and per async context,
# so under ASGI every request got a cache of its own, with a connection pool of its own, and opened a new
# Redis connection for its throttle or presence write (Django ticket #35651). django-redis keeps one pool
# per process for all of them. A Redis error is raised as redis-py's own (config.errors: 503 unavailable).
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
    }
}

# The channel layer (README "Architecture"): ``pubsub`` (default) is channels-redis' Redis pub/sub layer
# (``config.channel_layer``, which publishes a batch of group messages in one round trip): one PUBLISH per
# group message, pushed to every server process subscribed to the group, no per-channel queues to fill or
# expire; ``core`` is its list-based layer (per-channel queues, capacity and expiry).
CHANNEL_LAYER = env("CHANNEL_LAYER", default="pubsub")
if CHANNEL_LAYER not in ("pubsub", "core"):
    raise ImproperlyConfigured("CHANNEL_LAYER must be pubsub or core")
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "config.channel_layer.PubSubLayer",
        "CONFIG": {"hosts": [REDIS_URL]},
    } if CHANNEL_LAYER == "pubsub" else {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "capacity": 1000, "expiry": 30},
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.StandingTokenAuthentication",
        "accounts.authentication.StandingSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.StrictJSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_SCHEMA_CLASS": "config.schema.ApiAutoSchema",  # + the framework's error answers
    "EXCEPTION_HANDLER": "config.errors.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "guest": env("THROTTLE_GUEST", default="30/min"),
        "login": env("THROTTLE_LOGIN", default="10/min"),
        "register": env("THROTTLE_REGISTER", default="30/min"),
        "chat": env("THROTTLE_CHAT", default="5/10s"),
        "report": env("THROTTLE_REPORT", default="10/hour"),
        "room_create": env("THROTTLE_ROOM_CREATE", default="60/hour"),
        # Room-code look-ups (GET /api/rooms/{code}, join; misses of the other room endpoints).
        "room_lookup": env("THROTTLE_ROOM_LOOKUP", default="30/min"),
        "room_lookup_address": env("THROTTLE_ROOM_LOOKUP_ADDRESS", default="120/min"),
    },
    # Proxies in front of the server whose X-Forwarded-For entries are trusted (0: the peer address is the
    # client; a client cannot pick its own address for throttles and IP blocks by sending the header).
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
}

# API tokens (accounts.tokens; docs/moderation.md "Tokens"): a registered player's token unused for this many
# days is over (a guest's lives as long as the guest); its last use is written at most this often.
TOKEN_IDLE_DAYS = env.int("TOKEN_IDLE_DAYS", default=30)
TOKEN_TOUCH_SECONDS = env.int("TOKEN_TOUCH_SECONDS", default=3600)

# Alternate accounts (accounts.traces; docs/moderation.md): addresses and page device ids of sign-ups,
# logins and sockets are personal data kept this many days. IP blocks wider than these prefixes are refused.
TRACE_DAYS = env.int("TRACE_DAYS", default=30)
IP_BLOCK_MIN_PREFIX_V4 = env.int("IP_BLOCK_MIN_PREFIX_V4", default=16)
IP_BLOCK_MIN_PREFIX_V6 = env.int("IP_BLOCK_MIN_PREFIX_V6", default=48)

# Moderators' coin adjustments (coins.grants; docs/moderation.md): at most this many coins in one
# adjustment and in all in one UTC day per moderator; larger ones are a superuser's.
COIN_GRANT_MAX = env.int("COIN_GRANT_MAX", default=10_000)
COIN_GRANT_DAILY_MAX = env.int("COIN_GRANT_DAILY_MAX", default=50_000)

SPECTACULAR_SETTINGS = {
    "TITLE": "Chinchi — Chinchirorin and Chinchón online",
    "DESCRIPTION": "Play Chinchirorin and Chinchón with friends; CPU seats fill in. See API.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs pages load Swagger UI and ReDoc from drf-spectacular-sidecar's static files (WhiteNoise),
    # so /api/docs/ and /api/redoc/ work offline and their versions are pinned by the package.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {"ReportReasonEnum": "moderation.models.Report.Reason", "ReportKindEnum": "moderation.models.Report.Kind"},
}

# Celery: JSON only, time limits, tasks discovered from the apps.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL)
# No result backend unless one is given: nothing reads a task's result (below). Celery still builds the
# backend to hand back each enqueue's AsyncResult, once per thread, and a request has a thread of its own:
# Redis' took 0.9 ms of CPU per enqueue from a new thread, the disabled one 0.25 (bench/README.md "Server").
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=None)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = 30
CELERY_TASK_SOFT_TIME_LIMIT = 25
if CELERY_RESULT_BACKEND:  # without a backend, Celery beat would schedule a daily cleanup that does nothing
    CELERY_RESULT_EXPIRES = 3600
# Nothing reads a task's result (timers, CPU moves, ratings act on the database): none is stored. Enqueuing
# then skips the backend's per-task set-up: 4.5 -> 2.5 ms of CPU per enqueue from a request's thread; the
# backend Celery still builds for the AsyncResult it returns is the disabled one above (bench/README.md
# "Server").
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery 5.6+ closes Django's database connections before and after EVERY task, whatever CONN_MAX_AGE says
# (its Django fixup; celery/celery#9824 reverted the change that honoured it): a PostgreSQL session was opened
# for every task, the sweeper's one a second included. A reuse count it never reaches turns that off;
# config.celery_app closes old connections around each task as Django does around a request instead
# (CONN_MAX_AGE and CONN_HEALTH_CHECKS honoured).
CELERY_DB_REUSE_MAX = 2**62
CELERY_TIMEZONE = "UTC"
# Exactly one beat sends the schedule: a second one idles until the first's lock in Redis is gone
# (config/beat.py; BEAT_LOCK_SECONDS: how long a dead holder's lock outlives it).
CELERY_BEAT_SCHEDULER = "config.beat:SingleBeatScheduler"
BEAT_LOCK_SECONDS = env.float("BEAT_LOCK_SECONDS", default=10.0)
if BEAT_LOCK_SECONDS < 1:
    raise ImproperlyConfigured("BEAT_LOCK_SECONDS must be 1 or more")
BEAT_LOCK_KEY = env("BEAT_LOCK_KEY", default="chinchi:beat-lock")
CELERY_BEAT_SCHEDULE: dict = {
    # Every 10 s: tournaments whose start time has come, tables whose game end was not handed over.
    "tournaments-sweep": {"task": "tournaments.tasks.sweep", "schedule": 10.0, "options": {"expires": 20.0}},
    # Every second: overdue deadlines and due CPU moves whose task was lost; the outage heartbeat.
    "games-sweep": {"task": "games.tasks.sweep", "schedule": 1.0, "options": {"expires": 2.0}},
    # Every minute: delete expired ranked-queue entries (expired ones are never matched anyway).
    "ranking-queue-expire": {"task": "ranking.queue_expire", "schedule": 60.0, "options": {"expires": 55.0}},
    # Every ten minutes: mark rooms idle for 24 h closed (their codes already answer 404).
    "rooms-close-idle": {"task": "rooms.close_idle_rooms", "schedule": 600.0, "options": {"expires": 590.0}},
    # Every hour: delete the address / device traces older than TRACE_DAYS (personal data).
    "accounts-traces-purge": {"task": "accounts.traces_purge", "schedule": 3600.0, "options": {"expires": 3500.0}},
}

# Seconds a seat whose last socket closed stays present before the CPU plays for it (DESIGN.md).
AWAY_GRACE_SECONDS = env.float("AWAY_GRACE_SECONDS", default=10.0)

# Prometheus metrics (config/metrics.py): GET /metrics with "Authorization: Bearer <METRICS_TOKEN>";
# without METRICS_TOKEN the endpoint is off (404). Multi-process: PROMETHEUS_MULTIPROC_DIR (README.md).
METRICS_TOKEN = env("METRICS_TOKEN", default="")

# Voice at the table (docs/voice.md): the ICE servers handed to the clients (GET /api/rooms/{code}/voice),
# a JSON list of {urls, username?, credential?}; none (default): host candidates only (a LAN, one machine).
VOICE_ICE_SERVERS = parse_ice_servers(env("VOICE_ICE_SERVERS", default="[]"))
# A voice signalling message's most bytes (its JSON), and the per-socket rate of voice messages: a bucket
# of VOICE_SIGNAL_BURST messages refilled at VOICE_SIGNAL_PER_SECOND (a voice_join costs VOICE_JOIN_COST).
VOICE_SIGNAL_MAX_BYTES = env.int("VOICE_SIGNAL_MAX_BYTES", default=16 * 1024)
VOICE_SIGNAL_BURST = env.int("VOICE_SIGNAL_BURST", default=120)
VOICE_SIGNAL_PER_SECOND = env.float("VOICE_SIGNAL_PER_SECOND", default=12.0)
VOICE_JOIN_COST = env.int("VOICE_JOIN_COST", default=20)

# LOG_FORMAT: "plain" (default) or "json" (one JSON object a line; game lines carry game_id and seq).
LOG_FORMAT = env("LOG_FORMAT", default="plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_tokens": {"()": "config.logfilters.RedactTokens"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "pythonjsonlogger.json.JsonFormatter",
                 "format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
                 "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"}},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain",
                             "filters": ["redact_tokens"]}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Django's own console handler (DEBUG only) would print every django.* line a second time through
        # the root handler: the root prints them once.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        # Celery's pool (billiard) logs to "multiprocessing" with propagation off ("Process 'ForkPoolWorker-1'
        # exited with signal 15"): without a handler of its own Python's last resort prints it as plain text.
        "multiprocessing": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}

# Web Push (docs/party.md "Web Push"): the VAPID key (PEM or base64url raw; empty: a development key is
# generated once into VAPID_KEY_FILE), the contact sent to push services, and where subscriptions may point
# (the server posts to them: https on the browsers' push services only).
VAPID_PRIVATE_KEY = env("VAPID_PRIVATE_KEY", default="")
VAPID_KEY_FILE = env("VAPID_KEY_FILE", default=str(BASE_DIR / ".vapid-dev.pem"))
VAPID_SUBJECT = env("VAPID_SUBJECT", default="mailto:admin@localhost")
PUSH_ENDPOINT_SCHEMES = env.list("PUSH_ENDPOINT_SCHEMES", default=["https"])
PUSH_ENDPOINT_HOSTS = env.list("PUSH_ENDPOINT_HOSTS", default=[
    "fcm.googleapis.com", "updates.push.services.mozilla.com", "push.apple.com", "notify.windows.com"])
