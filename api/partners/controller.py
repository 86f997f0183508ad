"""Internal surface: business partners (onboarded by a BusinessPartnerWorkflow)."""

from __future__ import annotations

import asyncio
import uuid

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody
from temporalio.client import Client
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError

from api.auth.tokens import Principal
from api.deps import WORKFLOW_DEADLINE, provide_temporal
from api.idempotency import HEADER as IDEMPOTENCY_KEY
from api.idempotency import Idempotency
from api.lifecycle import tenant_attributes, tenant_name
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import NotFound
from api.responses import encode_json
from models.db.core import scoped_objects
from models.db.partners import partner_out
from models.db.tables import BusinessPartner as BusinessPartnerRow
from models.domain.lifecycle import partner_id_for_key
from models.settings import Settings
from models.temporal.ids import business_partner_workflow_id
from models.temporal.partners import (
    BUSINESS_PARTNER_WORKFLOW,
    RegisterBusinessPartnerInput,
)
from models.temporal.search_attributes import PARTNER_ROLE
from models.wire.internal import BusinessPartner, NewBusinessPartner
from api.auth.roles import Caller, callers


class BusinessPartnerController(Controller):
    opt = callers(Caller.TENANT_INTERNAL)
    path = "/internal/business-partners"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(
        operation_id="createBusinessPartner",
        summary="Register an intermediary, policy holder or risk carrier",
        description="Runs the onboarding workflow and answers 201 with the stored partner and its Location.",
        responses=problems(*AUTHED, 413, 503),
    )
    async def create(
        self,
        request: Request,
        data: JSONBody[NewBusinessPartner],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[BusinessPartner]:
        key = request.headers.get(IDEMPOTENCY_KEY)
        idempotency = Idempotency(principal.tenant_id, key, msgspec.json.encode(data))
        replay = await idempotency.begin()
        if replay is not None:
            return replay
        try:
            # With an Idempotency-Key the id follows from the key and the body: a retry after
            # a request that gave up (503) or whose process died joins the first request's
            # workflow, or answers the partner it wrote, instead of onboarding a second one.
            partner_id = (
                partner_id_for_key(principal.tenant_id, key, idempotency.digest) if key is not None else uuid.uuid4()
            )
            command = RegisterBusinessPartnerInput(
                tenant_id=principal.tenant_id, partner_id=partner_id, partner=data, requested_by=principal.client_id
            )
            workflow_id = business_partner_workflow_id(principal.tenant_id, partner_id)
            keyed = key is not None
            register = temporal.execute_workflow(
                BUSINESS_PARTNER_WORKFLOW,
                command,
                result_type=BusinessPartner,
                id=workflow_id,
                task_queue=settings.task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING if keyed else WorkflowIDConflictPolicy.FAIL,
                # A run that completed answers again (below); one that failed may run again.
                id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY
                if keyed else WorkflowIDReusePolicy.ALLOW_DUPLICATE,
                search_attributes=TypedSearchAttributes(
                    [*await tenant_attributes(principal.tenant_id), SearchAttributePair(PARTNER_ROLE, data.role)]
                ),
                static_summary=f"Partner · {data.name} · {data.role} · {await tenant_name(principal.tenant_id)}",
            )
            partner = await asyncio.wait_for(_completed(temporal, workflow_id, register), WORKFLOW_DEADLINE)
            body = encode_json(partner)
        except BaseException:
            await idempotency.release()
            raise
        await idempotency.complete(201, body)
        return Response(
            content=body,
            status_code=201,
            media_type="application/json",
            headers={"Location": f"/internal/business-partners/{partner_id}"},
        )

    @get(
        "/{partner_id:uuid}",
        operation_id="getBusinessPartner",
        summary="One business partner of the caller's tenant",
        responses=problems(*AUTHED, 404),
    )
    async def get_one(self, partner_id: FromPath[uuid.UUID], principal: NamedDependency[Principal]) -> BusinessPartner:
        row = await scoped_objects(BusinessPartnerRow, principal.tenant_id).where(
            BusinessPartnerRow.id == partner_id
        ).first()
        if row is None:
            raise NotFound(f"business partner {partner_id} does not exist")
        return partner_out(row)


async def _completed(temporal: Client, workflow_id: str, register) -> BusinessPartner:
    """The partner the onboarding run wrote: the one started now or joined, or, for a retry
    of a request whose run completed, that run's."""
    try:
        return await register
    except WorkflowAlreadyStartedError:
        return await temporal.get_workflow_handle(workflow_id, result_type=BusinessPartner).result()
