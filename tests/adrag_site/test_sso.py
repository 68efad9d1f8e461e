"""OpenID Connect single sign-on against a real provider: django-oauth-toolkit's, in its own
process (tests/oidc_provider/), reached over HTTP for discovery, keys, tokens and userinfo.

The portal side runs in this process (Django's test client); the browser's part (signing in
at the provider, following its redirect back) is played with `requests`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from urllib.parse import parse_qs, urljoin, urlsplit

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import Group, User
from django.core.exceptions import SuspiciousOperation

from adrag_site import sso
from adrag_site.audit import SIGN_IN
from adrag_site.models import AuditEvent, SsoIdentity
from tests.model_server import free_port
from tests.support import ROOT

CLIENT_ID = "adrag-portal"
CLIENT_SECRET = "portal-secret-" + "s" * 30
CALLBACK = "http://testserver/oidc/callback/"
PEOPLE = [
    {
        "username": "maria",
        "name": "Maria",
        "email": "maria@example.org",
        "password": "maria-pass-123",
        "teams": ["Curie lab", "Physics"],
    },
]


def _provider_env(folder, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.oidc_provider.settings",
        "OIDC_PROVIDER_DB": str(folder / "provider.sqlite3"),
        "OIDC_PROVIDER_KEY": str(folder / "key.pem"),
        "OIDC_PROVIDER_ISSUER": f"http://127.0.0.1:{port}/o",
        "PYTHONPATH": str(ROOT),
    }


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    """Start the provider once for the module; yield its issuer and environment."""
    folder = tmp_path_factory.mktemp("oidc-provider")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    config = {
        "client": {"id": CLIENT_ID, "secret": CLIENT_SECRET, "redirect_uri": CALLBACK},
        "people": PEOPLE,
    }
    (folder / "config.json").write_text(json.dumps(config))
    port = free_port()
    env = _provider_env(folder, port)
    subprocess.run(
        [sys.executable, "-m", "tests.oidc_provider.prepare", str(folder / "config.json")],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    issuer = env["OIDC_PROVIDER_ISSUER"]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{issuer}/.well-known/openid-configuration", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "provider did not start"
            time.sleep(0.2)
        yield {"issuer": issuer, "env": env}
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def sso_settings(settings, provider):
    settings.OIDC_ISSUER = provider["issuer"]
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_TEAMS_CLAIM = "groups"
    settings.OIDC_PROVIDER_NAME = "Test IdP"
    sso._DISCOVERY.clear()
    return settings


def set_teams_at_provider(provider, username: str, *teams: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "tests.oidc_provider.teams", username, *teams],
        cwd=ROOT,
        env=provider["env"],
        check=True,
        timeout=60,
    )


def sign_in_at_provider(client, username: str, password: str, *, next_path: str = "/"):
    """Play the browser: portal -> provider (sign in) -> portal's callback. Return its response."""
    start = client.get("/oidc/authenticate/", {"next": next_path})
    assert start.status_code == 302
    authorize = start["Location"]
    assert authorize.startswith(sso.discovery()["authorization_endpoint"])
    browser = requests.Session()
    login_url = urljoin(authorize, "/accounts/login/")
    browser.get(login_url, timeout=10)
    authorize_path = authorize[len(urljoin(authorize, "/")) - 1 :]
    response = browser.post(
        login_url,
        data={
            "username": username,
            "password": password,
            "next": authorize_path,
            "csrfmiddlewaretoken": browser.cookies["csrftoken"],
        },
        headers={"Referer": login_url},
        allow_redirects=False,
        timeout=10,
    )
    # The provider's own redirects (to the authorization endpoint) until it sends the
    # browser back to the portal.
    while response.status_code == 302 and not response.headers["Location"].startswith(CALLBACK):
        response = browser.get(
            urljoin(response.url, response.headers["Location"]), allow_redirects=False, timeout=10
        )
    assert response.status_code == 302, response.text[:500]
    back = urlsplit(response.headers["Location"])
    query = {key: values[0] for key, values in parse_qs(back.query).items()}
    assert "code" in query, query
    return client.get(back.path, query)


@pytest.mark.slow
@pytest.mark.django_db
def test_sign_in_with_the_provider_creates_the_person_with_the_teams_of_the_claim(
    client, sso_settings, provider
):
    Group.objects.create(name="Chemistry")
    finished = sign_in_at_provider(client, "maria", "maria-pass-123", next_path="/knowledge/")
    assert finished.status_code == 302 and finished["Location"] == "/knowledge/"

    user = User.objects.get(username="maria")
    assert user.email == "maria@example.org" and user.first_name == "Maria"
    assert not user.has_usable_password()
    assert sorted(user.groups.values_list("name", flat=True)) == ["Curie lab", "Physics"]
    identity = SsoIdentity.objects.get(user=user)
    assert identity.issuer == provider["issuer"]
    assert client.get("/api/knowledge-bases").status_code == 200
    signed_in = AuditEvent.objects.get(action=SIGN_IN, actor=user)
    assert signed_in.details == {"via": "sso"}

    # The teams change at the provider: the next sign-in makes the portal's match them.
    set_teams_at_provider(provider, "maria", "Physics", "Chemistry")
    client.logout()
    assert sign_in_at_provider(client, "maria", "maria-pass-123").status_code == 302
    user.refresh_from_db()
    assert sorted(user.groups.values_list("name", flat=True)) == ["Chemistry", "Physics"]
    assert User.objects.filter(username__startswith="maria").count() == 1
    set_teams_at_provider(provider, "maria", *PEOPLE[0]["teams"])


@pytest.mark.django_db
def test_a_forged_callback_signs_nobody_in(client, sso_settings):
    client.get("/oidc/authenticate/")
    failed = client.get("/oidc/callback/", {"code": "made-up", "state": "made-up"})
    assert failed.status_code == 302 and "sso=failed" in failed["Location"]
    assert not User.objects.filter(username="maria").exists()
    page = client.get(failed["Location"])
    assert "Single sign-on did not sign you in" in page.content.decode()
    # Audited, like a failed password: through single sign-on, with why.
    from adrag_site.models import AuditEvent

    event = AuditEvent.objects.filter(action="sign_in_failed").latest("at")
    assert event.details["via"] == "sso" and event.details["reason"]


@pytest.mark.django_db
def test_an_id_token_for_another_client_or_from_another_issuer_is_refused(client, sso_settings):
    # A real ID token from the provider, kept in the session for this test.
    sso_settings.OIDC_STORE_ID_TOKEN = True
    assert sign_in_at_provider(client, "maria", "maria-pass-123").status_code == 302
    token = client.session["oidc_id_token"]
    nonce = jwt.decode(token, options={"verify_signature": False})["nonce"]
    jwks = sso.discovery()["jwks_uri"]

    def verify(*, client_id=CLIENT_ID, issuer=None):
        backend = sso.SsoBackend()
        backend.OIDC_OP_JWKS_ENDPOINT = jwks
        backend.OIDC_RP_CLIENT_ID = client_id
        backend.token_issuer = issuer or backend.token_issuer
        return backend.verify_token(token, nonce=nonce)

    assert verify()["sub"]
    with pytest.raises(SuspiciousOperation, match="(?i)audience"):
        verify(client_id="someone-else")
    with pytest.raises(SuspiciousOperation, match="(?i)issuer"):
        verify(issuer="http://127.0.0.1:1/o")


@pytest.mark.django_db
def test_without_local_accounts_only_single_sign_on_lets_people_in(client, sso_settings):
    User.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    sso_settings.LOCAL_LOGIN_ENABLED = False
    sso_settings.AUTHENTICATION_BACKENDS = ["adrag_site.sso.SsoBackend"]
    page = client.get("/accounts/login/")
    body = page.content.decode()
    assert "Sign in with Test IdP" in body and 'name="password"' not in body
    refused = client.post("/accounts/login/", {"username": "alice", "password": "alice-pass-123"})
    assert refused.status_code == 403
    assert "_auth_user_id" not in client.session
    admin = client.get("/admin/login/?next=/admin/")
    assert admin.status_code == 302 and admin["Location"].startswith("/accounts/login/")
    assert sign_in_at_provider(client, "maria", "maria-pass-123").status_code == 302
    assert client.get("/api/knowledge-bases").status_code == 200


@pytest.mark.django_db
def test_the_sign_in_page_offers_both_ways_and_says_when_the_provider_is_down(client, sso_settings):
    body = client.get("/accounts/login/").content.decode()
    assert "Sign in with Test IdP" in body and 'name="password"' in body
    sso_settings.OIDC_ISSUER = "http://127.0.0.1:9/o"
    sso._DISCOVERY.clear()
    down = client.get("/oidc/authenticate/")
    assert down.status_code == 302 and down["Location"] == "/accounts/login/?sso=unavailable"
    assert "cannot be reached" in client.get(down["Location"]).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("staff", [False, True])
def test_an_account_with_the_verified_address_is_linked_unless_it_is_staff(
    client, sso_settings, staff
):
    local = User.objects.create_user("mcurie", "Maria@Example.org", "x", is_staff=staff)
    assert sign_in_at_provider(client, "maria", "maria-pass-123").status_code == 302
    identity = SsoIdentity.objects.get()
    if staff:
        # A staff account is never taken over by an e-mail address: a new account is made.
        assert identity.user.username == "maria" and identity.user != local
    else:
        assert identity.user == local and not User.objects.filter(username="maria").exists()
        assert sorted(local.groups.values_list("name", flat=True)) == ["Curie lab", "Physics"]


@pytest.mark.django_db
def test_a_deactivated_account_loses_its_session_at_once(client, sso_settings):
    assert sign_in_at_provider(client, "maria", "maria-pass-123").status_code == 302
    assert client.get("/api/knowledge-bases").status_code == 200
    User.objects.filter(username="maria").update(is_active=False)
    assert client.get("/api/knowledge-bases").status_code in (401, 403)
    page = client.get("/knowledge/")
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
    # Nor can they sign in again through the provider.
    failed = sign_in_at_provider(client, "maria", "maria-pass-123")
    assert "sso=failed" in failed["Location"]


@pytest.mark.django_db
def test_only_the_teams_of_the_pattern_are_managed(client, sso_settings):
    sso_settings.OIDC_TEAMS_PATTERN = r"^Physics$"
    user = User.objects.create_user("maria", "other@example.org", "x")
    SsoIdentity.objects.create(user=user, issuer=sso_settings.OIDC_ISSUER, subject="1")
    user.groups.add(Group.objects.create(name="Admins"))
    assert sign_in_at_provider(client, "maria", "maria-pass-123").status_code == 302
    # "Curie lab" is outside the pattern: not joined; "Admins" was given locally: kept.
    assert sorted(user.groups.values_list("name", flat=True)) == ["Admins", "Physics"]
