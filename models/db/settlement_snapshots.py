"""Reading settlement snapshots (`settlement_snapshot`, written by settlement with each
INITIAL, FINAL or revised settlement; docs/settlement.md, "Settlements anyone can re-run").
A snapshot row is never edited: a new set of values makes revision N + 1, the old ones stay
readable."""

from __future__ import annotations

import datetime as dt
import json
import uuid

from models.db.tables import PolicyItem, SettlementSnapshot


async def snapshot_of(coverage_id: uuid.UUID, revision: int | None = None) -> dict | None:
    """The coverage's snapshot of `revision` (the latest when None), or None: the row
    {id, coverage_id, revision, stage, sha256, body (the canonical text), index_value,
    created_at} with `snapshot`, the body decoded."""
    query = SettlementSnapshot.select().where(SettlementSnapshot.coverage_id == coverage_id)
    if revision is not None:
        query = query.where(SettlementSnapshot.revision == revision)
    row = await query.order_by(SettlementSnapshot.revision, ascending=False).first()
    if row is None:
        return None
    row["snapshot"] = json.loads(row["body"])
    if isinstance(row["created_at"], str):  # SQLite hands a raw timestamp back as text
        row["created_at"] = dt.datetime.fromisoformat(row["created_at"])
    return row


async def revisions_of(coverage_id: uuid.UUID) -> list[int]:
    """Every snapshot revision of the coverage, oldest first."""
    rows = await SettlementSnapshot.select(SettlementSnapshot.revision).where(
        SettlementSnapshot.coverage_id == coverage_id
    ).order_by(SettlementSnapshot.revision)
    return [r["revision"] for r in rows]


async def held_by_tenant(coverage_id: uuid.UUID, tenant_id: str | uuid.UUID) -> bool:
    """Whether one of the tenant's policies holds the coverage (what a tenant's internal
    client may read of settlement, as `GET /internal/settlements` scopes it)."""
    return await PolicyItem.exists().where(
        (PolicyItem.coverage_id == coverage_id) & (PolicyItem.tenant_id == uuid.UUID(str(tenant_id)))
    )
