"""Issue and verify access tokens (JWT, ES256) for the client-credentials grant, with the
signing keys every API process shares (api/auth/keys.py)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from dataclasses import dataclass

import anyio
import jwt

from api.auth.keys import REFRESH_SECONDS, KeyRing, load_ring
from api.auth.revocations import Revocations
from models.settings import Settings

log = logging.getLogger("parametric.api")


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: resolved from a token or an API key."""

    tenant_id: str
    client_id: str
    internal: bool
    via: str  # "token" | "api_key"
    # Staff roles (data, actuary, operations: api/auth/roles.py); empty for a tenant's client.
    roles: frozenset[str] = frozenset()
    name: str = ""  # the staff member's name (shown as who ran, approved or published)

    @property
    def staff(self) -> bool:
        return bool(self.roles)

    @property
    def actor(self) -> str:
        """How the audit trail names this caller: a staff member by name; a tenant's client
        by its id (never shown to another tenant)."""
        return f"staff:{self.name}" if self.staff else f"client:{self.client_id}"


# The staff roles a token can carry (api/auth/roles.py names who may do what with them).
STAFF_ROLES = frozenset({"data", "actuary", "operations"})


class TokenError(Exception):
    """The token is missing, malformed, badly signed, expired or not for this API."""


class SigningUnavailable(Exception):
    """This process cannot sign: the current key's private half does not open with this
    host's secrets key (SECRETS_KEY differs between hosts)."""


LEEWAY = 30  # seconds of clock skew allowed on exp and nbf
VERIFIED_CACHE_SIZE = 4096
UNKNOWN_KID_REREAD_SECONDS = 1.0  # a token naming an unknown key re-reads the keys at most this often
RETRY_AFTER_FAILED_READ = 5.0  # seconds: the keys could not be read (database down): keep the last ones


class TokenService:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._jwk_client: jwt.PyJWKClient | None = None
        # A client sends the same token for up to an hour: its signature is checked once,
        # its validity window on every call. Insertion order makes the dict a FIFO.
        self._verified: dict[str, tuple[Principal, float, float]] = {}
        self._lock = threading.Lock()
        self._ring: KeyRing | None = None
        self._ring_lock: asyncio.Lock | None = None
        self._ensured = False
        self._reread_at = 0.0  # monotonic: the last re-read for an unknown key id
        self.revocations = Revocations()

    @property
    def external(self) -> bool:
        return self.settings.external_jwks_url is not None

    async def ring(self, refresh: bool = False) -> KeyRing:
        """The signing keys, re-read from the database every REFRESH_SECONDS (or now, with
        `refresh`). While they cannot be read (the database down) the last ones serve."""
        ring = self._ring
        if ring is not None and not refresh and time.monotonic() - ring.loaded_at < REFRESH_SECONDS:
            return ring
        if self._ring_lock is None:
            self._ring_lock = asyncio.Lock()
        async with self._ring_lock:
            if self._ring is not ring and self._ring is not None:
                return self._ring  # read by another request meanwhile
            try:
                self._ring = await load_ring(self.settings, ensure=not self._ensured)
                self._ensured = True
            except Exception:
                if ring is None:
                    raise
                log.warning("the signing keys could not be read; the last ones serve", exc_info=True)
                stale = time.monotonic() - REFRESH_SECONDS + RETRY_AFTER_FAILED_READ
                self._ring = KeyRing(ring.kid, ring.private_key, ring.public_by_kid, ring.jwks, stale)
            return self._ring

    async def jwks(self) -> dict:
        """The published keys: the current one and the retired ones that still verify."""
        return (await self.ring()).jwks

    async def issue(
        self, tenant_id: str, client_id: str, internal: bool, staff_roles: tuple[str, ...] = (), name: str = ""
    ) -> tuple[str, int]:
        """A signed access token. A staff client's token carries its staff roles (and its
        name); a tenant client's the internal role when it has it."""
        now = int(time.time())
        ttl = self.settings.token_ttl_seconds
        roles = sorted(staff_roles) if staff_roles else ([self.settings.internal_role] if internal else [])
        claims = {
            "iss": self.settings.issuer_for(tenant_id),
            "aud": self.settings.audience,
            "sub": client_id,
            "azp": client_id,
            self.settings.tenant_claim: tenant_id,
            "roles": roles,
            **({"name": name} if staff_roles and name else {}),
            "scp": ".default",
            "iat": now,
            "nbf": now,
            "exp": now + ttl,
            "jti": str(uuid.uuid4()),
        }
        ring = await self.ring()
        if ring.private_key is None:
            raise SigningUnavailable("this host cannot open the current signing key (SECRETS_KEY differs between hosts)")
        token = jwt.encode(claims, ring.private_key, algorithm="ES256", headers={"kid": ring.kid})
        return token, ttl

    def _external_key(self, token: str):
        if self._jwk_client is None:
            self._jwk_client = jwt.PyJWKClient(self.settings.external_jwks_url, cache_keys=True, lifespan=300)
        try:
            return self._jwk_client.get_signing_key_from_jwt(token).key
        except jwt.PyJWKClientError as exc:
            raise TokenError(f"signing key not found: {exc}") from exc

    async def _key_for(self, token: str):
        if self.external:  # a key not cached yet is fetched from the issuer: off the event loop
            return await anyio.to_thread.run_sync(self._external_key, token)
        try:
            kid = jwt.get_unverified_header(token).get("kid")
        except jwt.InvalidTokenError as exc:
            raise TokenError("malformed token") from exc
        key = (await self.ring()).public_by_kid.get(kid)
        if key is None and time.monotonic() - self._reread_at >= UNKNOWN_KID_REREAD_SECONDS:
            # Another process may have just made it (the first key, a rotation): read once more.
            self._reread_at = time.monotonic()
            key = (await self.ring(refresh=True)).public_by_kid.get(kid)
        if key is None:
            raise TokenError("unknown signing key")
        return key

    def cached_principal(self, token: str) -> Principal | None:
        """The principal of a token verified before and still inside its validity window."""
        entry = self._verified.get(token)
        if entry is None:
            return None
        principal, not_before, expires = entry
        if not_before - LEEWAY <= time.time() <= expires + LEEWAY:
            return principal
        with self._lock:
            self._verified.pop(token, None)
        return None

    async def verify(self, token: str) -> Principal:
        """The token's principal; TokenError when it is not valid, or (our own tokens) when
        its signing key was revoked or its client disabled since (checked on every call,
        cached or not: api/auth/revocations.py)."""
        principal = self.cached_principal(token)
        if principal is None:
            principal, claims = self._verify_signed(token, await self._key_for(token))
            with self._lock:
                while len(self._verified) >= VERIFIED_CACHE_SIZE:
                    self._verified.pop(next(iter(self._verified)))
                self._verified[token] = (principal, float(claims["nbf"]), float(claims["exp"]))
        if not self.external:
            refusal = await self.revocations.refusal(_kid(token), principal.client_id)
            if refusal is not None:
                raise TokenError(refusal)
        return principal

    def _verify_signed(self, token: str, key) -> tuple[Principal, dict]:
        algorithms = ["ES256", "RS256"] if self.external else ["ES256"]
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=algorithms,
                audience=self.settings.audience,
                options={"require": ["exp", "nbf", "iat", "iss", "aud", "sub"]},
                leeway=LEEWAY,
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenError("token expired") from exc
        except jwt.InvalidTokenError as exc:
            raise TokenError(f"invalid token: {exc}") from exc
        tenant_id = claims.get(self.settings.tenant_claim)
        if not isinstance(tenant_id, str) or not tenant_id:
            raise TokenError("token has no tenant claim")
        issuer_template = self.settings.external_issuer if self.external else None
        expected_iss = (
            issuer_template.replace("{tenant_id}", tenant_id)
            if issuer_template
            else self.settings.issuer_for(tenant_id)
        )
        if claims["iss"] != expected_iss:
            raise TokenError("token issuer does not match its tenant")
        roles = claims.get("roles") or []
        if not isinstance(roles, list):
            roles = []
        staff = frozenset(r for r in roles if isinstance(r, str) and r in STAFF_ROLES)
        if staff and self.external and tenant_id != (self.settings.external_platform_tenant or ""):
            # An external issuer's staff roles count only for the platform operator's own
            # tenant (AUTH_PLATFORM_TENANT): a tenant's directory cannot make its clients staff.
            staff = frozenset()
        client_id = str(claims.get("azp") or claims["sub"])
        principal = Principal(
            tenant_id=tenant_id,
            client_id=client_id,
            internal=not staff and self.settings.internal_role in roles,
            via="token",
            roles=staff,
            name=str(claims.get("name") or client_id) if staff else "",
        )
        return principal, claims


def _kid(token: str) -> str | None:
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.InvalidTokenError:
        return None
    return kid if isinstance(kid, str) else None
