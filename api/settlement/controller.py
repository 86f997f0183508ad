"""Observations in; settlements, validated parametric events and claim explanations out, on
the internal and tenant surfaces (docs/settlement.md). Every read is scoped to the caller's
tenant in the query; another tenant's event or policy answers 404."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Literal


from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, QueryParameter
from temporalio.client import Client

from api.auth.tokens import Principal
from api.dates import checked_day
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import check_size
from api.policies.service import policy_or_404
from api.problems import InvalidInput, NotFound
from api.settlement import responses
from api.settlement.disputes import disputes_of
from api.settlement.monitoring import policy_monitoring
from api.settlement.observations import refusal
from api.settlement.observations import submit as submit_observations
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.db import settlement_snapshots as snapshots_db
from models.domain.observations import ObservationIn, Provenance
from api.documents.controller import file_response, reader_of
from api.documents.on_demand import rendered, still_rendering
from models.db.files import file_id_for, readable_file
from models.settings import Settings
from models.temporal.ids import claim_report_workflow_id
from models.temporal.settlement import CLAIM_REPORT_WORKFLOW, ClaimReportRequest
from models.wire.settlement import (
    ClaimExplanation,
    ObservationBatch,
    ObservationBatchResult,
    ParametricEventView,
    PolicyMonitoring,
    SettlementView,
)
from models.wire.travel import ValidatedEvents
from api.auth.roles import Caller, callers, is_staff

OBSERVATION_BATCH_BYTES = 8 * 1024 * 1024
ValidatedDay = Annotated[dt.date, QueryParameter(description="YYYY-MM-DD: the day the events were validated")]


def _row_in(o) -> ObservationIn:
    return ObservationIn(
        monitoring_target_id=o.monitoring_target_id, data_set=o.data_set, variable=o.variable, day=o.day,
        hour=o.hour, value=o.value, source=o.source, quality=o.quality, provisional=o.provisional,
        simulated=o.simulated,
    )


class ObservationController(Controller):
    opt = callers(Caller.DATA)
    path = "/internal/observations"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(
        operation_id="postObservations",
        summary="Measured index inputs, a batch validated as a whole",
        description=(
            "A bad batch answers 400 listing the rows at fault (`errors[].field` = "
            "`observations[i].field`) and writes nothing; a replayed batch changes nothing; a "
            "different value for the same target, data set, variable, day and hour is a revision, "
            "and a batch with revisions needs a `reason` (400 naming `reason` otherwise). "
            "Revisions that would change an amount already settled are held until a second data "
            "staff member approves them (`held`, `heldRevisionId`); the rest is stored. "
            "Settlements over the stored days are told at once (`settlementsNotified`), or, should that "
            "fail, by the settlement-notices sweep within minutes (docs/observations.md)."
        ),
        status_code=200,
        responses=problems(*AUTHED, 413),
        # A full batch (20,000 rows of about 200 bytes) is larger than other requests.
        request_max_body_size=OBSERVATION_BATCH_BYTES,
    )
    async def post_observations(
        self, data: JSONBody[ObservationBatch], principal: NamedDependency[Principal],
        temporal: NamedDependency[Client], settings: NamedDependency[Settings],
    ) -> ObservationBatchResult:
        rows = [_row_in(o) for o in data.observations]
        problems = await observations_db.validate(rows)
        if problems:
            raise refusal(problems)
        provenance = Provenance(submitted_by=principal.actor, reason=(data.reason or "").strip())
        return await submit_observations(rows, provenance, temporal, settings)


class SettlementController(Controller):
    opt = callers(Caller.TENANT_INTERNAL, Caller.OPERATIONS, Caller.DATA)
    path = "/internal/settlements"
    tags = ["Internal surface"]
    parameters = tenant_header()

    @get(
        operation_id="listSettlements",
        summary="Settlement state per catalogue coverage (FLAGGED: data missing past its window; DISPUTED: sources disagree)",
        description=(
            "A tenant's internal client sees the coverages its own policies hold, with its own policy "
            "count and payouts; operations and data staff see the whole book (or one tenant with `tenantId`). "
            "A coverage whose sources disagreed carries its latest `dispute` (both readings, the trigger, the "
            "tolerance, the proposal: `state=DISPUTED` lists those waiting for two data staff members; "
            "a tenant's client is not told who proposed or decided, nor why)."
        ),
        responses=problems(*AUTHED),
    )
    async def list_settlements(
        self,
        settings: NamedDependency[Settings],
        principal: NamedDependency[Principal],
        state_filter: Annotated[
            Literal["WAITING", "INITIAL", "SETTLED", "FLAGGED", "DISPUTED"] | None, QueryParameter(name="state")
        ] = None,
        target_id: Annotated[str | None, QueryParameter(name="targetId")] = None,
        tenant_filter: Annotated[
            uuid.UUID | None,
            QueryParameter(name="tenantId", description="Operations staff: one tenant's view (its policies and payouts)"),
        ] = None,
        size: Annotated[int, QueryParameter(description="At most this many, latest period first (1-100)")] = 100,
    ) -> list[SettlementView]:
        check_size(size, settings.max_page_size)
        staff = is_staff(principal, Caller.OPERATIONS, Caller.DATA)
        if staff:
            scope = tenant_filter  # the whole book, or the tenant asked for
        elif tenant_filter is not None and str(tenant_filter) != principal.tenant_id:
            raise InvalidInput.of_field("tenantId", "only operations staff read another tenant's settlements")
        else:
            scope = principal.tenant_id  # a tenant sees the coverages its policies hold, its own totals
        rows = await settlement_db.list_settlements(state_filter, target_id, size, tenant_id=scope)
        disputes = await disputes_of([r["coverage_id"] for r in rows], staff)
        return [responses.settlement_view(r, dispute=disputes.get(r["coverage_id"])) for r in rows]


async def _explanation(principal: Principal, event_id: uuid.UUID) -> ClaimExplanation:
    row = await settlement_db.event_of(principal.tenant_id, event_id)
    if row is None:
        raise NotFound(f"event {event_id} does not exist")
    item = await settlement_db.line_item_of(principal.tenant_id, row["line_item_id"])
    index_row = await settlement_db.index_of(row["coverage_id"], row["revision"])
    snapshot = await snapshots_db.snapshot_of(row["coverage_id"], row["revision"])
    return responses.explanation(row, index_row, item, snapshot)


async def _claim_report(request: Request, principal: Principal, event_id: uuid.UUID, temporal: Client,
                        settings: Settings) -> Response:
    """The PDF, rendered when first asked for (a workflow on the documents queue); 202 with
    Retry-After if it takes longer than the request deadline."""
    if await settlement_db.event_of(principal.tenant_id, event_id) is None:
        raise NotFound(f"event {event_id} does not exist")
    file_id = file_id_for("claim-report", event_id)
    file = await readable_file(file_id, reader_of(principal))
    if file is None:
        done = await rendered(temporal, settings, CLAIM_REPORT_WORKFLOW,
                              ClaimReportRequest(tenant_id=principal.tenant_id, event_id=event_id),
                              claim_report_workflow_id(principal.tenant_id, event_id), f"Claim report · event {event_id}")
        if not done:
            return still_rendering({"eventId": str(event_id), "document": "claim-report", "status": "RENDERING",
                                    "detail": "the claim report is being rendered; retry after the number of seconds in Retry-After"})
        file = await readable_file(file_id, reader_of(principal))
    return file_response(request, file, file_id)


async def _policy_events(principal: Principal, policy_id: uuid.UUID) -> list[ParametricEventView]:
    await policy_or_404(principal.tenant_id, policy_id)
    return [responses.event_view(r) for r in await settlement_db.events_of_policy(principal.tenant_id, policy_id)]


_REPORT = dict(
    media_type="application/pdf",
    summary="The claim report (PDF) of an event: index path chart, data, payout arithmetic",
    description="Rendered when first asked for: 200 with the PDF, or 202 with Retry-After while it renders.",
    responses=problems(*AUTHED, 404),
)


def _op(name: str):
    """The same handler on both surfaces: `name` on the tenant's, `internalName` on /internal."""

    def operation_id(handler, method, components) -> str:
        internal = any(isinstance(c, str) and c == "internal" for c in components)
        return f"internal{name[0].upper()}{name[1:]}" if internal else name

    return operation_id


class _EventRoutes(Controller):
    """Events, explanations, reports and monitoring, read alike on the tenant and internal surfaces."""

    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get("/parametric-events", operation_id=_op("validatedEvents"),
         summary="Validated parametric events of the tenant's policies on a day (payouts and adjustments)",
         responses=problems(*AUTHED))
    async def by_day(self, principal: NamedDependency[Principal], validated_day: ValidatedDay) -> ValidatedEvents:
        checked_day(validated_day, "validated_day")
        return responses.validated_events(await settlement_db.events_of_day(principal.tenant_id, validated_day))

    @get("/parametric-events/{event_id:uuid}", operation_id=_op("claimExplanation"),
         summary="Why an event paid what it paid: index path, data, payout arithmetic",
         responses=problems(*AUTHED, 404))
    async def explain(self, principal: NamedDependency[Principal], event_id: FromPath[uuid.UUID]) -> ClaimExplanation:
        return await _explanation(principal, event_id)

    @get("/parametric-events/{event_id:uuid}/report", operation_id=_op("claimReport"), **_REPORT)
    async def report(self, request: Request, principal: NamedDependency[Principal], event_id: FromPath[uuid.UUID],
                     temporal: NamedDependency[Client], settings: NamedDependency[Settings]) -> Response:
        return await _claim_report(request, principal, event_id, temporal, settings)

    @get("/policies/{policy_id:uuid}/events", operation_id=_op("policyEvents"),
         summary="Every settlement (paying or not) and adjustment of the policy's covers",
         responses=problems(*AUTHED, 404))
    async def of_policy(self, principal: NamedDependency[Principal], policy_id: FromPath[uuid.UUID]) -> list[ParametricEventView]:
        return await _policy_events(principal, policy_id)

    @get("/policies/{policy_id:uuid}/monitoring", operation_id=_op("policyMonitoring"),
         summary="Each cover's index to date against its trigger (from the observations so far)",
         responses=problems(*AUTHED, 404))
    async def monitoring(self, principal: NamedDependency[Principal], policy_id: FromPath[uuid.UUID]) -> PolicyMonitoring:
        return await policy_monitoring(principal.tenant_id, await policy_or_404(principal.tenant_id, policy_id))


class InternalEventController(_EventRoutes):
    opt = callers(Caller.TENANT_INTERNAL)
    path = "/internal"
    tags = ["Internal surface"]


class TenantEventController(_EventRoutes):
    opt = callers(Caller.TENANT)
    path = "/"
    tags = ["Tenant surface"]
