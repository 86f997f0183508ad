"""`GET /internal/settlements/{coverageId}/snapshot[?revision=N]`: exactly the values a
settlement of the coverage used and their SHA-256, for anyone to re-run it
(docs/settlement.md, "Settlements anyone can re-run"; `parametric settlement verify`,
docs/examples/verify_settlement.py). Staff (operations, data, actuaries) read every
coverage's; a tenant's internal client only those its policies hold (another: 404)."""

from __future__ import annotations

import uuid
from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from api.auth.roles import Caller, callers, is_staff
from api.auth.tokens import Principal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import InvalidInput, NotFound
from models.db import settlement_snapshots as snapshots_db
from models.wire.settlement import SettlementSnapshotView


class SettlementSnapshotController(Controller):
    opt = callers(Caller.TENANT_INTERNAL, Caller.OPERATIONS, Caller.DATA, Caller.ACTUARY)
    path = "/internal/settlements"
    tags = ["Internal surface"]
    parameters = tenant_header()

    @get(
        "/{coverage_id:uuid}/snapshot",
        operation_id="settlementSnapshot",
        summary="The values a settlement used and their SHA-256: re-run it from these alone",
        description=(
            "The latest snapshot of the coverage's settlement, or revision `N` with `?revision=N` (every "
            "INITIAL, FINAL and revised settlement makes one; the old ones stay readable, `revisions` lists "
            "them). `snapshot` holds each day's value with its rung (FINAL | PROVISIONAL | FALLBACK), data "
            "set, source, revision and error, the per-unit terms, the calibration of fallback values and "
            "the result; `sha256` is the SHA-256 of its canonical bytes. `parametric settlement verify` and "
            "docs/examples/verify_settlement.py recompute the index and payout from it. 404 for a coverage "
            "or revision without one (and for a coverage none of a tenant's policies hold)."
        ),
        responses=problems(*AUTHED, 404),
    )
    async def snapshot(
        self,
        principal: NamedDependency[Principal],
        coverage_id: FromPath[uuid.UUID],
        revision: Annotated[int | None, QueryParameter(description="A snapshot revision (1, 2, ...); the latest when left out")] = None,
    ) -> SettlementSnapshotView:
        if revision is not None and revision < 1:
            raise InvalidInput.of_field("revision", "a snapshot revision is 1 or more")
        if not is_staff(principal) and not await snapshots_db.held_by_tenant(coverage_id, principal.tenant_id):
            raise NotFound(f"coverage {coverage_id} has no settlement snapshot")
        row = await snapshots_db.snapshot_of(coverage_id, revision)
        if row is None:
            which = f"revision {revision}" if revision is not None else "any"
            raise NotFound(f"coverage {coverage_id} has no settlement snapshot of {which}")
        return SettlementSnapshotView(
            coverage_id=row["coverage_id"], revision=row["revision"], stage=row["stage"], sha256=row["sha256"],
            snapshot=row["snapshot"], created_at=row["created_at"], revisions=await snapshots_db.revisions_of(coverage_id),
        )
