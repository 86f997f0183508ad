"""Stored documents: content-addressed checks, idempotent writes, tenant-scoped reads."""

from __future__ import annotations

import hashlib
import uuid

from models.clock import utcnow
from models.db.tables import StoredFile

FILE_NAMESPACE = uuid.UUID("0f3c2b8e-7a0e-4c1e-9a51-3f0d2f6b7c21")


def file_id_for(kind: str, owner_id: uuid.UUID | str, version: int | str = 1) -> uuid.UUID:
    """Deterministic id of a document (kind, owner, version): a retried render stores once."""
    return uuid.uuid5(FILE_NAMESPACE, f"{kind}:{owner_id}:{version}")


def schedule_file_id(policy_id: uuid.UUID | str, canceled: bool = False) -> uuid.UUID:
    """The policy schedule's file: the one issued at activation, or (`canceled`) the one
    issued again once the policy was cancelled, which says so."""
    return file_id_for("policy-schedule-canceled" if canceled else "policy-schedule", policy_id)


async def store_file(
    file_id: uuid.UUID, tenant_id: str | None, kind: str, filename: str, media_type: str, content: bytes
) -> dict:
    """Write the file unless it is already there; returns its metadata."""
    existing = await file_meta(file_id)
    if existing is not None:
        return existing
    # A concurrent retry may have stored it first: the file id is the primary key.
    await StoredFile.insert(
        StoredFile(
            id=file_id,
            tenant_id=None if tenant_id is None else uuid.UUID(str(tenant_id)),
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


_META = [
    StoredFile.id,
    StoredFile.tenant_id,
    StoredFile.kind,
    StoredFile.filename,
    StoredFile.media_type,
    StoredFile.size_bytes,
    StoredFile.sha256,
    StoredFile.created_at,
]


async def file_meta(file_id: uuid.UUID) -> dict | None:
    return await StoredFile.select(*_META).where(StoredFile.id == file_id).first()


async def readable_file(file_id: uuid.UUID, tenant_id: str, include_catalogue: bool) -> dict | None:
    """The file if the tenant owns it (or, with `include_catalogue`, it belongs to no tenant)."""
    tenant = uuid.UUID(str(tenant_id))
    condition = StoredFile.tenant_id == tenant
    if include_catalogue:
        condition = condition | StoredFile.tenant_id.is_null()
    return await StoredFile.select(*_META, StoredFile.content).where((StoredFile.id == file_id) & condition).first()
