"""Who may call what.

- Tenant and internal surfaces: `Authorization: Bearer <access token>` and `x-tenant-id`.
  Missing header → 400; no, invalid or expired token → 401 with `WWW-Authenticate`;
  token tenant ≠ header → 403. Which callers a route takes (a tenant's client, one with the
  internal role, a staff role) is the route's own declaration, checked by the guard of
  api/auth/roles.py (403).
- Travel surface `/travel/{tenant_id}/...`: `Authorization: Bearer <api key>` (an access
  token works too); the key's tenant must be the path's tenant (else 403); `x-tenant-id`
  is optional there and must match when sent.
- The credential is checked first. One that fails (bad or expired token, unknown key)
  counts against the caller's address and, once the address has spent its budget of
  failures, is answered 429 instead of 401 (api/ratelimit.py); a good one is never refused
  for anyone's failures. Each authenticated request counts against its client.
"""

from __future__ import annotations

import re
import uuid

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.middleware import AbstractAuthenticationMiddleware, AuthenticationResult

from api.auth.tenants import client_for_api_key
from api.auth.tokens import Principal, TokenError, TokenService
from api.problems import InvalidInput
from api.ratelimit import Limits, note

# Each a whole path segment: `^/schema` alone would also exclude `/schema-x` (any route
# whose path merely starts with it) from authentication.
PUBLIC_PATHS = [r"^/auth/", r"^/schema(/|$)", r"^/health$", r"^/\.well-known/", r"^/favicon\.ico$"]
_TRAVEL = re.compile(r"^/travel/([^/]+)(/|$)")
TENANT_HEADER = "x-tenant-id"


def _challenge(error: str, description: str) -> dict[str, str]:
    description = description.replace('"', "'")
    return {"WWW-Authenticate": f'Bearer realm="parametric", error="{error}", error_description="{description}"'}


def _unauthorized(description: str, error: str = "invalid_token") -> NotAuthorizedException:
    return NotAuthorizedException(detail=description, headers=_challenge(error, description))


def _bearer(connection: ASGIConnection) -> str:
    header = connection.headers.get("authorization")
    if not header:
        raise NotAuthorizedException(
            detail="Authorization: Bearer <token> is required",
            headers={"WWW-Authenticate": 'Bearer realm="parametric"'},
        )
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise _unauthorized("the Authorization header must use the Bearer scheme", "invalid_request")
    return value.strip()


def same_tenant(a: str, b: str) -> bool:
    try:
        return uuid.UUID(a) == uuid.UUID(b)
    except ValueError:
        return False


class AuthMiddleware(AbstractAuthenticationMiddleware):
    async def authenticate_request(self, connection: ASGIConnection) -> AuthenticationResult:
        limits: Limits = connection.app.state.limits
        try:
            result = await self._authenticate(connection)
        except NotAuthorizedException as exc:
            if not connection.headers.get("authorization"):  # no credential: not a failed one
                raise
            raise limits.failed(connection.scope) or exc from None
        note(connection.scope, limits.client.take(result.user.client_id))
        return result

    async def _authenticate(self, connection: ASGIConnection) -> AuthenticationResult:
        tokens: TokenService = connection.app.state.tokens
        travel = _TRAVEL.match(connection.url.path)
        header_tenant = connection.headers.get(TENANT_HEADER, "").strip()
        if len(connection.headers.getall(TENANT_HEADER, [])) > 1:
            raise InvalidInput.of_field(TENANT_HEADER, "send the header once")
        if travel:
            return await self._travel(connection, tokens, travel.group(1), header_tenant)
        if not header_tenant:
            raise InvalidInput.of_field(TENANT_HEADER, "the header is required: the caller's tenant id")
        principal = await self._verify(tokens, _bearer(connection))
        if not same_tenant(principal.tenant_id, header_tenant):
            raise PermissionDeniedException(detail=f"the token does not belong to tenant {header_tenant!r}")
        return AuthenticationResult(user=principal, auth=None)

    @staticmethod
    async def _verify(tokens: TokenService, token: str) -> Principal:
        try:
            return await tokens.verify(token)  # answers from its cache of verified tokens first
        except TokenError as exc:
            raise _unauthorized(str(exc)) from None

    async def _travel(
        self, connection: ASGIConnection, tokens: TokenService, path_tenant: str, header_tenant: str
    ) -> AuthenticationResult:
        credential = _bearer(connection)
        if credential.count(".") == 2:  # a JWT access token
            principal = await self._verify(tokens, credential)
        else:
            client = await client_for_api_key(credential)
            if client is None:
                raise _unauthorized("unknown or revoked API key")
            principal = Principal(str(client.tenant_id), str(client.id), bool(client.internal), "api_key")
        # Another tenant's key does not authenticate this tenant: 401, as a wrong key (issue 14).
        if not same_tenant(principal.tenant_id, path_tenant):
            raise _unauthorized("the credential does not belong to this tenant")
        if header_tenant and not same_tenant(principal.tenant_id, header_tenant):
            raise _unauthorized(f"the credential does not belong to tenant {header_tenant!r}")
        return AuthenticationResult(user=principal, auth=None)
