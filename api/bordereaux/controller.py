"""Monthly bordereaux for the risk carrier (docs/bordereaux.md): the risk (premium) and
claims files of a month as CSV, and a re-run on demand.

A tenant's internal client downloads its own; operations staff any tenant's with
`?tenantId=`, or every tenant's in one file without it (the `Coverholder Name` column says
whose each row is); `?riskCarrier=` keeps one risk carrier's rows (the `Insurer` column).

A month is produced by the `bordereaux-monthly` Schedule after it ends; one downloaded
before that run (or before the Schedule existed) is produced on the spot by the same
workflow (`bordereaux:<YYYY-MM>`), which the request waits for. A month not yet ended
answers 409: its files would change."""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated

from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, QueryParameter
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError

from api.auth.roles import Caller, callers
from api.auth.scopes import tenant_scope
from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import Conflict, InvalidInput, Unavailable
from models.clock import utcnow
from models.db import bordereaux as bordereaux_db
from models.domain import bordereaux as b
from models.settings import Settings
from models.temporal.bordereaux import (
    BORDEREAUX_WORKFLOW,
    BordereauxInput,
    BordereauxProduced,
    bordereaux_workflow_id,
)
from models.temporal.queues import task_queue
from models.wire.bordereaux import BordereauxRunView

# How long a download waits for its month to be produced on the spot (seconds).
PRODUCE_WAIT = 120


def _month(text: str) -> str:
    """The path's month, checked: 400 naming `month` if malformed, 409 if not yet ended."""
    try:
        first = b.parse_month(text)
    except b.BadMonth as bad:
        raise InvalidInput.of_field("month", str(bad)) from None
    if not b.month_ended(first, utcnow()):
        end = b.month_bounds(first)[1]
        raise Conflict(
            f"{b.month_text(first)} has not ended: its bordereaux are produced after {end:%Y-%m-%d} 00:00 UTC "
            "(the policies bound and payouts made in it may still change)"
        )
    return b.month_text(first)


async def _produce(temporal: Client, settings: Settings, month: str) -> BordereauxProduced:
    """Run the month's workflow (join the run in progress) and wait for it."""
    try:
        handle = await temporal.start_workflow(
            BORDEREAUX_WORKFLOW, BordereauxInput(month=month), id=bordereaux_workflow_id(month),
            task_queue=task_queue(settings.task_queue, "documents"),
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING, result_type=BordereauxProduced,
            static_summary=f"Bordereaux · {month}",
        )
        return await asyncio.wait_for(handle.result(), PRODUCE_WAIT)
    except (RPCError, RuntimeError, WorkflowFailureError, asyncio.TimeoutError) as err:
        raise Unavailable(f"the bordereaux of {month} could not be produced now ({type(err).__name__}); try again shortly") from err


RISK_CARRIER = Annotated[
    str | None,
    QueryParameter(name="riskCarrier", max_length=200,
                   description="Only the rows of this risk carrier (the Insurer column), e.g. Parametric Re Ltd"),
]
TENANT_ID = Annotated[
    uuid.UUID | None,
    QueryParameter(name="tenantId", description="Operations staff: one tenant's file (without it: every tenant's)"),
]


class BordereauxController(Controller):
    opt = callers(Caller.TENANT_INTERNAL, Caller.OPERATIONS)
    path = "/internal/bordereaux"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    async def _download(
        self, request: Request, kind: str, month: str, principal: Principal, temporal: Client, settings: Settings,
        tenant_filter: uuid.UUID | None, carrier: str | None,
    ) -> Response[bytes]:
        month = _month(month)
        scope = await tenant_scope(principal, tenant_filter, "bordereaux")
        stored = await bordereaux_db.stored_file(month, kind, scope)
        if stored is None:
            await _produce(temporal, settings, month)
            stored = await bordereaux_db.stored_file(month, kind, scope)
        if stored is None:  # pragma: no cover - the run wrote the month's files
            raise Unavailable(f"the bordereaux of {month} are not produced yet; try again shortly")
        content, sha, rows = stored["content"], stored["sha256"], stored["row_count"]
        if carrier is not None:
            content, rows = b.for_carrier(content, carrier)
            sha = b.sha256(content)
        etag = f'"{sha}"'
        headers = {
            "ETag": etag,
            "X-Content-SHA256": sha,
            "X-Bordereau-Rows": str(rows),
            "Content-Disposition": f'attachment; filename="bordereau-{kind}-{month}'
                                   f'{"-" + str(scope) if scope else ""}.csv"',
        }
        if request.headers.get("if-none-match") == etag:
            return Response(content=b"", status_code=304, headers=headers)
        return Response(content=content, media_type="text/csv", headers=headers)  # Litestar adds "; charset=utf-8"

    @get("/{month:str}/risk.csv", operation_id="downloadRiskBordereau", media_type="text/csv",
         summary="A month's risk (premium) bordereau: the policies bound in it (CSV, Lloyd's CRS v5 columns)",
         description="A tenant's internal client: its own. Operations staff: one tenant's with `tenantId`, every "
                     "tenant's without; `riskCarrier`: one risk carrier's rows. 400 for a month not `YYYY-MM`, 409 for "
                     "a month not ended (docs/bordereaux.md).",
         responses=problems(*AUTHED, 404, 409, 503))
    async def risk(
        self, request: Request, month: FromPath[str], principal: NamedDependency[Principal],
        temporal: NamedDependency[Client], settings: NamedDependency[Settings], tenant_filter: TENANT_ID = None,
        carrier: RISK_CARRIER = None,
    ) -> Response[bytes]:
        return await self._download(request, "risk", month, principal, temporal, settings, tenant_filter, carrier)

    @get("/{month:str}/claims.csv", operation_id="downloadClaimsBordereau", media_type="text/csv",
         summary="A month's claims bordereau: the payouts made in it, adjustments as rows of their own (CSV)",
         description="Who gets which file: as the risk bordereau (docs/bordereaux.md).",
         responses=problems(*AUTHED, 404, 409, 503))
    async def claims(
        self, request: Request, month: FromPath[str], principal: NamedDependency[Principal],
        temporal: NamedDependency[Client], settings: NamedDependency[Settings], tenant_filter: TENANT_ID = None,
        carrier: RISK_CARRIER = None,
    ) -> Response[bytes]:
        return await self._download(request, "claims", month, principal, temporal, settings, tenant_filter, carrier)

    @post("/{month:str}/runs", operation_id="produceBordereaux", status_code=200, opt=callers(Caller.OPERATIONS),
          summary="Produce a month's bordereaux again, now (operations staff)",
          description="Runs the month's workflow and answers what it produced; the same rows give byte-identical "
                      "files (the sha256 of the every-tenant files says so).",
          responses=problems(*AUTHED, 409, 503))
    async def rerun(
        self, month: FromPath[str], temporal: NamedDependency[Client], settings: NamedDependency[Settings]
    ) -> BordereauxRunView:
        month = _month(month)
        done = await _produce(temporal, settings, month)
        return BordereauxRunView(
            month=done.month, workflow_id=bordereaux_workflow_id(month), tenants=done.tenants, risk_rows=done.risk_rows,
            claims_rows=done.claims_rows, risk_sha256=done.risk_sha256, claims_sha256=done.claims_sha256,
        )
