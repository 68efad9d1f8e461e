"""Single sign-on with OpenID Connect (mozilla-django-oidc), set by the issuer alone.

Set `OIDC_ISSUER`, `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET`: the endpoints and signing keys
come from the issuer's discovery document (`/.well-known/openid-configuration`), fetched at
the first sign-in and kept for `OIDC_DISCOVERY_SECONDS`, so the portal starts even while the
provider is down and a password sign-in never waits on it.

What mozilla-django-oidc leaves to its users, done here:
- the ID token's issuer and audience are checked (the library checks its signature, expiry
  and nonce, not who issued it or for whom);
- a person is found by their (issuer, subject) pair, kept in `SsoIdentity`, never by e-mail
  alone; an existing account is linked by e-mail only when the provider says the address is
  verified, exactly one account has it, that account has no identity yet and is not staff;
- a deactivated account's session ends at its next request (the library does not check);
- `OIDC_TEAMS_CLAIM` (e.g. `groups`) names the person's teams: at each sign-in their Django
  groups become those, a team the portal does not know yet is created, and
  `OIDC_TEAMS_PATTERN` limits which team names single sign-on manages;
- `LOCAL_LOGIN_ENABLED=false` leaves single sign-on as the only way in (no password
  backend; the sign-in form and the admin's send people to the provider).
"""

from __future__ import annotations

import logging
import re
import threading
import time

import jwt
import requests
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.shortcuts import redirect
from django.urls import reverse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from adrag_site.audit import SIGN_IN_FAILED, audit_record
from adrag_site.models import SsoIdentity

logger = logging.getLogger(__name__)

_DISCOVERY_LOCK = threading.Lock()
_DISCOVERY: dict[str, tuple[float, dict]] = {}
MAX_TEAMS = 500


class SsoUnavailable(Exception):
    """The provider's discovery document could not be fetched or is not for this issuer."""


def enabled() -> bool:
    return bool(settings.OIDC_ISSUER)


# A failed fetch is remembered this long, so that a provider that is down does not hold a
# worker for OIDC_TIMEOUT on every visit of /oidc/authenticate/.
FAILURE_SECONDS = 30.0


def discovery() -> dict:
    """The issuer's discovery document, fetched once per `OIDC_DISCOVERY_SECONDS`."""
    issuer = settings.OIDC_ISSUER.rstrip("/")
    with _DISCOVERY_LOCK:
        cached = _DISCOVERY.get(issuer)
    if cached:
        age = time.monotonic() - cached[0]
        if isinstance(cached[1], dict) and age < settings.OIDC_DISCOVERY_SECONDS:
            return cached[1]
        if isinstance(cached[1], SsoUnavailable) and age < FAILURE_SECONDS:
            raise cached[1]
    try:
        document = _fetch_discovery(issuer)
    except SsoUnavailable as exc:
        with _DISCOVERY_LOCK:
            _DISCOVERY[issuer] = (time.monotonic(), exc)
        raise
    with _DISCOVERY_LOCK:
        _DISCOVERY[issuer] = (time.monotonic(), document)
    return document


def _fetch_discovery(issuer: str) -> dict:
    try:
        response = requests.get(
            f"{issuer}/.well-known/openid-configuration", timeout=settings.OIDC_TIMEOUT
        )
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise SsoUnavailable(f"the provider's discovery document: {exc}") from exc
    if not isinstance(document, dict) or str(document.get("issuer", "")).rstrip("/") != issuer:
        raise SsoUnavailable("the discovery document is for another issuer")
    for key in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(document.get(key), str):
            raise SsoUnavailable(f"the discovery document has no {key}")
    return document


class SsoAuthenticationRequestView(OIDCAuthenticationRequestView):
    """Sends the browser to the provider's authorization endpoint (from discovery)."""

    def __init__(self, *args, **kwargs):  # noqa: D107 - the parent reads fixed settings
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID

    def get(self, request):
        if not enabled():
            return redirect("login")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = discovery()["authorization_endpoint"]
        except SsoUnavailable as exc:
            logger.warning("single sign-on is unavailable: %s", exc)
            return redirect(f"{reverse('login')}?sso=unavailable")
        return super().get(request)


class SsoCallbackView(OIDCAuthenticationCallbackView):
    """The provider's redirect back; a stale or forged one ends on the sign-in page."""

    def get(self, request):
        try:
            return super().get(request)
        except SuspiciousOperation as exc:
            logger.warning("single sign-on callback refused: %s", exc)
            self.refused = str(exc)[:200]
            return self.login_failure()

    def login_failure(self):
        """Every failed callback (forged, stale, refused by the provider, its token invalid) is
        audited as `sign_in_failed` through single sign-on, then ends on the sign-in page."""
        reason = getattr(self, "refused", "") or self.request.GET.get("error", "")
        audit_record(SIGN_IN_FAILED, request=self.request, via="sso", reason=str(reason)[:200])
        return super().login_failure()


class SsoBackend(OIDCAuthenticationBackend):
    """Signs a person in from the provider's ID token and userinfo, teams kept in sync."""

    def __init__(self, *args, **kwargs):  # noqa: D107 - endpoints come from discovery
        from django.contrib.auth import get_user_model

        self.UserModel = get_user_model()
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = settings.OIDC_RP_SIGN_ALGO
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.OIDC_OP_TOKEN_ENDPOINT = self.OIDC_OP_USER_ENDPOINT = None
        self.OIDC_OP_JWKS_ENDPOINT = None
        self.issuer = settings.OIDC_ISSUER.rstrip("/")
        self.token_issuer = self.issuer

    def authenticate(self, request, **kwargs):
        # Only the provider's callback (a code and a state) is for this backend: a password
        # sign-in passes by without a request to the provider.
        if not enabled() or request is None or "code" not in request.GET:
            return None
        try:
            document = discovery()
        except SsoUnavailable as exc:
            logger.warning("single sign-on is unavailable: %s", exc)
            return None
        self.OIDC_OP_TOKEN_ENDPOINT = document["token_endpoint"]
        self.OIDC_OP_USER_ENDPOINT = document.get("userinfo_endpoint")
        self.OIDC_OP_JWKS_ENDPOINT = document["jwks_uri"]
        # The ID token names the issuer exactly as the provider spells it (a trailing slash
        # included); people are kept under the configured issuer.
        self.token_issuer = document["issuer"]
        try:
            return super().authenticate(request, **kwargs)
        except (
            requests.RequestException,
            SuspiciousOperation,
            jwt.PyJWTError,
            KeyError,
            TypeError,
            ValueError,
        ) as exc:
            logger.warning("single sign-on failed: %r", exc)
            return None

    def get_user(self, user_id):
        """The signed-in user, while their account is active (the library does not check)."""
        user = super().get_user(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

    def _verify_jws(self, payload, key):
        """Check the signature, expiry, issuer and audience (the library skips the last two)."""
        try:
            header = jwt.get_unverified_header(payload)
        except jwt.PyJWTError as exc:
            raise SuspiciousOperation(f"the ID token is not a JWT: {exc}") from exc
        if header.get("alg") != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation(f"the ID token is signed with {header.get('alg')!r}")
        try:
            return jwt.decode(
                payload,
                key,
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=self.token_issuer,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError as exc:
            raise SuspiciousOperation(f"the ID token is not valid: {exc}") from exc

    def get_userinfo(self, access_token, id_token, payload):
        """The ID token's claims, with the userinfo endpoint's when the provider has one."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT:
            userinfo = super().get_userinfo(access_token, id_token, payload)
            if userinfo.get("sub") != payload.get("sub"):
                raise SuspiciousOperation("the userinfo is for another subject")
            if "email" in userinfo:
                # Whether an address is verified is said by whoever gave the address.
                claims.pop("email_verified", None)
            claims.update(userinfo)
        return claims

    def verify_claims(self, claims) -> bool:
        return bool(claims.get("sub"))

    def filter_users_by_claims(self, claims):
        identity = SsoIdentity.objects.filter(issuer=self.issuer, subject=claims["sub"]).first()
        if identity is not None:
            return self.UserModel.objects.filter(id=identity.user_id)
        # A first sign-in may take over an existing account by its e-mail only when the
        # provider verified the address, exactly one account has it, that account has no
        # identity of its own yet (a recycled address must not inherit a departed person's
        # account), and it is not staff. Otherwise a new account is made.
        email = claims.get("email")
        if not email or claims.get("email_verified") is not True:
            return self.UserModel.objects.none()
        matches = list(self.UserModel.objects.filter(email__iexact=email)[:2])
        if len(matches) != 1:
            return self.UserModel.objects.none()
        user = matches[0]
        if user.is_staff or user.is_superuser or SsoIdentity.objects.filter(user=user).exists():
            return self.UserModel.objects.none()
        return self.UserModel.objects.filter(id=user.id)

    @transaction.atomic
    def create_user(self, claims):
        verified = claims.get("email_verified") is True
        user = self.UserModel.objects.create_user(
            _free_username(claims), email=(claims.get("email") if verified else "") or ""
        )
        user.set_unusable_password()
        user.save(update_fields=["password"])
        return self.update_user(user, claims)

    @transaction.atomic
    def update_user(self, user, claims):
        if not user.is_active:
            raise SuspiciousOperation("the account is disabled")
        SsoIdentity.objects.update_or_create(
            issuer=self.issuer, subject=claims["sub"], defaults={"user": user}
        )
        verified = claims.get("email_verified") is True
        fields = {
            "email": (claims.get("email") if verified else None) or user.email,
            "first_name": str(claims.get("given_name") or user.first_name)[:150],
            "last_name": str(claims.get("family_name") or user.last_name)[:150],
        }
        for name, value in fields.items():
            setattr(user, name, value)
        user.save(update_fields=list(fields))
        if settings.OIDC_TEAMS_CLAIM and settings.OIDC_TEAMS_CLAIM in claims:
            # A token without the claim (a scope not granted) leaves the teams as they are.
            sync_teams(user, claims[settings.OIDC_TEAMS_CLAIM])
        return user


def sync_teams(user, claimed) -> None:
    """Make the user's teams those the claim names, among the teams single sign-on manages.

    With `OIDC_TEAMS_PATTERN` (a regular expression) only matching names are managed: others
    in the claim are ignored, and teams an administrator gave outside the pattern stay.
    Without it the claim is the whole truth. A team the portal does not know yet is made.
    """
    if isinstance(claimed, str):
        claimed = [claimed]
    if not isinstance(claimed, list):
        claimed = []
    pattern = re.compile(settings.OIDC_TEAMS_PATTERN) if settings.OIDC_TEAMS_PATTERN else None

    def managed(name: str) -> bool:
        return pattern is None or bool(pattern.search(name))

    names = sorted({str(name).strip()[:150] for name in claimed if str(name).strip()})
    names = [name for name in names if managed(name)]
    if len(names) > MAX_TEAMS:
        logger.warning("the teams claim of %s names %d teams; %d kept", user, len(names), MAX_TEAMS)
        names = names[:MAX_TEAMS]
    teams = [Group.objects.get_or_create(name=name)[0] for name in names]
    kept = [group for group in user.groups.all() if not managed(group.name)]
    user.groups.set([*teams, *kept])


def _free_username(claims) -> str:
    """A username from the claims (preferred_username, else the e-mail's local part)."""
    wanted = str(claims.get("preferred_username") or "").strip()
    if not wanted:
        wanted = str(claims.get("email") or "").split("@")[0] or f"user-{claims['sub']}"
    base = re.sub(r"[^\w.@+-]", "", wanted)[:140] or "user"
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    name, number = base, 1
    while users.filter(username__iexact=name).exists():
        number += 1
        name = f"{base}-{number}"
    return name
