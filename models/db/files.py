"""Stored documents: ids keyed by a server secret, idempotent writes, reads checked against
each file's readers (models/domain/file_access.py)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import uuid

from models.clock import utcnow
from models.db import sealing
from models.db.tables import StoredFile
from models.domain.file_access import Audience, Reader, Readers, may_read, parse_roles
from models.settings import load_settings

_ID_CONTEXT = b"parametric document ids"


@functools.lru_cache(maxsize=4)
def _derived_key(setting: str | None, sealing_key: bytes) -> bytes:
    if setting:
        key = sealing.b64decode(setting)
        if len(key) != 32:
            raise ValueError(f"FILE_ID_KEY is base64 of 32 bytes, not {len(key)}")
        return key
    return hmac.new(sealing_key, _ID_CONTEXT, hashlib.sha256).digest()


def _id_key() -> bytes:
    """FILE_ID_KEY, or (unset) a key derived from the secrets key's first key (SECRETS_KEY, or
    var/keys/webhook-secrets.key with SQLite): the same on every host of a deployment."""
    setting = load_settings().file_id_key
    return _derived_key(setting, b"" if setting else sealing.keys()[0])


def file_id_for(kind: str, owner_id: uuid.UUID | str, version: int | str = 1) -> uuid.UUID:
    """The id of a document (kind, owner, version): HMAC-SHA256 under the server's file-id key,
    as a UUID (version 8, RFC 9562's custom layout). Deterministic, so a retried render
    stores once; unguessable without the key."""
    digest = hmac.new(_id_key(), f"{kind}:{owner_id}:{version}".encode(), hashlib.sha256).digest()
    value = int.from_bytes(digest[:16], "big")
    value = (value & ~(0xF << 76)) | (0x8 << 76)  # version 8
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    return uuid.UUID(int=value)


def schedule_file_id(policy_id: uuid.UUID | str, canceled: bool = False) -> uuid.UUID:
    """The policy schedule's file: the one issued at activation, or (`canceled`) the one
    issued again once the policy was cancelled, which says so."""
    return file_id_for("policy-schedule-canceled" if canceled else "policy-schedule", policy_id)


async def store_file(
    file_id: uuid.UUID, readers: Readers, kind: str, filename: str, media_type: str, content: bytes
) -> dict:
    """Write the file, readable by `readers`, unless it is already there; returns its metadata."""
    existing = await file_meta(file_id)
    if existing is not None:
        return existing
    # A concurrent retry may have stored it first: the file id is the primary key.
    await StoredFile.insert(
        StoredFile(
            id=file_id,
            tenant_id=None if readers.tenant_id is None else uuid.UUID(readers.tenant_id),
            audience=readers.audience.value,
            staff_roles=readers.roles_text,
            kind=kind,
            filename=filename,
            media_type=media_type,
            size_bytes=len(content),
            sha256=hashlib.sha256(content).hexdigest(),
            content=content,
            created_at=utcnow(),
        )
    ).on_conflict(action="DO NOTHING")
    return await file_meta(file_id)


async def publish_files(file_ids: list[uuid.UUID]) -> None:
    """Make these files the published catalogue's (a candidate run's documents once it is
    published)."""
    if not file_ids:
        return
    unpublished = StoredFile.id.is_in(list(file_ids)) & (StoredFile.audience != Audience.CATALOGUE.value)
    if await StoredFile.exists().where(unpublished):  # a read first: most runs had no candidate
        await StoredFile.update({StoredFile.audience: Audience.CATALOGUE.value, StoredFile.staff_roles: ""}).where(
            unpublished)


_META = [
    StoredFile.id,
    StoredFile.tenant_id,
    StoredFile.audience,
    StoredFile.staff_roles,
    StoredFile.kind,
    StoredFile.filename,
    StoredFile.media_type,
    StoredFile.size_bytes,
    StoredFile.sha256,
    StoredFile.created_at,
]


async def file_meta(file_id: uuid.UUID) -> dict | None:
    return await StoredFile.select(*_META).where(StoredFile.id == file_id).first()


def readers_of(row: dict) -> Readers:
    """A stored file's readers (an unknown audience reads as nobody's)."""
    try:
        audience = Audience(row["audience"])
    except ValueError:
        return Readers(Audience.STAFF)
    tenant = row["tenant_id"]
    return Readers(audience, None if tenant is None else str(tenant), parse_roles(row["staff_roles"]))


async def readable_file(file_id: uuid.UUID, reader: Reader, tenant_surface: bool = False) -> dict | None:
    """The file with its content if `reader` may read it on that surface; None otherwise (as
    if it did not exist: the caller answers 404)."""
    row = await StoredFile.select(*_META, StoredFile.content).where(StoredFile.id == file_id).first()
    if row is None or not may_read(readers_of(row), row["kind"], reader, tenant_surface):
        return None
    return row
