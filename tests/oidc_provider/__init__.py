"""A real OpenID Connect provider for the single sign-on tests: a small Django project with
django-oauth-toolkit's OIDC provider, run in its own process (tests/adrag_site/test_sso.py).
"""
