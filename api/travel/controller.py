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
from api.settlement.responses import validated_events as validated_events_of
from models.db import settlement as settlement_db
from models.wire.travel import ValidatedEvents


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
        return validated_events_of(await settlement_db.events_of_day(principal.tenant_id, validated_day))
