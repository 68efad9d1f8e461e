"""Django settings: every value comes from the environment, with safe defaults."""

from __future__ import annotations

import os
import secrets
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from corsheaders.defaults import default_headers as cors_default_headers

from adrag_site.env import env_bool, env_float, env_int, env_list, env_map, env_str

# --- Paths and secrets ------------------------------------------------------------------------
BASE_DIR = Path(__file__).resolve().parent.parent
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

# --- Sign-in ----------------------------------------------------------------------------------
# Login throttling (django-axes) on the portal's and the admin's login forms: after
# LOGIN_FAILURE_LIMIT failures for one username from one address, that pair is refused with
# 429, a page saying when to retry and Retry-After, until LOGIN_COOLOFF_MINUTES pass.
# Single sign-on with OpenID Connect (adrag_site/sso.py, mozilla-django-oidc): set the issuer,
# the client id and its secret; the endpoints and keys come from the issuer's discovery
# document. OIDC_TEAMS_CLAIM names a claim listing the person's teams (Django groups), made
# theirs at each sign-in. LOCAL_LOGIN_ENABLED=false leaves single sign-on as the only way in.
OIDC_ISSUER = env_str("OIDC_ISSUER", "")
OIDC_RP_CLIENT_ID = env_str("OIDC_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_CLIENT_SECRET", "")
OIDC_RP_SIGN_ALGO = env_str("OIDC_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_SCOPES", "openid email profile")
OIDC_TEAMS_CLAIM = env_str("OIDC_TEAMS_CLAIM", "")
OIDC_TEAMS_PATTERN = env_str("OIDC_TEAMS_PATTERN", "")
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "single sign-on")
OIDC_TIMEOUT = env_float("OIDC_TIMEOUT", 10.0)
OIDC_DISCOVERY_SECONDS = env_float("OIDC_DISCOVERY_SECONDS", 3600.0)
OIDC_USE_PKCE = True
OIDC_AUTHENTICATE_CLASS = "adrag_site.sso.SsoAuthenticationRequestView"
OIDC_CALLBACK_CLASS = "adrag_site.sso.SsoCallbackView"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
# After single sign-on, `next` may lead to a front end of CORS_ALLOWED_ORIGINS, as after a
# password sign-in.
OIDC_REDIRECT_ALLOWED_HOSTS = [urlsplit(origin).netloc for origin in CORS_ALLOWED_ORIGINS]
LOCAL_LOGIN_ENABLED = env_bool("LOCAL_LOGIN_ENABLED", True)
AUTHENTICATION_BACKENDS = [
    *(
        ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
        if LOCAL_LOGIN_ENABLED
        else []
    ),
    "adrag_site.sso.SsoBackend",
]
AXES_ENABLED = env_bool("LOGIN_THROTTLE_ENABLED", True)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("LOGIN_COOLOFF_MINUTES", 15.0))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "adrag_site.login_throttle.lockout_response"
AXES_VERBOSE = False
# The client's address is REMOTE_ADDR only: uvicorn sets it from X-Forwarded-For only when the
# request comes through a proxy FORWARDED_ALLOW_IPS names, and reading that header here would
# let any client pick a fresh address for every guess.
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# --- Language and static files ----------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
MEDIA_ROOT = Path(env_str("ADRAG_MEDIA_ROOT", str(DATA_DIR / "media"))).resolve()

# --- Uploads and ingestion --------------------------------------------------------------------
# Uploads stream to temporary files rather than memory; the per-file limit is MAX_UPLOAD_MB.
MAX_UPLOAD_MB = env_int("MAX_UPLOAD_MB", 50)
# The web tier's caps on request bodies, enforced before Django reads them (adrag_site/server.py):
# uploads may carry several files up to MAX_UPLOAD_REQUEST_MB in all; any other body (JSON,
# forms) at most MAX_BODY_BYTES. Over a cap: 413 JSON, without reading the rest.
MAX_UPLOAD_REQUEST_MB = env_int("MAX_UPLOAD_REQUEST_MB", 100)
MAX_BODY_BYTES = env_int("MAX_BODY_BYTES", 5 * 1024 * 1024)
# Light checks an upload passes in the request (knowledge/ingest/inspect.py).
MAX_PDF_PAGES = env_int("MAX_PDF_PAGES", 2000)
MAX_DOCX_UNCOMPRESSED_MB = env_int("MAX_DOCX_UNCOMPRESSED_MB", 40)
# The worker extracts each file in a child process under these budgets (knowledge/ingest/sandbox.py).
EXTRACT_TIMEOUT_SECONDS = env_float("EXTRACT_TIMEOUT_SECONDS", 120.0)
EXTRACT_MEMORY_MB = env_int("EXTRACT_MEMORY_MB", 1024)
# OCR (knowledge/ingest/ocr.py, RapidOCR with the models its wheel carries) reads images and the
# pages of a PDF without a text layer. A page may take OCR_PAGE_SECONDS (then it is reported
# as unreadable and the others go on); each page read adds that to the file's wall-clock budget;
# pages past OCR_MAX_PAGES are not read. The engine needs more memory than parsing: a file
# that needs OCR may grow to OCR_MEMORY_MB of address space. OCR_ENABLED=false refuses images.
OCR_ENABLED = env_bool("OCR_ENABLED", True)
OCR_PAGE_SECONDS = env_float("OCR_PAGE_SECONDS", 30.0)
OCR_MAX_PAGES = env_int("OCR_MAX_PAGES", 200)
OCR_MEMORY_MB = env_int("OCR_MEMORY_MB", 2048)
# Per-user ingestion limits: documents queued or in progress, and stored bytes per owner
# (the KB's team when it has one, else its owner); 0 means no limit. Over either: 429 / 413.
INGESTIONS_MAX_PENDING_PER_USER = env_int("INGESTIONS_MAX_PENDING_PER_USER", 50)
STORAGE_QUOTA_MB = env_int("STORAGE_QUOTA_MB", 5120)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# --- The API ----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first, so an unauthenticated API request answers 401 with a WWW-Authenticate header.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "adrag_site.tokens.ScopedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's parsers, refusing deep nesting and strings PostgreSQL cannot hold with a 400.
    "DEFAULT_PARSER_CLASSES": [
        "adrag_site.parsers.JSONParser",
        "adrag_site.parsers.FormParser",
        "adrag_site.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "adrag_site.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "adrag_site.pagination.PageSizePagination",
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 50),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# The OpenAPI schema (/api/schema) and its page (/api/docs), which loads Swagger UI from
# drf-spectacular-sidecar's static files: no CDN, no inline script.
SPECTACULAR_SETTINGS = {
    "TITLE": "adRAG API",
    "DESCRIPTION": "Knowledge bases, documents, questions answered from them (streamed as "
    'server-sent events), and run history. Every error is JSON: `{"error": ..., "code": ...}`.',
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # ApiAuthenticationMiddleware already requires a login; this is the same rule, twice.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SCHEMA_PATH_PREFIX": "/api",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "knowledge.models.Document.Status",
        "RunStatusEnum": "queries.models.QueryRun.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "queries.schema.add_streaming_endpoints",
        "adrag_site.schema.add_health_and_common_errors",
    ],
}

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

# --- Models and providers ---------------------------------------------------------------------
# The spec's names and defaults.
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
LLM_MODEL = env_str("LLM_MODEL", "gpt-4o-mini")
OLLAMA_BASE_URL = env_str("OLLAMA_BASE_URL", "http://localhost:11434")
OLLAMA_MODEL = env_str("OLLAMA_MODEL", "llama3.2")
DEFAULT_PROVIDER = env_str("DEFAULT_PROVIDER")
# Extra model backends: "name=package.module:Class,..." (each a providers.llm.chat.ChatBackend).
ADRAG_PROVIDER_PLUGINS = env_list("ADRAG_PROVIDER_PLUGINS")
# How each provider answers (queries/answering/registry.py composes it with its backend):
# "model" (the model plans, writes a JSON answer and judges it, as the spec has it),
# "quote_first" (the passages quoted first, the model writes only when the check does not
# verify the quote), or "extractive" (no model). "name=strategy,..." over these defaults; a
# plugin without an entry answers with "model".
ANSWER_STRATEGIES = env_map(
    "ANSWER_STRATEGIES",
    {"openai": "model", "ollama": "model", "local": "quote_first", "extractive": "extractive"},
)
# The deadline of one model call; a cancel or a timeout closes its stream at once.
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 120.0)
# Output budget (max_tokens / num_predict) per task of a model call.
LLM_MAX_TOKENS = {
    "plan": env_int("LLM_MAX_TOKENS_PLAN", 160),
    "compress": env_int("LLM_MAX_TOKENS_COMPRESS", 800),
    "answer": env_int("LLM_MAX_TOKENS_ANSWER", 600),
    "answer_plain": env_int("LLM_MAX_TOKENS_ANSWER", 600),
    "direct": env_int("LLM_MAX_TOKENS_DIRECT", 400),
    "reflect": env_int("LLM_MAX_TOKENS_REFLECT", 300),
    "rewrite": env_int("LLM_MAX_TOKENS_REWRITE", 60),
    "condense": env_int("LLM_MAX_TOKENS_CONDENSE", 80),
    "table_query": env_int("LLM_MAX_TOKENS_TABLE_QUERY", 200),
    "default": env_int("LLM_MAX_TOKENS_DEFAULT", 400),
}
# JSON stages send their schema: auto (json_schema, downgraded per server when rejected),
# json_schema, json_object_schema (llama-cpp-python's server), json_object, or none.
OPENAI_STRUCTURED_OUTPUT = env_str("OPENAI_STRUCTURED_OUTPUT", "auto").lower()
# "auto": ask a self-hosted server (llama.cpp's) to keep the prompt cache; true/false to force.
OPENAI_CACHE_PROMPT = env_str("OPENAI_CACHE_PROMPT", "auto").lower()
# The evidence a model behind OPENAI_BASE_URL reads, in tokens (about four characters each):
# 0 for none. A small model on a server of one's own reads a long prompt slowly (llama.cpp's
# server beside the portal: 300, as the local provider's catalogue model).
OPENAI_CONTEXT_TOKENS = env_int("OPENAI_CONTEXT_TOKENS", 0)
# Ollama and the local provider: schema (a grammar from the stage's schema), json_object, none.
OLLAMA_STRUCTURED_OUTPUT = env_str("OLLAMA_STRUCTURED_OUTPUT", "schema").lower()
# The in-process llama.cpp provider (`pip install -e '.[local]'`): any GGUF file.
LOCAL_MODEL_PATH = env_str("LOCAL_MODEL_PATH")
# Without LOCAL_MODEL_PATH, the catalogue model of this name once `manage.py fetch_model` ran.
LOCAL_MODEL = env_str("LOCAL_MODEL", "qwen2.5-coder-1.5b")
LOCAL_N_CTX = env_int("LOCAL_N_CTX", 4096)
# The evidence a local model reads, in its tokens: 0 takes the catalogue's measured figure for
# the model (none for a model of your own: then MAX_CONTEXT_CHARS alone).
LOCAL_CONTEXT_TOKENS = env_int("LOCAL_CONTEXT_TOKENS", 0)
LOCAL_N_THREADS = env_int("LOCAL_N_THREADS", 0)  # 0: one per core
# OMP_WAIT_POLICY defaults to PASSIVE for the portal's processes (adrag_site/apps.py).
LOCAL_STRUCTURED_OUTPUT = env_str("LOCAL_STRUCTURED_OUTPUT", "schema").lower()
# Run workers load the local model at start: "auto" when DEFAULT_PROVIDER is local; true/false.
LOCAL_WARM_UP = env_str("LOCAL_WARM_UP", "auto").lower()

# --- The pipeline: retrieval, rerank and answer -----------------------------------------------
RETRIEVAL_TOP_K = env_int("RETRIEVAL_TOP_K", 10)
RERANK_TOP_K = env_int("RERANK_TOP_K", 5)
MAX_CONTEXT_CHARS = env_int("MAX_CONTEXT_CHARS", 4000)
MAX_REFLECTION_RETRIES = env_int("MAX_REFLECTION_RETRIES", 2)
# A retry may sample: the critic's feedback changes the prompt, and a little temperature helps.
RETRY_TEMPERATURE = env_float("RETRY_TEMPERATURE", 0.3)
# Answer text reaches the events endpoint as `answer_delta` events, coalesced to at most one
# per ANSWER_DELTA_SECONDS and ANSWER_DELTA_MAX_EVENTS per attempt, so the log stays bounded.
ANSWER_DELTA_SECONDS = env_float("ANSWER_DELTA_SECONDS", 0.25)
ANSWER_DELTA_MAX_EVENTS = env_int("ANSWER_DELTA_MAX_EVENTS", 60)
# A web search (the external_tools stage) gives up after this long; the run goes on without it.
WEB_SEARCH_TIMEOUT_SECONDS = env_float("WEB_SEARCH_TIMEOUT_SECONDS", 5.0)
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL", "all-MiniLM-L6-v2")
RERANKER_MODEL = env_str("RERANKER_MODEL", "cross-encoder/ms-marco-MiniLM-L-6-v2")
CHUNK_SIZE = env_int("CHUNK_SIZE", 500)
CHUNK_OVERLAP = env_int("CHUNK_OVERLAP", 50)
# The best rerank score below which a retry escalates to the web, per reranker kind.
RERANK_FLOOR_CROSS_ENCODER = env_float("RERANK_FLOOR_CROSS_ENCODER", 0.0)
RERANK_FLOOR_FALLBACK = env_float("RERANK_FLOOR_FALLBACK", 0.25)
RERANK_FALLBACK_LEXICAL_WEIGHT = env_float("RERANK_FALLBACK_LEXICAL_WEIGHT", 0.5)

# Rank fusion (chosen on NFCorpus and SciFact train; docs/benchmarks.md "Retrieval quality").
FUSION_RRF_K = env_int("FUSION_RRF_K", 60)
FUSION_WEIGHT_VECTOR = env_float("FUSION_WEIGHT_VECTOR", 1.0)
FUSION_WEIGHT_BM25 = env_float("FUSION_WEIGHT_BM25", 1.0)
FUSION_WEIGHT_GRAPH = env_float("FUSION_WEIGHT_GRAPH", 0.3)
FUSION_WEIGHT_WEB = env_float("FUSION_WEIGHT_WEB", 1.0)
FUSION_WEIGHT_TABLE = env_float("FUSION_WEIGHT_TABLE", 1.0)

# --- Indexes of large knowledge bases ---------------------------------------------------------
# A knowledge base with at least this many chunks gets an HNSW index of its own
# (knowledge/vector_index.py); a smaller one is searched exactly. Builds use this much memory.
VECTOR_INDEX_MIN_CHUNKS = env_int("VECTOR_INDEX_MIN_CHUNKS", 10_000)
VECTOR_INDEX_BUILD_MEMORY_MB = env_int("VECTOR_INDEX_BUILD_MEMORY_MB", 1024)
# BM25 reads a KB of at least this many chunks from its term blocks (knowledge/term_blocks.py),
# copied again once this share of its chunks changed since the last copy.
TERM_BLOCKS_MIN_CHUNKS = env_int("TERM_BLOCKS_MIN_CHUNKS", 10_000)
TERM_BLOCKS_REBUILD_FRACTION = env_float("TERM_BLOCKS_REBUILD_FRACTION", 0.05)

# --- The table store --------------------------------------------------------------------------
# The table store (knowledge/tables/store.py): a program answers only when the judge
# (knowledge/tables/judge.py) gives it at least TABLE_ANSWER_MIN probability of being right and
# at least TABLE_RELEVANCE_MIN of the question's content words are the table's (or BM25 ranks
# one of its rows first); its answer is verified from TABLE_VERIFY_MIN on. On the half of
# WikiTableQuestions' held-out training tables the judge was not fitted on, answers from 0.5
# were right 2 times in 3 and answers from 0.8 86 times in 100 (docs/benchmarks.md, tables).
TABLE_ANSWER_MIN = env_float("TABLE_ANSWER_MIN", 0.5)
TABLE_PROGRAM_MIN = env_float("TABLE_PROGRAM_MIN", 0.2)
TABLE_RELEVANCE_MIN = env_float("TABLE_RELEVANCE_MIN", 0.5)
TABLE_VERIFY_MIN = env_float("TABLE_VERIFY_MIN", 0.8)
# A program the rules above do not admit is still the answer when the passages find nothing and
# the judge gives it at least this, shown as the table's likeliest reading, never verified (on
# the held-out half of those training tables, such answers were right 4 times in 10).
TABLE_TENTATIVE_MIN = env_float("TABLE_TENTATIVE_MIN", 0.2)
# Tables with more rows than this are not computed on (their row chunks still answer lookups).
TABLE_MAX_ROWS = env_int("TABLE_MAX_ROWS", 5000)
# A table query a model writes (generative providers) runs at most this long, returning at most
# this many rows; past either it is stopped or refused and the parser's program answers.
TABLE_QUERY_TIMEOUT_MS = env_int("TABLE_QUERY_TIMEOUT_MS", 2000)
TABLE_QUERY_ROW_LIMIT = env_int("TABLE_QUERY_ROW_LIMIT", 200)
# A model is not asked for a table query when the judge gives the parser's program at least
# this (by default, enough to answer: on 100 WikiTableQuestions test questions the local model's
# queries were right 9 times in 36, the parser's answers from 0.5 about 3 times in 5).
TABLE_PARSER_SURE = env_float("TABLE_PARSER_SURE", TABLE_ANSWER_MIN)

# --- Streams and run limits -------------------------------------------------------------------
STREAM_HEARTBEAT_SECONDS = env_float("STREAM_HEARTBEAT_SECONDS", 15.0)
STREAM_IDLE_TIMEOUT_SECONDS = env_float("STREAM_IDLE_TIMEOUT_SECONDS", 180.0)
WORKER_SEEN_SECONDS = env_int("WORKER_SEEN_SECONDS", 60)
# A running run whose worker has sent no heartbeat for this long is marked interrupted.
RUN_STALE_SECONDS = env_float("RUN_STALE_SECONDS", 10.0)
# How long a run's writes wait for a database that went away (a restart) before giving up.
DB_RETRY_SECONDS = env_float("DB_RETRY_SECONDS", 60.0)
# How often a waiting stream re-reads the log in case a notification was lost (each small
# event arrives inside its notification; once a second while the LISTEN connection is down).
STREAM_POLL_SECONDS = env_float("STREAM_POLL_SECONDS", 5.0)
# A stream whose run has not started after this long says so when no live worker takes it.
STREAM_WAITING_SECONDS = env_float("STREAM_WAITING_SECONDS", 5.0)
# Threads (and so database connections) a web process uses to read run logs for its streams.
STREAM_READ_THREADS = env_int("STREAM_READ_THREADS", 8)
# Per-user limits; over either, POST /api/query answers 429 before the stream opens.
RUNS_MAX_CONCURRENT_PER_USER = env_int("RUNS_MAX_CONCURRENT_PER_USER", 3)
RUNS_PER_HOUR_PER_USER = env_int("RUNS_PER_HOUR_PER_USER", 120)
# The longest question POST /api/query accepts; longer ones answer 400 `query_too_long`.
MAX_QUERY_CHARS = env_int("MAX_QUERY_CHARS", 4000)

# --- Web sources and the audit trail ----------------------------------------------------------
# Web sources (knowledge/web_sources.py): hosts or networks that may be fetched although they
# are private (an intranet), the size cap of one page, and the timeout of one request.
WEB_SOURCES_ALLOWED_HOSTS = env_list("WEB_SOURCES_ALLOWED_HOSTS", [])
WEB_PAGE_MAX_BYTES = env_int("WEB_PAGE_MAX_BYTES", 2 * 1024 * 1024)
WEB_FETCH_TIMEOUT_SECONDS = env_float("WEB_FETCH_TIMEOUT_SECONDS", 10.0)
WEB_SYNC_MAX_SECONDS = env_int("WEB_SYNC_MAX_SECONDS", 900)
# How long the audit trail keeps its events (adrag_site/audit.py); purged daily.
AUDIT_RETENTION_DAYS = env_int("AUDIT_RETENTION_DAYS", 365)
