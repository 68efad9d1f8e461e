"""The provider's claims: who the person is, and their teams in a `groups` claim."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class TeamsValidator(OAuth2Validator):
    oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "groups": "profile"}

    def get_additional_claims(self, request):
        user = request.user
        return {
            "email": user.email,
            "email_verified": True,
            "preferred_username": user.username,
            "given_name": user.first_name,
            "family_name": user.last_name,
            "groups": sorted(group.name for group in user.groups.all()),
        }
