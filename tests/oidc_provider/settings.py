"""Settings of the test provider; the test that starts it passes its paths and port by env."""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECRET_KEY = "test-provider-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [HERE / "templates"],
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["OIDC_PROVIDER_DB"]}
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# A stand-in provider: its people's passwords need no strength, and each sign-in at it would
# otherwise cost a second of PBKDF2 (Django's default 1,000,000 iterations) on a busy core.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
USE_TZ = True
LOGIN_URL = "/accounts/login/"
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": Path(os.environ["OIDC_PROVIDER_KEY"]).read_text(),
    "OIDC_ISS_ENDPOINT": os.environ["OIDC_PROVIDER_ISSUER"],
    "SCOPES": {"openid": "OpenID Connect", "email": "E-mail", "profile": "Profile"},
    "OAUTH2_VALIDATOR_CLASS": "tests.oidc_provider.validator.TeamsValidator",
}
