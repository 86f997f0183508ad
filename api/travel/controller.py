"""Travel sample surface at /travel/{tenant_id}: validated parametric events by day.

Authenticated with the tenant's API key (`Authorization: Bearer <api key>`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from api.auth.tokens import Principal
from api.openapi_docs import AUTHED, problems, tenant_header
from models.db.core import scoped_select
from models.db.tables import ParametricEvent
from models.domain.money import from_minor
from models.wire.travel import ValidatedEvent, ValidatedEvents


class TravelEventController(Controller):
    path = "/travel/{tenant_id:str}"
    tags = ["Travel sample surface"]
    parameters = tenant_header(required=False)

    @get(
        "/parametric-event",
        operation_id="travelListValidatedEvents",
        summary="Validated parametric events (payouts) of the tenant's policies on a day",
        responses=problems(*AUTHED),
    )
    async def validated_events(
        self,
        tenant_id: FromPath[str],
        principal: NamedDependency[Principal],
        validated_day: Annotated[dt.date, QueryParameter(description="YYYY-MM-DD")],
    ) -> ValidatedEvents:
        rows = await scoped_select(ParametricEvent, principal.tenant_id).where(
            ParametricEvent.validated_day == validated_day
        ).order_by(ParametricEvent.created_at)
        return ValidatedEvents(
            validated_events=[
                ValidatedEvent(
                    policy_id=str(r["policy_id"]),
                    event_type=r["event_type"],
                    validated_day=r["validated_day"],
                    validated_amount=from_minor(r["payout_minor"], r["currency"]),
                )
                for r in rows
            ]
        )
