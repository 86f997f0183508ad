"""Internal surface: business partners (onboarded by a BusinessPartnerWorkflow)."""

from __future__ import annotations

import uuid

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody
from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems
from api.problems import NotFound
from models.settings import Settings
from models.commands import RegisterBusinessPartnerInput
from models.db import scoped_objects
from models.partners import partner_out
from models.tables import BusinessPartner as BusinessPartnerRow
from models.wire import BusinessPartner, NewBusinessPartner
from models.workflow_ids import PARTNER_ROLE, TENANT_ID, business_partner_workflow_id
from workflows.business_partners import BusinessPartnerWorkflow


class BusinessPartnerController(Controller):
    path = "/internal/business-partners"
    tags = ["Internal surface"]
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(
        operation_id="createBusinessPartner",
        summary="Register an intermediary, policy holder or risk carrier",
        description="Runs the onboarding workflow and answers 201 with the stored partner and its Location.",
        responses=problems(*AUTHED, 413, 503),
    )
    async def create(
        self,
        data: JSONBody[NewBusinessPartner],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[BusinessPartner]:
        partner_id = uuid.uuid4()
        command = RegisterBusinessPartnerInput(
            tenant_id=principal.tenant_id, partner_id=partner_id, partner=data, requested_by=principal.client_id
        )
        partner = await temporal.execute_workflow(
            BusinessPartnerWorkflow.run,
            command,
            id=business_partner_workflow_id(principal.tenant_id, partner_id),
            task_queue=settings.task_queue,
            search_attributes=TypedSearchAttributes(
                [SearchAttributePair(TENANT_ID, principal.tenant_id), SearchAttributePair(PARTNER_ROLE, data.role)]
            ),
        )
        return Response(
            content=partner, status_code=201, headers={"Location": f"/internal/business-partners/{partner_id}"}
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
