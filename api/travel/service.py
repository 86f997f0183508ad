"""The travel surface's coverages, quotes and policies over the catalogue, pricing and
lifecycle the other surfaces use (docs/travel.md):

- coverages: the nearest monitoring target and the stay's nights; the stay's hotel-rain
  covers are read from the catalogue, or priced first by a TravelCoveragesWorkflow;
- quotes: priced from the cover's simulated distribution of nights paid and its parameter
  band (exact, no simulation per request), on the catalogue's risk-load basis with a
  minimum premium per stay, written through a QuoteWorkflow (kind TRAVEL);
- policies: acceptance converts the quote (the policy's workflow) and activates the policy;
  a refusal rejects the quote.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

from temporalio.client import Client, WithStartWorkflowOperation, WorkflowFailureError
from temporalio.common import Priority, SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy

from api.admission import PricingAdmission
from api.catalogue.service import snapshot
from api.idempotency import TransitionKey
from api.lifecycle import run_update_with_start, summary, tenant_attributes
from api.policies.service import activate_policy
from api.problems import Conflict, InvalidInput, NotFound, Unavailable
from api.quotes.service import convert_quote, period_attributes, reject_quote
from models.clock import utcnow
from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.db import travel as travel_db
from models.domain import travel
from models.domain.lifecycle import day_start, line_item_ids, policy_id_for_quote, quote_deadline
from models.domain.money import MoneyError, to_minor
from models.domain.statuses import PolicyStatus, QuoteStatus
from models.settings import Settings
from models.temporal.ids import quote_workflow_id
from models.temporal.quotes import CREATED_UPDATE, QUOTE_WORKFLOW, QuoteWorkflowInput
from models.temporal.search_attributes import EXTERNAL_REF, MONITORING_TARGET_ID, QUOTE_STATE
from models.temporal.travel import TRAVEL_COVERAGES_WORKFLOW, TravelCoveragesInput, travel_coverages_workflow_id
from models.wire.common import FieldError
from models.wire.travel import CoverageItem, TravelPolicyRequest, TravelQuoteRequest

STAY_SEED = 20261210  # the stay pricing's seed: the same stay is priced the same everywhere


invalid = InvalidInput.of_field


def today_in_india() -> dt.date:
    return utcnow().astimezone(travel.IST).date()


async def coverages_for(lat: str | None, long: str | None, time_range: str | None, temporal: Client,
                        settings: Settings, tenant_id: str, admission: PricingAdmission) -> list[CoverageItem]:
    """The stay's hotel-rain covers at the nearest target; none for a place outside the
    served area (farther than SERVED_RADIUS_KM from every target). A stay not priced yet is
    priced first, once the tenant's pricing quota admits it (api/admission.py)."""
    errors: list[FieldError] = []
    parsed = []
    for parse in (lambda: travel.parse_coordinate(lat, "lat", 90), lambda: travel.parse_coordinate(long, "long", 180),
                  lambda: travel.parse_stay(time_range, today_in_india())):
        try:
            parsed.append(parse())
        except travel.TravelInputError as err:
            errors.append(FieldError(field=err.field, message=err.message))
    if errors:  # every parameter at fault at once
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InvalidInput(f"{errors[0].field}: {errors[0].message}{more}", errors=errors)
    latitude, longitude, stay = parsed
    near = await travel_db.nearest_target(latitude, longitude)
    if near is None or near[1] > travel.SERVED_RADIUS_KM:
        return []
    target_id = near[0]
    ids = [travel.travel_coverage_id(target_id, stay, t) for t in travel.TRIGGERS_MM]
    covers = await travel_db.travel_covers(ids)
    if len(covers) < len(ids):
        async with admission.pricing(tenant_id) as priority:
            await _price_stay(target_id, stay, temporal, settings, priority)
        covers = await travel_db.travel_covers(ids)
    return [
        CoverageItem(
            id=str(cid),
            name=travel.cover_name(trigger, stay),
            definition=travel.cover_definition(trigger, stay, target_id),
        )
        for cid, trigger in zip(ids, travel.TRIGGERS_MM)
        if cid in covers and travel.offered(covers[cid].night_counts)
    ]


async def _price_stay(target_id: str, stay: travel.Stay, temporal: Client, settings: Settings,
                      priority: Priority) -> None:
    """Price the stay's covers (TravelCoveragesWorkflow) and wait for them, at most the
    request deadline. The workflow carries the tenant as its fairness key and the priority
    of a lone or a burst request (api/admission.py), which its pricing activity inherits:
    the pricing queue hands tenants' stays out in turn."""
    handle = await temporal.start_workflow(
        TRAVEL_COVERAGES_WORKFLOW,
        TravelCoveragesInput(
            target_id=target_id, first_night=stay.first_night, last_night=stay.last_night,
            triggers=list(travel.TRIGGERS_MM), simulations=settings.simulations, seed=STAY_SEED,
        ),
        id=travel_coverages_workflow_id(target_id, stay.first_night, stay.last_night),
        task_queue=settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        static_summary=f"Hotel rain covers · {target_id} · {stay.first_night}..{stay.last_night}",
        priority=priority,
    )
    try:
        await asyncio.wait_for(handle.result(), timeout=settings.request_deadline_seconds)
    except asyncio.TimeoutError:
        raise Unavailable(
            "the stay's covers are still being priced; ask again in a few seconds", headers={"Retry-After": "5"}
        ) from None
    except WorkflowFailureError:
        # The pricing failed for good (its workflow, in the Temporal UI, says why); the
        # next request tries again.
        raise Unavailable(
            "the stay's covers could not be priced just now; ask again later", headers={"Retry-After": "60"}
        ) from None


def _uuid(text: str, field: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        raise invalid(field, f"{text!r} is not a coverage id (a UUID)" if field == "coverage_id"
                      else f"{text!r} is not a quote id (a UUID)") from None


def _check_quote_request(data: TravelQuoteRequest, nights: int) -> Decimal:
    errors: list[FieldError] = []
    max_payout = data.max_payout
    if not max_payout.is_finite() or max_payout <= 0:
        errors.append(FieldError("max_payout", "must be greater than 0 (INR a night)"))
    elif max_payout > travel.MAX_PAYOUT_PER_NIGHT:
        errors.append(FieldError("max_payout", f"may be at most {travel.MAX_PAYOUT_PER_NIGHT} INR a night"))
    else:
        try:
            to_minor(max_payout, travel.CURRENCY)
        except MoneyError as err:
            errors.append(FieldError("max_payout", str(err)))
    if data.qty < 1:
        errors.append(FieldError("qty", "must be at least 1 night"))
    elif data.qty > nights:
        errors.append(FieldError("qty", f"the coverage's stay has {nights} night(s); qty may be at most {nights}"))
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InvalidInput(f"{errors[0].field}: {errors[0].message}{more}", errors=errors)
    return max_payout


async def create_quote(data: TravelQuoteRequest, tenant_id: str, temporal: Client, settings: Settings):
    """Price and write a travel quote; answers (quote id, its price)."""
    coverage_id = _uuid(data.coverage_id, "coverage_id")
    cover = (await travel_db.travel_covers([coverage_id])).get(coverage_id)
    if cover is None:
        raise NotFound(f"coverage {coverage_id} does not exist (GET /coverages lists a stay's covers)")
    row = cover.coverage
    if utcnow() >= day_start(row.risk_period_start):
        raise invalid("coverage_id", f"the stay's first night ({row.risk_period_start}) has begun: it is no longer sold")
    nights = (row.risk_period_end - row.risk_period_start).days + 1
    max_payout = _check_quote_request(data, nights)
    priced = travel.price(cover.night_counts, max_payout, data.qty, travel.TravelLoads.of(settings),
                          cover.replicate_counts)
    if priced.expected_loss <= 0:  # a cover that pays nothing in expectation is not sold (issue 24)
        raise invalid("max_payout", f"at {max_payout} INR a night for {data.qty} night(s) the expected payout rounds "
                                    "to 0.00 INR: this cover is not offered at that amount")
    quote_id = uuid.uuid4()
    draft = travel.build_travel_quote(
        quote_id=quote_id,
        line_item_id=line_item_ids(quote_id, 1)[0],
        tenant_id=tenant_id,
        monitoring_target_id=row.monitoring_target_id,
        cover=snapshot(row),
        max_payout=max_payout,
        qty=data.qty,
        priced=priced,
        client_ref=data.technical_client_ref,
        today=utcnow().date(),
    )
    start, end = row.risk_period_start, row.risk_period_end
    attributes = [
        *await tenant_attributes(tenant_id),
        SearchAttributePair(QUOTE_STATE, QuoteStatus.CREATED),
        SearchAttributePair(MONITORING_TARGET_ID, row.monitoring_target_id),
        SearchAttributePair(EXTERNAL_REF, data.technical_client_ref),
        *period_attributes(start, end),
    ]
    operation = WithStartWorkflowOperation(
        QUOTE_WORKFLOW,
        QuoteWorkflowInput(draft=draft, lifecycle=2),
        id=quote_workflow_id(tenant_id, quote_id),
        task_queue=settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
        search_attributes=TypedSearchAttributes(attributes),
        static_summary=await summary("Travel quote", tenant_id, row.monitoring_target_id, start, end),
    )
    await run_update_with_start(
        temporal, CREATED_UPDATE, operation, "the quote could not be created", deadline=settings.request_deadline_seconds
    )
    return quote_id, priced


def _confirmation(policy_id: uuid.UUID, row) -> str:
    nights = (row.risk_period_to - row.risk_period_from).days + 1
    return (
        f"Policy {policy_id} is accepted: hotel-rain cover at {row.monitoring_target_id} for {nights} night(s), "
        f"{row.risk_period_from} to {row.risk_period_to}, monitored from the first night; each night whose daytime "
        f"rain reaches the trigger is paid automatically (reference {row.external_ref})."
    )


async def decide(data: TravelPolicyRequest, tenant_id: str, temporal: Client, settings: Settings):
    """Accept (→ an active policy) or decline the quote: (policy id or None, message)."""
    quote_id = _uuid(data.quote_id, "quote_id")
    row = await quotes_db.quote_row(tenant_id, quote_id)
    if row is None or row.kind != "TRAVEL":
        raise NotFound(f"quote {quote_id} does not exist")
    if not data.acceptance:
        if row.status == QuoteStatus.REJECTED:
            return None, f"Quote {quote_id} was declined before; no policy was made."
        if row.status == QuoteStatus.CREATED and utcnow() < quote_deadline(row.valid_until, row.risk_period_from):
            await reject_quote(row, tenant_id, temporal, settings, TransitionKey(tenant_id, "reject", quote_id, None))
            return None, f"Quote {quote_id} is declined; no policy was made."
        raise Conflict(f"cannot decline the quote in state {_state(row)}")
    policy_id = policy_id_for_quote(quote_id)
    if row.status != QuoteStatus.ACCEPTED:
        if row.status != QuoteStatus.CREATED or utcnow() >= quote_deadline(row.valid_until, row.risk_period_from):
            raise Conflict(f"cannot accept the quote in state {_state(row)}")
        try:
            await convert_quote(row, tenant_id, temporal, settings, TransitionKey(tenant_id, "convert", quote_id, None))
        except Conflict:
            again = await quotes_db.quote_row(tenant_id, quote_id)
            if again is None or again.status != QuoteStatus.ACCEPTED:
                raise
    policy = await policies_db.policy_row(tenant_id, policy_id)
    if policy is None:  # pragma: no cover - the conversion answers once the policy is written
        raise Unavailable("the policy is being written; ask again", headers={"Retry-After": "1"})
    if policy.status == PolicyStatus.CREATED:
        try:
            await activate_policy(policy, tenant_id, temporal, settings,
                                  TransitionKey(tenant_id, "activate", policy_id, None))
        except Conflict:
            policy = await policies_db.policy_row(tenant_id, policy_id)
            if policy is None or policy.status == PolicyStatus.CREATED:
                raise
    elif policy.status not in (PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE, PolicyStatus.EXPIRED):
        raise Conflict(f"the quote's policy {policy_id} is {policy.status}")
    return policy_id, _confirmation(policy_id, row)


def _state(row) -> str:
    if row.status == QuoteStatus.CREATED and utcnow() >= quote_deadline(row.valid_until, row.risk_period_from):
        return "EXPIRED"
    return str(row.status)
