"""Travel sample surface at /travel/{tenant_id} (spec 4.3, docs/travel.md): a stay's
hotel-rain coverages by place and dates, quotes, policies, and the validated parametric
events (nights paid) by day.

Authenticated with the tenant's API key (`Authorization: Bearer <api key>`) and
`x-tenant-id`; another tenant's key, or a wrong one, is a 401.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import re

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, QueryParameter
from temporalio.client import Client

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.dates import checked_day
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import InvalidInput
from api.responses import DecimalNumberResponse
from api.settlement.responses import validated_events as validated_events_of
from api.travel import service
from models.db import settlement as settlement_db
from models.settings import Settings
from models.wire.common import FieldError
from models.wire.travel import (
    Coverages,
    TravelPolicy,
    TravelPolicyRequest,
    TravelQuote,
    TravelQuoteRequest,
    ValidatedEvents,
)


_AT = re.compile(r"at `\$\.([A-Za-z_]+)")


async def strict_body(request: Request, kind: type):
    """The body decoded again without type coercion: `qty: "3"` or `acceptance: 1` is a
    400 naming the field, not a silent conversion (a 0 would decline a quote)."""
    try:
        return msgspec.json.decode(await request.body(), type=kind, strict=True)
    except msgspec.ValidationError as err:
        found = _AT.search(str(err))
        field = found.group(1) if found else "body"
        raise InvalidInput(f"{field}: {err}", errors=[FieldError(field=field, message=str(err))]) from None


class TravelEventController(Controller):
    opt = callers(Caller.TRAVEL)
    path = "/travel/{tenant_id:str}"
    tags = ["Travel sample surface"]
    parameters = tenant_header(required=False)
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        "/coverages",
        operation_id="travelListCoverages",
        summary="The hotel-rain covers for a place and a stay",
        description=(
            "`lat`, `long`: the hotel, decimal degrees. `time_range`: the stay as an ISO 8601 interval "
            "`<check-in>/<check-out>` of dates (`2026-12-10/2026-12-13`: the nights of the 10th, 11th and 12th), "
            "of date-times with an offset or `Z` (taken in Indian time), or `<check-in>/P<n>D`. "
            "A place farther than 25 km from every monitoring target is not served: the list is empty. "
            "The first request for a stay waits while its covers are priced (seconds); it counts against the "
            "tenant's pricing quota (429 with Retry-After beyond it)."
        ),
        responses=problems(*AUTHED, 429, 503),
    )
    async def coverages(
        self,
        request: Request,
        tenant_id: FromPath[str],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
        lat: Annotated[str | None, QueryParameter(description="Latitude, decimal degrees (-90..90)")] = None,
        long: Annotated[str | None, QueryParameter(description="Longitude, decimal degrees (-180..180)")] = None,
        time_range: Annotated[str | None, QueryParameter(description="<check-in>/<check-out> (ISO 8601 interval)")] = None,
    ) -> Coverages:
        return Coverages(coverages=await service.coverages_for(
            lat, long, time_range, temporal, settings, principal.tenant_id, request.app.state.admission
        ))

    @post(
        "/quotes",
        operation_id="travelCreateQuote",
        summary="Quote a hotel-rain coverage: max_payout INR a night, for at most qty nights",
        description=(
            "`risk_price`: the premium of the stay (INR, 2 decimals): the expected payout from the hourly rain "
            "model's simulation of exactly the stay's nights, with the catalogue's risk load (parameter "
            "uncertainty, capital on the stay's 1-in-100 payout, expenses) and at least the minimum premium "
            "per stay; `technical_rate`: the expected payout per unit of maximum payout (max_payout x qty), "
            "6 decimals. The quote can be accepted until the end of the next UTC day, and never once the stay "
            "has begun."
        ),
        status_code=200,
        responses=problems(*AUTHED, 404, 503),
    )
    async def create_quote(
        self,
        request: Request,
        tenant_id: FromPath[str],
        data: JSONBody[TravelQuoteRequest],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[TravelQuote]:  # the document's schema (a bare DecimalNumberResponse documented none)
        data = await strict_body(request, TravelQuoteRequest)
        quote_id, priced = await service.create_quote(data, principal.tenant_id, temporal, settings)
        body = TravelQuote(quote_id=str(quote_id), technical_rate=priced.technical_rate, risk_price=priced.risk_price)
        return DecimalNumberResponse(body, status_code=200)

    @post(
        "/policies",
        operation_id="travelDecideQuote",
        summary="Accept a quote (an active policy) or decline it",
        description=(
            "`acceptance: true` makes the policy and puts it in force; accepting the same quote again answers "
            "the same policy. `acceptance: false` declines the quote: `policy_id` is null. An expired, declined "
            "or accepted quote cannot be decided otherwise (409)."
        ),
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def decide(
        self,
        request: Request,
        tenant_id: FromPath[str],
        data: JSONBody[TravelPolicyRequest],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> TravelPolicy:
        data = await strict_body(request, TravelPolicyRequest)
        policy_id, message = await service.decide(data, principal.tenant_id, temporal, settings)
        return TravelPolicy(policy_id=None if policy_id is None else str(policy_id), confirmation_message=message)

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
        checked_day(validated_day, "validated_day")
        return validated_events_of(await settlement_db.events_of_day(principal.tenant_id, validated_day))
