"""The portfolio risk report's reads (docs/documents.md): one stored result of a scope by its
version, the names a person reads, and the report's file id and name (one file per result:
`portfolio-risk-report:<scope>:<version>`, stored with models/db/files.py)."""

from __future__ import annotations

import json
import uuid

from models.db.files import file_id_for
from models.db.portfolio import ALL
from models.db.tables import MonitoringTarget, PortfolioResult, Tenant

KIND = "portfolio-risk-report"


def report_file_id(scope: str, version: int) -> uuid.UUID:
    return file_id_for(KIND, scope, version)


def report_filename(scope: str, version: int) -> str:
    """`portfolio-risk-report-whole-book-v3.pdf`, `portfolio-risk-report-<tenant id>-v1.pdf`."""
    return f"{KIND}-{'whole-book' if scope == ALL else scope}-v{version}.pdf"


async def result_of(scope: str, version: int) -> dict | None:
    """The scope's stored result of that version: {version, book_hash, as_of, workflow_id,
    computed_at, result (dict)}."""
    row = await PortfolioResult.select().where((PortfolioResult.scope == scope) & (PortfolioResult.version == version)).first()
    if row is None:
        return None
    return {**row, "result": json.loads(row["result"])}


async def tenant_name(tenant_id: str) -> str | None:
    row = await Tenant.select(Tenant.name).where(Tenant.id == uuid.UUID(tenant_id)).first()
    return None if row is None else row["name"]


async def target_names(target_ids: list[str]) -> dict[str, str]:
    if not target_ids:
        return {}
    rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.name).where(
        MonitoringTarget.id.is_in(sorted(set(target_ids))))
    return {r["id"]: r["name"] for r in rows}


async def latest_version(scope: str) -> int | None:
    """The scope's last stored result's version (its report is the one served)."""
    row = await PortfolioResult.select(PortfolioResult.version).where(PortfolioResult.scope == scope).order_by(
        PortfolioResult.version, ascending=False).first()
    return None if row is None else row["version"]
