"""Tenant surface: policies (list, read one, activate, cancel, schedule)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Literal

import msgspec
from litestar import Controller, Request, Response, delete, get, patch
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, QueryParameter
from temporalio.client import Client

from api.auth.tokens import Principal
from api.dates import checked_day
from api.deps import provide_temporal
from api.documents.controller import file_response, reader_of
from api.documents.on_demand import rendered, still_rendering
from api.lifecycle import transition_key
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import PageParam, check_size, page_of
from api.policies.service import activate_policy, cancel_policy, policy_or_404
from api.problems import Conflict, InvalidInput
from api.quotes import responses
from models.db import policies as policies_db
from models.db.files import readable_file, schedule_file_id
from models.domain.statuses import STORED_POLICY_STATUSES, PolicyStatus
from models.settings import Settings
from models.temporal.ids import policy_schedule_workflow_id
from models.temporal.policies import POLICY_SCHEDULE_WORKFLOW, PolicyScheduleInput
from models.wire.common import Page
from models.wire.tenant import PolicyListItem, PolicyOut
from api.auth.roles import Caller, callers

# The statuses a policy row can hold (the query parameter is checked against them).
PolicyStatusParam = Literal[tuple(s.value for s in STORED_POLICY_STATUSES)]  # type: ignore[valid-type]


# A policy in these states was never activated: it will never have a schedule.
NEVER_ACTIVATED = (PolicyStatus.CREATED, PolicyStatus.LAPSED)


class DocumentPending(msgspec.Struct, rename="camel"):
    """202 body of a document that is not rendered yet."""

    policy_id: uuid.UUID
    document: str
    status: str  # RENDERING
    detail: str


class PolicyController(Controller):
    opt = callers(Caller.TENANT)
    path = "/policies"
    tags = ["Tenant surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        operation_id="listPolicies",
        summary="The tenant's policies, newest first",
        description="`from`/`to` keep policies whose cover period overlaps [from, to].",
        responses=problems(*AUTHED),
    )
    async def list_policies(
        self,
        principal: NamedDependency[Principal],
        settings: NamedDependency[Settings],
        page: PageParam = 0,
        size: Annotated[int, QueryParameter(description="Items per page (1-100)")] = 20,
        status: Annotated[PolicyStatusParam | None, QueryParameter(description="e.g. ACTIVE, CANCELED")] = None,
        period_from: Annotated[dt.date | None, QueryParameter(name="from", description="YYYY-MM-DD")] = None,
        period_to: Annotated[dt.date | None, QueryParameter(name="to", description="YYYY-MM-DD")] = None,
    ) -> Page[PolicyListItem]:
        check_size(size, settings.max_page_size)
        checked_day(period_from, "from")
        checked_day(period_to, "to")
        if period_from and period_to and period_to < period_from:
            raise InvalidInput.of_field("to", "is before `from`")
        rows, total = await policies_db.list_policies(principal.tenant_id, page, size, status, period_from, period_to)
        return page_of([responses.policy_list_item(r) for r in rows], total, page, size)

    @get(
        "/{policy_id:uuid}/schedule",
        operation_id="getPolicySchedule",
        summary="The policy schedule (PDF), rendered after activation",
        description=(
            "200 with the PDF once rendered. While it is being rendered (just after activation, "
            "or while a failing render is retried) 202 with `Retry-After` and a JSON status; for "
            "a policy never activated (draft, lapsed) 409. A cancelled policy's schedule is issued "
            "again when first asked for after the cancellation: it says CANCELED, with the date."
        ),
        media_type="application/pdf",
        responses={202: ResponseSpec(data_container=DocumentPending, description="Not rendered yet"), **problems(*AUTHED, 404, 409)},
    )
    async def schedule(
        self, request: Request, policy_id: FromPath[uuid.UUID], principal: NamedDependency[Principal],
        temporal: NamedDependency[Client], settings: NamedDependency[Settings],
    ) -> Response:
        row = await policy_or_404(principal.tenant_id, policy_id)
        if row.schedule_file_id is None:
            if row.status in NEVER_ACTIVATED:
                raise Conflict(
                    f"the policy is {row.status}: its schedule is rendered when the policy is activated"
                )
            pending = DocumentPending(
                policy_id=policy_id,
                document="policy-schedule",
                status="RENDERING",
                detail="the policy schedule is being rendered; retry after the number of seconds in Retry-After",
            )
            return still_rendering(pending)
        if row.status == PolicyStatus.CANCELED and row.schedule_file_id != schedule_file_id(policy_id, True):
            # cancelled since its schedule was issued: the schedule is issued again, saying so
            return await _reissued_schedule(request, principal, policy_id, temporal, settings)
        file = await readable_file(row.schedule_file_id, reader_of(principal))
        return file_response(request, file, row.schedule_file_id)

    @get(
        "/{policy_id:uuid}",
        operation_id="getPolicy",
        summary="One policy: its line items, covers, sums and status, as conversion and activation answer it",
        responses=problems(*AUTHED, 404),
    )
    async def get_policy(self, policy_id: FromPath[uuid.UUID], principal: NamedDependency[Principal]) -> PolicyOut:
        await policy_or_404(principal.tenant_id, policy_id)
        return await responses.policy_out(principal.tenant_id, policy_id)

    @patch(
        "/{policy_id:uuid}",
        operation_id="activatePolicy",
        summary="Activate a policy draft: it answers ACCEPTED; monitoring starts at each cover's risk-period start",
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def activate(
        self,
        request: Request,
        policy_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> PolicyOut:
        row = await policy_or_404(principal.tenant_id, policy_id)
        key = transition_key(request, principal.tenant_id, "activate", policy_id)
        await activate_policy(row, principal.tenant_id, temporal, settings, key)
        return await responses.policy_out(principal.tenant_id, policy_id)

    @delete(
        "/{policy_id:uuid}",
        operation_id="cancelPolicy",
        summary="Cancel an accepted or active policy: its covers no longer trigger",
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def cancel(
        self,
        request: Request,
        policy_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> PolicyOut:
        row = await policy_or_404(principal.tenant_id, policy_id)
        key = transition_key(request, principal.tenant_id, "cancel", policy_id)
        await cancel_policy(row, principal.tenant_id, temporal, settings, key)
        return await responses.policy_out(principal.tenant_id, policy_id)


async def _reissued_schedule(request: Request, principal: Principal, policy_id: uuid.UUID, temporal: Client,
                             settings: Settings) -> Response:
    """The cancelled policy's schedule, rendered by a PolicyScheduleWorkflow of its own
    (`policy-schedule:<tenant>:<policy>:canceled`) and waited for up to the request deadline;
    202 with Retry-After past it."""
    done = await rendered(temporal, settings, POLICY_SCHEDULE_WORKFLOW,
                          PolicyScheduleInput(tenant_id=principal.tenant_id, policy_id=policy_id),
                          policy_schedule_workflow_id(principal.tenant_id, policy_id, canceled=True),
                          f"Policy schedule (cancelled) · policy {policy_id}")
    if not done:
        return still_rendering(DocumentPending(
            policy_id=policy_id, document="policy-schedule", status="RENDERING",
            detail="the cancelled policy's schedule is being issued; retry after the number of seconds in Retry-After",
        ))
    file_id = schedule_file_id(policy_id, True)
    return file_response(request, await readable_file(file_id, reader_of(principal)), file_id)
