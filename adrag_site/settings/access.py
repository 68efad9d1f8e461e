"""Who gets in: sign-in (passwords, single sign-on, login throttling) and the API."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from adrag_site.env import env_bool, env_float, env_int, env_str
from adrag_site.settings.site import CORS_ALLOWED_ORIGINS

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
        "EvaluationStatusEnum": "queries.models.Evaluation.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "queries.schema.add_streaming_endpoints",
        "adrag_site.schema.add_health_and_common_errors",
    ],
}
