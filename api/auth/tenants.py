"""Tenants and their OAuth clients: creation (secrets shown once) and credential checks."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import asdict, dataclass

import anyio
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from models.clock import utcnow
from models.tables import ApiClient, Tenant

_hasher = PasswordHasher()
# Verified against when the client id is unknown, so both paths cost the same (no timing oracle).
_DUMMY_HASH = _hasher.hash("not-a-secret")


@dataclass(frozen=True, slots=True)
class NewCredentials:
    tenant_id: str
    client_id: str
    client_secret: str
    api_key: str
    scope: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def api_key_digest(api_key: str) -> str:
    # API keys are 256-bit random strings: a plain SHA-256 is a safe, constant-cost lookup key.
    return hashlib.sha256(api_key.encode()).hexdigest()


async def create_tenant(name: str, internal: bool, scope: str) -> NewCredentials:
    """Create tenant NAME (or reuse it) with a new client; returns the secrets, once."""
    tenant = await Tenant.objects().where(Tenant.name == name).first()
    if tenant is None:
        tenant = Tenant(id=uuid.uuid4(), name=name, created_at=utcnow())
        await tenant.save()
    return await create_client(str(tenant.id), name, internal, scope)


async def create_client(tenant_id: str, name: str, internal: bool, scope: str) -> NewCredentials:
    client_secret = secrets.token_urlsafe(32)
    api_key = "pk_" + secrets.token_urlsafe(32)
    secret_hash = await anyio.to_thread.run_sync(_hasher.hash, client_secret)
    client = ApiClient(
        id=uuid.uuid4(),
        tenant_id=uuid.UUID(tenant_id),
        name=name,
        secret_hash=secret_hash,
        api_key_sha256=api_key_digest(api_key),
        internal=internal,
        disabled=False,
        created_at=utcnow(),
    )
    await client.save()
    return NewCredentials(
        tenant_id=tenant_id,
        client_id=str(client.id),
        client_secret=client_secret,
        api_key=api_key,
        scope=scope,
    )


def _verify(secret_hash: str, secret: str) -> bool:
    try:
        return _hasher.verify(secret_hash, secret)
    except (VerificationError, InvalidHashError):
        return False


async def authenticate_client(tenant_id: str, client_id: str, client_secret: str) -> ApiClient | None:
    """The client if id and secret match and it belongs to `tenant_id`; None otherwise."""
    client = None
    try:
        client = (
            await ApiClient.objects()
            .where((ApiClient.id == uuid.UUID(client_id)) & (ApiClient.tenant_id == uuid.UUID(tenant_id)))
            .first()
        )
    except ValueError:  # not a UUID: unknown client
        client = None
    secret_hash = client.secret_hash if client is not None and not client.disabled else _DUMMY_HASH
    ok = await anyio.to_thread.run_sync(_verify, secret_hash, client_secret)
    return client if ok and client is not None and not client.disabled else None


async def client_for_api_key(api_key: str) -> ApiClient | None:
    client = await ApiClient.objects().where(ApiClient.api_key_sha256 == api_key_digest(api_key)).first()
    return client if client is not None and not client.disabled else None
