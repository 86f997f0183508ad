"""Tenants and their OAuth clients: creation (secrets shown once) and credential checks."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
import uuid
from dataclasses import asdict, dataclass

from api.auth.tokens import STAFF_ROLES
from models.clock import utcnow
from models.db.core import write_transaction
from models.db.tables import ApiClient, Tenant
from models.domain.identity import check_email, identity_key
from models.domain.identity import email_key as person_email_key

# Client secrets and API keys are 256-bit random strings, not passwords: nobody can guess
# one, so a plain SHA-256 protects them at rest as well as a slow hash would, and checking
# one costs microseconds, so a flood of bad credentials cannot tie up the API's CPU.
SECRET_SCHEME = "sha256$"
_DUMMY_HASH = SECRET_SCHEME + hashlib.sha256(b"not-a-secret").hexdigest()


class TenantExists(ValueError):
    pass


class UnknownTenant(LookupError):
    pass


def check_tenant_name(name: str, what: str = "tenant") -> str:
    """1-100 printable characters, not blank; returns it stripped. ValueError saying what
    kind of name (`what`: "tenant", "staff") is wrong."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > 100:
        raise ValueError(f"a {what} name has 1 to 100 characters")
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise ValueError(f"a {what} name cannot contain control or format characters")
    return cleaned


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


def hash_secret(secret: str) -> str:
    return SECRET_SCHEME + hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class StaffCredentials:
    tenant_id: str  # the platform tenant: the staff client's x-tenant-id
    client_id: str
    client_secret: str
    scope: str
    roles: list[str]
    email: str = ""  # the person key

    def to_dict(self) -> dict:
        return asdict(self)


PLATFORM_TENANT_NAME = "platform"


class StaffExists(ValueError):
    pass


async def platform_tenant_id() -> uuid.UUID | None:
    row = await Tenant.select(Tenant.id).where(Tenant.kind == "PLATFORM").first()
    return row["id"] if row else None


async def create_staff(name: str, roles: list[str], scope: str, *, email: str) -> StaffCredentials:
    """A staff client NAME of the platform operator with `roles` (the platform tenant is
    made on first use); returns its secret, once. A staff member is a person: `email` (their
    person key) is required, and neither the name nor the e-mail may fold or look like an
    existing staff member's (models/domain/identity.py: a case variant, a Cyrillic look-alike):
    StaffExists, in words. The client's id is the person's stable staff id: four eyes compare
    it, never names. ValueError for a bad name, e-mail or role."""
    name = check_tenant_name(name, "staff")
    email = check_email(email)
    unknown = [r for r in roles if r not in STAFF_ROLES]
    if not roles or unknown:
        raise ValueError(f"roles are {', '.join(sorted(STAFF_ROLES))} (at least one); unknown: {', '.join(unknown)}")
    roles = sorted(set(roles))
    name_key, email_key = identity_key(name), person_email_key(email)
    try:
        async with write_transaction():
            tenant_id = await platform_tenant_id()
            if tenant_id is None:
                if await Tenant.exists().where(Tenant.name == PLATFORM_TENANT_NAME):
                    raise TenantExists(f"a tenant named {PLATFORM_TENANT_NAME!r} exists and is not the platform's")
                tenant_id = uuid.uuid4()
                await Tenant.insert(Tenant(id=tenant_id, name=PLATFORM_TENANT_NAME, created_at=utcnow(), kind="PLATFORM"))
            await _refuse_second_identity(tenant_id, name, name_key, email_key)
            client_secret = secrets.token_urlsafe(32)
            client = ApiClient(
                id=uuid.uuid4(),
                tenant_id=tenant_id,
                name=name,
                secret_hash=hash_secret(client_secret),
                # Staff have no API key (the travel surface is a tenant's): an unknowable digest.
                api_key_sha256=api_key_digest("staff_" + secrets.token_urlsafe(32)),
                internal=False,
                disabled=False,
                created_at=utcnow(),
                roles=",".join(roles),
                email=email,
                name_key=name_key,
                email_key=email_key,
            )
            await client.save()
    except Exception as exc:
        if _unique_violation(exc):  # a look-alike created at the same moment: the index refused it
            raise StaffExists(f"staff member {name!r} or e-mail {email!r} is (or looks like) an existing one's") from None
        raise
    return StaffCredentials(str(tenant_id), str(client.id), client_secret, scope, roles, email)


async def _refuse_second_identity(tenant_id: uuid.UUID, name: str, name_key: str, email_key: str) -> None:
    """StaffExists naming the existing staff member whose name or e-mail `name` / the e-mail
    fold or look like; the unique indexes refuse the same under concurrency."""
    if await ApiClient.exists().where((ApiClient.tenant_id == tenant_id) & (ApiClient.name == name)):
        raise StaffExists(f"staff member {name!r} exists")
    twin = await ApiClient.select(ApiClient.name).where(ApiClient.name_key == name_key).first()
    if twin is not None:
        raise StaffExists(
            f"staff name {name!r} folds or looks like existing staff member {twin['name']!r} "
            "(case, or a look-alike character): one person has one staff identity; pick a distinct name"
        )
    twin = await ApiClient.select(ApiClient.name).where(ApiClient.email_key == email_key).first()
    if twin is not None:
        raise StaffExists(
            f"that e-mail (or one that folds or looks like it) is staff member {twin['name']!r}'s: "
            "one person has one staff identity"
        )


def _unique_violation(exc: BaseException) -> bool:
    """A unique index refused the write (SQLite or PostgreSQL)."""
    import sqlite3

    from asyncpg.exceptions import UniqueViolationError

    return isinstance(exc, UniqueViolationError) or (isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc))


def roles_of(client: ApiClient) -> tuple[str, ...]:
    """A client's staff roles (empty for a tenant's client)."""
    return tuple(r for r in (client.roles or "").split(",") if r)


async def create_tenant(name: str, internal: bool, scope: str) -> NewCredentials:
    """Create tenant NAME with its first client; returns the secrets, once."""
    name = check_tenant_name(name)
    async with write_transaction():  # the tenant and its first client, or neither
        if await Tenant.exists().where(Tenant.name == name):
            raise TenantExists(f"tenant {name!r} exists; use `parametric tenants add-client {name}`")
        tenant = Tenant(id=uuid.uuid4(), name=name, created_at=utcnow())
        await tenant.save()
        return await create_client(str(tenant.id), name, internal, scope)


async def add_client(name: str, internal: bool, scope: str) -> NewCredentials:
    """Another client (own secret and API key) for the existing tenant NAME."""
    tenant = await Tenant.objects().where(Tenant.name == check_tenant_name(name)).first()
    if tenant is None or tenant.kind == "PLATFORM":
        raise UnknownTenant(f"no tenant named {name!r}" + (" (staff are made by `parametric staff create`)" if tenant else ""))
    return await create_client(str(tenant.id), tenant.name, internal, scope)


async def disable_client(client_id: str) -> bool:
    """Revoke a client: no new tokens, its API key stops working, its issued tokens are
    refused within a second (api/auth/revocations.py)."""
    updated = await ApiClient.update({ApiClient.disabled: True}).where(ApiClient.id == uuid.UUID(client_id)).returning(
        ApiClient.id
    )
    return bool(updated)


async def create_client(tenant_id: str, name: str, internal: bool, scope: str) -> NewCredentials:
    client_secret = secrets.token_urlsafe(32)
    api_key = "pk_" + secrets.token_urlsafe(32)
    secret_hash = hash_secret(client_secret)
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
    return hmac.compare_digest(secret_hash, hash_secret(secret))


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
    ok = _verify(secret_hash, client_secret)
    return client if ok and client is not None and not client.disabled else None


async def staff_name_from_credentials(credentials: object, role: str) -> str:
    """The name of the staff member holding `role` whose credentials these are (the JSON
    `parametric staff create` prints): the command line's stable identity for four eyes, as
    a token's is through the API. ValueError, in words, otherwise."""
    if not isinstance(credentials, dict) or not all(
        isinstance(credentials.get(k), str) for k in ("tenant_id", "client_id", "client_secret")
    ):
        raise ValueError("a JSON object with tenant_id, client_id and client_secret, as parametric staff create prints")
    client = await authenticate_client(credentials["tenant_id"], credentials["client_id"], credentials["client_secret"])
    if client is None or client.tenant_id != await platform_tenant_id() or not roles_of(client):
        raise ValueError("not a staff member's valid credentials (unknown or disabled client, or a wrong secret)")
    if role not in roles_of(client):
        raise ValueError(f"staff member {client.name!r} does not hold the {role} role")
    return client.name


async def client_for_api_key(api_key: str) -> ApiClient | None:
    client = await ApiClient.objects().where(ApiClient.api_key_sha256 == api_key_digest(api_key)).first()
    return client if client is not None and not client.disabled and not roles_of(client) else None
