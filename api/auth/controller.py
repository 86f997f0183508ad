"""The token endpoint (OAuth 2.0 client credentials, RFC 6749 §4.4) and the published keys.

Token requests with a right secret count against the caller's real address (api/peer.py,
TOKEN_RATE_PER_SECOND); failing ones count against the budget of failures only. The secret is
checked first (a SHA-256 compare, microseconds): a right one is never refused for anyone's
failures, its address's or its client's. A failed client authentication counts against the
address and the claimed client (its tenant and client ids normalised, so `{...}`,
`urn:uuid:`, upper case or hyphenless spellings are one client, not fresh budgets); a
failing caller past either budget is answered `slow_down` instead of `invalid_client`."""

from __future__ import annotations

import base64
import binascii
import uuid
from typing import Any
from urllib.parse import unquote_plus

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath

from api.auth.tenants import authenticate_client, roles_of
from api.peer import peer_key
from api.auth.tokens import SigningUnavailable, TokenService
from api.problems import NotFound
from api.ratelimit import Limits, RateLimited, note
from models.db.tables import Tenant
from models.wire.auth import OAuthError, TokenResponse
from api.auth.roles import Caller, callers

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _oauth_error(status: int, error: str, description: str, headers: dict[str, str] | None = None) -> Response:
    return Response(
        content=msgspec.json.encode(OAuthError(error=error, error_description=description)),
        status_code=status,
        media_type="application/json",
        headers={**NO_STORE, **(headers or {})},
    )


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    return (unquote_plus(client_id), unquote_plus(secret)) if sep else None


def claimed_client(tenant_id: str, client_id: str) -> str | None:
    """The client a token request claims to be, as one key however its ids are spelled
    (`tenant/client`, canonical UUIDs); None when either is not a UUID (no such client)."""
    try:
        return f"{uuid.UUID(tenant_id)}/{uuid.UUID(client_id)}"
    except ValueError:
        return None


async def _known_tenant(tenant_id: str) -> None:
    try:
        known = await Tenant.exists().where(Tenant.id == uuid.UUID(tenant_id))
    except ValueError:
        known = False
    if not known:
        raise NotFound("no such tenant")


class TokenController(Controller):
    opt = callers(Caller.PUBLIC)
    path = "/auth/{tenant_id:str}"
    tags = ["Authentication"]
    security = [{}]

    @post(
        "/oauth2/v2.0/token",
        status_code=200,
        operation_id="issueToken",
        summary="Client-credentials grant: exchange client_id and client_secret for an access token",
        responses={
            200: ResponseSpec(TokenResponse, description="Access token (Bearer, JWT ES256)"),
            400: ResponseSpec(OAuthError, description="invalid_request, unsupported_grant_type or invalid_scope"),
            401: ResponseSpec(OAuthError, description="invalid_client"),
        },
    )
    async def token(self, request: Request, tenant_id: FromPath[str]) -> Response[Any]:
        tokens: TokenService = request.app.state.tokens
        settings = tokens.settings
        limits: Limits = request.app.state.limits
        if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return _oauth_error(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        form = await request.form()
        fields = {key: form.get(key) for key in ("grant_type", "client_id", "client_secret", "scope")}
        basic = _basic_credentials(request)
        if basic:
            fields["client_id"], fields["client_secret"] = basic
        if any(not isinstance(v, str) for v in fields.values() if v is not None):
            return _oauth_error(400, "invalid_request", "form fields must be plain strings")
        missing = [k for k in ("grant_type", "client_id", "client_secret", "scope") if not fields.get(k)]
        if "grant_type" in missing:
            return _oauth_error(400, "invalid_request", "grant_type is required")
        if fields["grant_type"] != "client_credentials":
            return _oauth_error(400, "unsupported_grant_type", "only client_credentials is supported")
        if missing:
            return _oauth_error(400, "invalid_request", f"missing: {', '.join(missing)}")
        claimed = claimed_client(tenant_id, fields["client_id"])
        client = None
        if claimed is not None:
            client = await authenticate_client(tenant_id, fields["client_id"], fields["client_secret"])
        if client is None:
            refusal = limits.failed(request.scope, *([claimed] if claimed else []))
            if refusal is not None:
                return _oauth_error(429, "slow_down", refusal.detail, refusal.headers)
            return _oauth_error(
                401,
                "invalid_client",
                "client authentication failed",
                {"WWW-Authenticate": 'Basic realm="parametric"'} if basic else None,
            )
        # The address's budget of token requests is a good caller's: charged once the secret is
        # right, so failing attempts (counted above, by `limits.failed`) never spend it and a
        # burst of wrong secrets from a NAT keeps no right one out (issue 33, section 4).
        try:
            note(request.scope, limits.token.take(peer_key(request.scope), "token requests"))
        except RateLimited as exc:
            return _oauth_error(429, "slow_down", exc.detail, exc.headers)
        if fields["scope"].split() != [settings.scope]:
            return _oauth_error(400, "invalid_scope", f"the scope must be {settings.scope}")
        try:
            access_token, ttl = await tokens.issue(
                str(client.tenant_id), str(client.id), bool(client.internal), roles_of(client), client.name
            )
        except SigningUnavailable as exc:
            return _oauth_error(503, "temporarily_unavailable", str(exc), {"Retry-After": "60"})
        body = TokenResponse(access_token=access_token, token_type="Bearer", expires_in=ttl, scope=settings.scope)
        return Response(content=msgspec.json.encode(body), media_type="application/json", headers=NO_STORE)

    @get("/discovery/v2.0/keys", operation_id="getTenantJwks", summary="The token signing keys (JWKS)")
    async def jwks(self, request: Request, tenant_id: FromPath[str]) -> dict[str, Any]:
        """The current key and the retired ones whose tokens are still valid (api/auth/keys.py)."""
        await _known_tenant(tenant_id)
        return await request.app.state.tokens.jwks()

    @get(
        "/v2.0/.well-known/openid-configuration",
        operation_id="getOpenIdConfiguration",
        summary="Issuer metadata (issuer, token endpoint, JWKS address)",
    )
    async def openid_configuration(self, request: Request, tenant_id: FromPath[str]) -> dict[str, Any]:
        await _known_tenant(tenant_id)
        settings = request.app.state.tokens.settings
        base = settings.public_base_url
        return {
            "issuer": settings.issuer_for(tenant_id),
            "token_endpoint": f"{base}/auth/{tenant_id}/oauth2/v2.0/token",
            "jwks_uri": f"{base}/auth/{tenant_id}/discovery/v2.0/keys",
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "scopes_supported": [settings.scope],
        }


@get("/.well-known/jwks.json", operation_id="getJwks", summary="The token signing keys (JWKS)", tags=["Authentication"], security=[{}], opt=callers(Caller.PUBLIC))
async def jwks(request: Request) -> dict[str, Any]:
    """The current key and the retired ones whose tokens are still valid (api/auth/keys.py)."""
    return await request.app.state.tokens.jwks()
