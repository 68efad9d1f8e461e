"""The site: paths and secrets, front ends on other origins, Django, the database, static files,
production hardening, background work, logs and metrics."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from urllib.parse import urlsplit

from corsheaders.defaults import default_headers as cors_default_headers

from adrag_site.env import env_bool, env_float, env_int, env_list, env_str

# --- Paths and secrets ------------------------------------------------------------------------
BASE_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = Path(env_str("ADRAG_DATA_DIR", str(BASE_DIR / "var"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    """Return SECRET_KEY from the environment, or a generated key persisted under the data folder."""
    from_env = env_str("SECRET_KEY")
    if from_env:
        return from_env
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        # O_EXCL: two processes starting at once must agree on one key.
        try:
            fd = os.open(key_file, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            pass
        else:
            with open(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(50))
    for _ in range(50):
        key = key_file.read_text().strip()
        if key:
            return key
        time.sleep(0.05)
    raise RuntimeError(f"{key_file} is empty")


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])


# --- Front ends on other origins --------------------------------------------------------------
def _origin(url: str) -> str:
    """Return the origin (scheme://host[:port]) of a URL such as FRONTEND_URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else url


# Front ends on other origins (django-cors-headers, /api/ only): CORS_ALLOWED_ORIGINS and the
# origin of FRONTEND_URL. They may send the session cookie (credentials), so their POSTs must
# pass Django's CSRF origin check too: they are trusted origins. Such a front end takes the
# CSRF token from GET /api/csrf, since a page cannot read another host's cookies.
FRONTEND_URL = env_str("FRONTEND_URL")
CORS_ALLOWED_ORIGINS = list(
    dict.fromkeys(
        env_list("CORS_ALLOWED_ORIGINS") + ([_origin(FRONTEND_URL)] if FRONTEND_URL else [])
    )
)
CORS_ALLOW_CREDENTIALS = env_bool("CORS_ALLOW_CREDENTIALS", True)
CORS_URLS_REGEX = r"^/api/"
CORS_ALLOW_HEADERS = (*cors_default_headers, "last-event-id", "x-request-id")
CORS_EXPOSE_HEADERS = [
    "X-Run-Id",
    "X-Request-ID",
    "Retry-After",
    "X-Conversation-Id",
    "X-Rerun-Of",
]
CSRF_TRUSTED_ORIGINS = list(dict.fromkeys(env_list("CSRF_TRUSTED_ORIGINS") + CORS_ALLOWED_ORIGINS))
# Lax (the default) sends the cookies to a front end on the same site (app.example.com and
# api.example.com); one on another site needs None, which browsers accept only with Secure.
SESSION_COOKIE_SAMESITE = env_str("SESSION_COOKIE_SAMESITE", "Lax")
CSRF_COOKIE_SAMESITE = env_str("CSRF_COOKIE_SAMESITE", "Lax")


# --- Django -----------------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "mozilla_django_oidc",
    "procrastinate.contrib.django",
    "adrag_site",
    "providers",
    "knowledge",
    "queries",
]

MIDDLEWARE = [
    "adrag_site.middleware.RequestIdMiddleware",
    # Before anything that may answer, so that errors and preflights carry the CORS headers.
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "adrag_site.middleware.ApiInvalidCharactersMiddleware",
    "adrag_site.middleware.ApiJsonErrorMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "adrag_site.middleware.ApiAuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "adrag_site.middleware.ContentSecurityPolicyMiddleware",
    # Last, so that it turns a locked-out sign-in into the lockout page whoever answered it.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "adrag_site.urls"
ASGI_APPLICATION = "adrag_site.asgi.application"
WSGI_APPLICATION = "adrag_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "knowledge.context_processors.stores",
                "queries.context_processors.pipeline",
            ],
        },
    },
]


# --- The database -----------------------------------------------------------------------------
def _pool_options() -> dict:
    # Under ASGI each request runs its sync code on a thread of its own; a pool per process
    # makes a burst of requests wait for a connection instead of exhausting the server.
    return {
        "min_size": env_int("DB_POOL_MIN", 1),
        "max_size": env_int("DB_POOL_MAX", 20),
        "timeout": env_float("DB_POOL_TIMEOUT", 30.0),
    }


def _databases() -> dict:
    url = env_str("DATABASE_URL")
    if url:
        import dj_database_url

        config = dj_database_url.parse(url, conn_max_age=0, conn_health_checks=True)
        config.setdefault("OPTIONS", {})["pool"] = _pool_options()
        if env_str("ADRAG_TEST_DB_NAME"):
            config["TEST"] = {"NAME": env_str("ADRAG_TEST_DB_NAME")}
        return {"default": config}
    name = env_str("ADRAG_DB_NAME", "adrag")
    return {
        "default": {
            # The embedded server starts on the first connection (adrag_site/db_backend).
            "ENGINE": "adrag_site.db_backend",
            "EMBEDDED": True,
            "EMBEDDED_NAME": name,
            "NAME": name,
            "USER": "postgres",
            "PASSWORD": "",
            "HOST": "",
            "PORT": "",
            "CONN_MAX_AGE": 0,
            # Pooled connections are checked when taken: after a database restart the dead
            # ones are dropped instead of failing the next request.
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {"pool": _pool_options()},
            # Two test runs at once (say, two checkouts) need two test databases.
            "TEST": {"NAME": env_str("ADRAG_TEST_DB_NAME", f"test_{name}")},
        }
    }


DATABASES = _databases()
# Retrieval's reads (knowledge/retrieval/db.py) go to a read replica when one is named here.
if env_str("RETRIEVAL_DATABASE_URL"):
    import dj_database_url

    DATABASES["retrieval"] = dj_database_url.parse(
        env_str("RETRIEVAL_DATABASE_URL"), conn_max_age=0, conn_health_checks=True
    )
    DATABASES["retrieval"].setdefault("OPTIONS", {})["pool"] = _pool_options()
    # Tests read the test database through this alias as well.
    DATABASES["retrieval"]["TEST"] = {"MIRROR": "default"}
RETRIEVAL_DATABASE = "retrieval" if "retrieval" in DATABASES else "default"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# --- Language and static files ----------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
MEDIA_ROOT = Path(env_str("ADRAG_MEDIA_ROOT", str(DATA_DIR / "media"))).resolve()


# --- Production hardening ---------------------------------------------------------------------
# Production hardening, all from the environment (off by default for the localhost default).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# The proxies whose X-Forwarded-For/-Proto the web server trusts (comma-separated addresses or
# networks, or "*"): none by default, as `make run` serves browsers directly.
FORWARDED_ALLOW_IPS = env_str("FORWARDED_ALLOW_IPS", "")
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "adrag_site.errors.csrf_failure"


# --- Background work and logs -----------------------------------------------------------------
# Background work (Procrastinate). The worker command uses a LISTEN/NOTIFY connector of its own.
# Frequent heartbeats let a dead worker's run be marked interrupted within seconds.
# `runportal` runs query runs and ingestion in separate workers, so a pile of uploads never
# holds the slots a query needs; an ingest worker takes this many files at once.
INGEST_WORKER_CONCURRENCY = env_int("INGEST_WORKER_CONCURRENCY", 1)
PROCRASTINATE_WORKER_DEFAULTS = {
    "queues": ["runs", "ingest", "default"],
    "concurrency": env_int("WORKER_CONCURRENCY", 4),
    "update_heartbeat_interval": env_float("WORKER_HEARTBEAT_SECONDS", 2.0),
    "stalled_worker_timeout": env_float("WORKER_STALE_SECONDS", 10.0),
    "fetch_job_polling_interval": 2.0,
    "abort_job_polling_interval": 1.0,
}


# The workers' connector waits out a database restart (see adrag_site/jobs.py).
PROCRASTINATE_ON_APP_READY = "adrag_site.jobs.on_app_ready"


LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "adrag_site.logging.RequestIdFilter"}},
    "formatters": {
        "plain": {
            "format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s",
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "plain",
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "procrastinate": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        "pgserver": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}


# --- Metrics ----------------------------------------------------------------------------------
# Prometheus metrics at /metrics (adrag_site/metrics.py): off (404) unless METRICS_TOKEN (sent
# as `Authorization: Bearer <token>`) or METRICS_ALLOWED_IPS (addresses or networks) is set;
# with both, a scrape needs both. Latency and throughput figures cover the last
# METRICS_WINDOW_MINUTES of runs and ingestions.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS")
METRICS_WINDOW_MINUTES = env_float("METRICS_WINDOW_MINUTES", 60.0)
