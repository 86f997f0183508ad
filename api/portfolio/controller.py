"""The book's risk for the risk carrier (docs/portfolio.md): in-force totals, the aggregate and
occurrence exceedance curves with TVaR and standard errors, the as-if historical years, and the
claims reserve (owed but not yet paid on ended covers, issue 34).

Operations staff read the whole book, or one tenant's with `?tenantId=`; a tenant's internal
client its own book. The figures are the last stored result of a `PortfolioWorkflow` run on
the pricing queue; when the book has changed since (models/db/portfolio.py: the hash of its
in-force policies and their statuses, as of today), a request starts a run for the book as it
is and answers the last result as STALE, naming that run; before any result, 202 with
Retry-After.

`GET /internal/portfolio/report.pdf`: the same book's last stored result as the portfolio risk
report (docs/documents.md), rendered once per result by a `PortfolioReportWorkflow` on the
documents queue when first asked for, then served as stored."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import QueryParameter
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError

from api.auth.roles import Caller, callers
from api.auth.scopes import tenant_scope
from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.documents.controller import file_response, reader_of
from api.documents.on_demand import rendered, still_rendering
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import NotFound, Unavailable
from api.responses import DecimalNumberResponse
from models.clock import utcnow
from models.db import portfolio as portfolio_db
from models.db import portfolio_reports
from models.db.files import readable_file
from models.settings import Settings
from models.temporal.portfolio import (
    PORTFOLIO_REPORT_WORKFLOW,
    PORTFOLIO_WORKFLOW,
    PortfolioInput,
    PortfolioReportRequest,
    portfolio_report_workflow_id,
    portfolio_workflow_id,
)
from models.temporal.queues import task_queue
from models.wire.portfolio import PortfolioComputing, PortfolioReportRendering, PortfolioView

RETRY_AFTER_SECONDS = 5

TENANT_ID = Annotated[
    uuid.UUID | None,
    QueryParameter(name="tenantId", description="Operations staff: one tenant's book (without it: the whole book)"),
]


async def _start(temporal: Client, settings: Settings, tenant: uuid.UUID | None, book_hash: str, today: dt.date) -> str:
    """Start the run of this book (join it if it is running); its workflow id."""
    scope = portfolio_db.scope_of(tenant)
    workflow_id = portfolio_workflow_id(scope, book_hash)
    await temporal.start_workflow(
        PORTFOLIO_WORKFLOW,
        PortfolioInput(tenant_id=None if tenant is None else str(tenant), as_of=today.isoformat(),
                       currency=settings.catalogue_currency),
        id=workflow_id,
        task_queue=task_queue(settings.task_queue, "pricing"),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        static_summary=f"Portfolio risk · {'whole book' if tenant is None else tenant} · {today}",
    )
    return workflow_id


def _aware(value):
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value


class PortfolioController(Controller):
    opt = callers(Caller.TENANT_INTERNAL, Caller.OPERATIONS)
    path = "/internal/portfolio"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(operation_id="getPortfolioRisk",
         summary="The book's risk: in-force totals, AEP/OEP with TVaR, the as-if historical years",
         description="Operations staff: the whole book, or one tenant's with `tenantId`; a tenant's internal client: "
                     "its own. Answers the last computed result; when the book has changed since, a new run starts "
                     "and the result says STALE with that run's id. 202 with Retry-After while the first run of a "
                     "book computes (docs/portfolio.md). `reserve`: what ended covers not settled FINAL still owe, "
                     "per data set and month, beside what was paid (the claims reserve, as of `asOf`).",
         responses={202: ResponseSpec(data_container=PortfolioComputing, description="The first run is computing"),
                    **problems(*AUTHED, 404, 503)})
    async def portfolio(
        self, principal: NamedDependency[Principal], temporal: NamedDependency[Client],
        settings: NamedDependency[Settings], tenant_filter: TENANT_ID = None,
    ) -> Response[PortfolioView]:
        tenant = await tenant_scope(principal, tenant_filter, "book")
        scope = portfolio_db.scope_of(tenant)
        today = utcnow().date()
        book_hash = await portfolio_db.book_hash(tenant, today)
        latest = await portfolio_db.latest_result(scope)
        computing = None
        if latest is None or latest["book_hash"] != book_hash:
            try:
                computing = await _start(temporal, settings, tenant, book_hash, today)
            except (RPCError, RuntimeError) as err:
                if latest is None:
                    raise Unavailable(f"the book's risk cannot be computed now ({type(err).__name__}); try again shortly") from err
        if latest is None:
            body = PortfolioComputing(status="COMPUTING", workflow_id=computing or "", book_hash=book_hash)
            return Response(content=msgspec.json.encode(body), media_type="application/json", status_code=202,
                            headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        view = msgspec.convert({
            **latest["result"],
            "status": "CURRENT" if latest["book_hash"] == book_hash else "STALE",
            "tenantId": None if tenant is None else str(tenant),
            "version": latest["version"],
            "bookHash": latest["book_hash"],
            "asOf": latest["as_of"].isoformat() if isinstance(latest["as_of"], dt.date) else latest["as_of"],
            "computedAt": _aware(latest["computed_at"]).isoformat() if isinstance(latest["computed_at"], dt.datetime)
            else latest["computed_at"],
            "workflowId": latest["workflow_id"],
            "computingWorkflowId": computing,
        }, PortfolioView)
        return DecimalNumberResponse(view, status_code=200)

    @get("/report.pdf", operation_id="getPortfolioRiskReport", media_type="application/pdf",
         summary="The book's risk as a PDF for the risk carrier: the portfolio risk report of the last stored result",
         description="The same callers and books as `GET /internal/portfolio`. The report of the book's last stored "
                     "result (curves as charts, the worst as-if years, the largest accumulations, the method): "
                     "rendered when first asked for, then served as stored; 202 with Retry-After while it renders, "
                     "404 before the book has a result (`GET /internal/portfolio` starts its computation; "
                     "docs/documents.md).",
         responses={202: ResponseSpec(data_container=PortfolioReportRendering, description="The report is being rendered"),
                    **problems(*AUTHED, 404, 503)})
    async def report(
        self, request: Request, principal: NamedDependency[Principal], temporal: NamedDependency[Client],
        settings: NamedDependency[Settings], tenant_filter: TENANT_ID = None,
    ) -> Response:
        tenant = await tenant_scope(principal, tenant_filter, "book")
        scope = portfolio_db.scope_of(tenant)
        version = await portfolio_reports.latest_version(scope)
        if version is None:
            book = "the whole book" if tenant is None else f"the book of tenant {tenant}"
            raise NotFound(f"{book} has no computed risk yet: ask GET /internal/portfolio first (it starts the "
                           "computation), then ask for the report once it answers 200")
        # Who reads the stored report follows its scope (activities/documents.py): the whole
        # book's operations staff only, a tenant's book's the tenant and operations staff.
        owner = principal.tenant_id if tenant is None else str(tenant)
        file_id = portfolio_reports.report_file_id(scope, version)
        file = await readable_file(file_id, reader_of(principal))
        if file is None:
            try:
                done = await rendered(temporal, settings, PORTFOLIO_REPORT_WORKFLOW,
                                      PortfolioReportRequest(scope=scope, version=version, owner_tenant_id=owner),
                                      portfolio_report_workflow_id(scope, version),
                                      f"Portfolio risk report · {'whole book' if tenant is None else tenant} · v{version}")
            except (RPCError, RuntimeError) as err:
                raise Unavailable(f"the portfolio risk report cannot be rendered now ({type(err).__name__}); "
                                  "try again shortly") from err
            if not done:
                return still_rendering(PortfolioReportRendering(
                    status="RENDERING", document=portfolio_reports.KIND, tenant_id=tenant, version=version,
                    detail="the portfolio risk report is being rendered; retry after the number of seconds in Retry-After",
                ))
            file = await readable_file(file_id, reader_of(principal))
        return file_response(request, file, file_id)
