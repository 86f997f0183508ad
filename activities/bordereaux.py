"""Produce a month's risk and claims bordereaux (docs/bordereaux.md): read the policies
bound and the payouts recorded in the month, write every tenant's files and the
every-tenant files in one transaction (models/db/bordereaux.py)."""

from __future__ import annotations

import uuid

from temporalio import activity

from models.db import bordereaux as bordereaux_db
from models.domain import bordereaux as b
from models.temporal.bordereaux import BordereauxJob, BordereauxProduced


@activity.defn
async def produce_bordereaux(job: BordereauxJob) -> BordereauxProduced:
    """Idempotent: a retry or a re-run over the same rows writes the same bytes."""
    first = b.parse_month(job.month)
    risk = await bordereaux_db.risk_lines(first)
    claims = await bordereaux_db.claim_lines(first)
    files = [
        bordereaux_db.ProducedFile("risk", None, b.risk_csv(risk, first), len(risk), b.totals(risk)),
        bordereaux_db.ProducedFile("claims", None, b.claims_csv(claims, first), len(claims), b.totals(claims)),
    ]
    tenants = sorted({line.tenant_id for line in (*risk, *claims)})
    for tenant in tenants:
        mine_risk = [line for line in risk if line.tenant_id == tenant]
        mine_claims = [line for line in claims if line.tenant_id == tenant]
        if mine_risk:
            files.append(bordereaux_db.ProducedFile(
                "risk", uuid.UUID(tenant), b.risk_csv(mine_risk, first), len(mine_risk), b.totals(mine_risk)))
        if mine_claims:
            files.append(bordereaux_db.ProducedFile(
                "claims", uuid.UUID(tenant), b.claims_csv(mine_claims, first), len(mine_claims), b.totals(mine_claims)))
    await bordereaux_db.store_month(job.month, files, job.produced_by)
    activity.logger.info("bordereaux %s: %d policies bound, %d payouts, %d tenants", job.month, len(risk), len(claims), len(tenants))
    return BordereauxProduced(
        month=job.month, tenants=len(tenants), risk_rows=len(risk), claims_rows=len(claims),
        risk_sha256=b.sha256(files[0].content), claims_sha256=b.sha256(files[1].content),
    )
