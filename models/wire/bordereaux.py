"""The bordereaux's JSON (docs/bordereaux.md): what a run produced. The files themselves are
CSV (`GET /internal/bordereaux/{month}/risk.csv`, `/claims.csv`)."""

from __future__ import annotations

from models.wire.common import CamelStruct


class BordereauxRunView(CamelStruct):
    month: str  # YYYY-MM
    workflow_id: str
    tenants: int  # tenants with a policy bound or a payout recorded in the month
    risk_rows: int  # policies bound in the month, every tenant
    claims_rows: int  # payouts recorded in the month, every tenant
    risk_sha256: str  # of the every-tenant files (GET …/risk.csv without tenantId, operations)
    claims_sha256: str
