"""The book's risk for the risk carrier (docs/portfolio.md): in-force totals, the aggregate and
occurrence exceedance curves with TVaR and standard errors, the as-if historical years.

Operations staff read the whole book, or one tenant's with `?tenantId=`; a tenant's internal
client its own book. The figures are the last stored result of a `PortfolioWorkflow` run on
the pricing queue; when the book has changed since (models/db/portfolio.py: the hash of its
in-force policies and their statuses, as of today), a request starts a run for the book as it
is and answers the last result as STALE, naming that run; before any result, 202 with
Retry-After."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

import msgspec
from litestar import Controller, Response, get
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import QueryParameter
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError

from api.auth.roles import Caller, callers, is_staff
from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import InvalidInput, NotFound, Unavailable
from api.responses import DecimalNumberResponse
from models.clock import utcnow
from models.db import portfolio as portfolio_db
from models.db.tables import Tenant
from models.settings import Settings
from models.temporal.portfolio import (
    PORTFOLIO_WORKFLOW,
    PortfolioInput,
    portfolio_workflow_id,
)
from models.temporal.queues import task_queue
from models.wire.portfolio import PortfolioComputing, PortfolioView

RETRY_AFTER_SECONDS = 5

TENANT_ID = Annotated[
    uuid.UUID | None,
    QueryParameter(name="tenantId", description="Operations staff: one tenant's book (without it: the whole book)"),
]


async def _scope(principal: Principal, tenant_filter: uuid.UUID | None) -> uuid.UUID | None:
    """Whose book: a tenant's own; operations staff the `tenantId` asked for, or the whole book (None)."""
    if not is_staff(principal, Caller.OPERATIONS):
        own = uuid.UUID(principal.tenant_id)
        if tenant_filter is not None and tenant_filter != own:
            raise InvalidInput.of_field("tenantId", "only operations staff read another tenant's book")
        return own
    if tenant_filter is not None and not await Tenant.exists().where(
        (Tenant.id == tenant_filter) & (Tenant.kind != "PLATFORM")
    ):
        raise NotFound(f"tenant {tenant_filter} does not exist")
    return tenant_filter


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
                     "book computes (docs/portfolio.md).",
         responses={202: ResponseSpec(data_container=PortfolioComputing, description="The first run is computing"),
                    **problems(*AUTHED, 404, 503)})
    async def portfolio(
        self, principal: NamedDependency[Principal], temporal: NamedDependency[Client],
        settings: NamedDependency[Settings], tenant_filter: TENANT_ID = None,
    ) -> Response[PortfolioView]:
        tenant = await _scope(principal, tenant_filter)
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
