"""Wire types of the token endpoint (OAuth 2.0 client credentials, RFC 6749)."""

from __future__ import annotations

import msgspec

# --- auth -------------------------------------------------------------------------------


class TokenResponse(msgspec.Struct):
    access_token: str
    token_type: str
    expires_in: int
    scope: str


class OAuthError(msgspec.Struct, omit_defaults=True):
    """RFC 6749 section 5.2 error body (the token endpoint's own format)."""

    error: str
    error_description: str | None = None
