"""The quote transitions of the tenant surface: create (POST /quotes), convert to a policy
draft (PATCH /quotes/{id}) and reject, each one call to a workflow by name.

- Create: the priced covers from the catalogue (api/catalogue/service.py), the quote built
  by the pure domain rule (models/domain/quotes.py), then update-with-start of the quote's
  QuoteWorkflow, which prices the covers as one package with the line items' caps (read
  from the package-price cache when the package was priced before: models/domain/
  packages.py) and answers once the quote is written with the package's premiums.
- Convert: update-with-start of the policy's PolicyWorkflow, whose id follows from the
  quote (a retried conversion finds its own policy; docs/quotes-and-policies.md).
- Reject: an update of the quote's workflow.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import uuid

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)

from api.admission import PricingAdmission
from api.catalogue.service import NonViableSlots, held_slots, priced_covers
from api.catalogue.window import sellable_window
from api.idempotency import TransitionKey
from api.lifecycle import run_update, run_update_with_start, summary, tenant_attributes
from api.problems import Conflict, InvalidInput, NotFound
from models.clock import utcnow
from models.db import quotes as quotes_db
from models.db.records import QuoteRow
from models.db.tables import MonitoringTarget
from models.domain.lifecycle import (
    day_start,
    line_item_ids,
    policy_id_for_quote,
    quote_deadline,
    quote_id_for_key,
)
from models.domain.cover_overlaps import CoverKey, days, overlaps
from models.domain.index_catalog import BY_CODE
from models.domain.money import to_minor
from models.domain.packages import PACKAGE_SEED
from models.domain.quotes import (
    QuoteError,
    build_quote,
    check_period,
    fallback_slots,
    month_covers,
    month_segments,
    slots_for,
)
from models.domain.statuses import PolicyStatus, QuoteStatus
from models.settings import Settings
from models.temporal.ids import policy_workflow_id, quote_workflow_id
from models.temporal.policies import (
    CONVERT_UPDATE,
    POLICY_WORKFLOW,
    PolicyWorkflowInput,
)
from models.temporal.quotes import (
    CONVERTED_SIGNAL,
    CREATED_UPDATE,
    QUOTE_WORKFLOW,
    REJECT_UPDATE,
    QuoteWorkflowInput,
)
from models.temporal.search_attributes import (
    EXTERNAL_REF,
    MONITORING_TARGET_ID,
    POLICY_STATUS,
    QUOTE_ID,
    QUOTE_STATE,
    RISK_PERIOD_END,
    RISK_PERIOD_START,
)
from models.wire.common import FieldError
from models.wire.tenant import NewQuote


async def quote_or_404(tenant_id: str, quote_id: uuid.UUID) -> QuoteRow:
    """The tenant's quote row; another tenant's (or an internal) quote is a 404."""
    row = await quotes_db.quote_row(tenant_id, quote_id)
    if row is None or row.kind != "TENANT":
        raise NotFound(f"quote {quote_id} does not exist")
    return row


async def _validate(data: NewQuote, settings: Settings) -> None:
    money = data.sum_insured_for_line_item
    if money.currency != settings.catalogue_currency:
        raise InvalidInput(
            f"quotes are written in {settings.catalogue_currency}",
            errors=[FieldError(field="sumInsuredForLineItem.currency", message=f"must be {settings.catalogue_currency}")],
        )
    first, last = sellable_window(settings.sellable_months)
    for day, field in ((data.risk_period_from, "riskPeriodFrom"), (data.risk_period_to, "riskPeriodTo")):
        if not first <= day <= last:
            raise InvalidInput.of_field(
                field, f"{day} is outside the sellable window {first} to {last} (from next month, "
                f"{settings.sellable_months} months ahead)",
            )
    problem = check_period(data.risk_period_from, data.risk_period_to, dt.date.today())
    if problem:
        raise InvalidInput(problem, errors=[FieldError(field="riskPeriodFrom", message=problem)])
    if not await MonitoringTarget.exists().where(MonitoringTarget.id == data.monitoring_target_id):
        raise InvalidInput(
            f"unknown monitoring target {data.monitoring_target_id!r} (see GET /pincode-mapping)",
            errors=[FieldError(field="monitoringTargetId", message="unknown monitoring target")],
        )


async def create_quote(
    data: NewQuote,
    tenant_id: str,
    temporal: Client,
    settings: Settings,
    nonviable: NonViableSlots,
    idempotency_key: str | None,
    admission: PricingAdmission,
) -> uuid.UUID:
    """Price, build and write a quote through its workflow; answers the quote's id. Months
    never priced are priced first, once the tenant's pricing quota admits it (`admission`)."""
    await _validate(data, settings)
    target_id, start_day, end_day = data.monitoring_target_id, data.risk_period_from, data.risk_period_to
    # The two preferred covers of each month; where one is not viable, the next index. A month
    # left with one cover has a one-cover line item, one with none is listed as uncovered.
    slots = slots_for(start_day, end_day)
    gate = {"tenant_id": tenant_id, "admission": admission}
    covers = await priced_covers(temporal, settings, target_id, slots, nonviable, fallbacks=True, **gate)
    extra = fallback_slots(slots, set(covers))
    if extra:
        covers |= await priced_covers(temporal, settings, target_id, extra, nonviable, **gate)
        # heat not viable (or held) beside a month's one rain cover: wind, the last index
        more = fallback_slots(slots + extra, set(covers))
        if more:
            covers |= await priced_covers(temporal, settings, target_id, more, nonviable, **gate)
            extra += more
    segments = month_segments(start_day, end_day)
    held = set()
    if any(not month_covers(covers, s, e) for s, e in segments):  # say why those months are uncovered
        held = await held_slots(target_id, slots + extra)
    # With an Idempotency-Key the id follows from the key: a retry after a timeout finds
    # the first quote (its workflow, or its row) instead of making a second one.
    quote_id = quote_id_for_key(tenant_id, idempotency_key) if idempotency_key is not None else uuid.uuid4()
    money = data.sum_insured_for_line_item
    try:
        draft = build_quote(
            quote_id=quote_id,
            line_item_ids=line_item_ids(quote_id, len(segments)),
            tenant_id=tenant_id,
            monitoring_target_id=target_id,
            start=start_day,
            end=end_day,
            currency=money.currency,
            sum_insured_minor=to_minor(money.amount, money.currency),
            external_ref=data.external_ref,
            covers_by_slot=covers,
            today=dt.date.today(),
            held=held,
        )
    except QuoteError as err:
        if err.field is None:
            raise InvalidInput(str(err)) from None
        raise InvalidInput(str(err), errors=[FieldError(field=err.field, message=str(err))]) from None
    attributes = [
        *await tenant_attributes(tenant_id),
        SearchAttributePair(QUOTE_STATE, QuoteStatus.CREATED),
        SearchAttributePair(MONITORING_TARGET_ID, target_id),
        *period_attributes(start_day, end_day),
    ]
    if data.external_ref:
        attributes.append(SearchAttributePair(EXTERNAL_REF, data.external_ref))
    start = WithStartWorkflowOperation(
        QUOTE_WORKFLOW,
        # The workflow prices the quote's covers as one package before writing it.
        QuoteWorkflowInput(
            draft=draft, lifecycle=2, simulations=settings.simulations, seed=PACKAGE_SEED, price_package=True
        ),
        id=quote_workflow_id(tenant_id, quote_id),
        task_queue=settings.task_queue,
        # A keyed retry joins the first request's workflow while it runs.
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING if idempotency_key else WorkflowIDConflictPolicy.FAIL,
        search_attributes=TypedSearchAttributes(attributes),
        static_summary=await summary("Quote", tenant_id, target_id, start_day, end_day),
    )
    await run_update_with_start(
        temporal, CREATED_UPDATE, start, "the quote could not be created", deadline=settings.request_deadline_seconds
    )
    return quote_id


async def convert_quote(
    row: QuoteRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey
) -> uuid.UUID:
    """Convert the quote to a policy draft through the policy's workflow; answers the policy id."""
    quote_id = row.id
    if key.key is None and row.status != QuoteStatus.ACCEPTED:
        # Without a key, a rejected or expired quote is refused at once. An ACCEPTED one
        # goes to its policy's workflow: a conversion whose write landed after its
        # request gave up is completed there, any other is refused there.
        check_open(row, "convert")
    await check_no_overlaps(row, tenant_id)
    policy_id = policy_id_for_quote(quote_id)
    start, end = row.risk_period_from, row.risk_period_to
    attributes = [
        *await tenant_attributes(tenant_id),
        SearchAttributePair(POLICY_STATUS, PolicyStatus.CREATED),
        SearchAttributePair(QUOTE_ID, str(quote_id)),
        SearchAttributePair(MONITORING_TARGET_ID, row.monitoring_target_id),
        *period_attributes(start, end),
    ]
    if row.external_ref:
        attributes.append(SearchAttributePair(EXTERNAL_REF, row.external_ref))
    operation = WithStartWorkflowOperation(
        POLICY_WORKFLOW,
        PolicyWorkflowInput(
            tenant_id=tenant_id,
            policy_id=policy_id,
            monitoring_target_id=row.monitoring_target_id,
            external_ref=row.external_ref,
            # A travel quote's stay is one period, whatever months it spans (its coverage's); a
            # tenant quote's periods are its line items' months (not its uncovered ones).
            periods=[(start, end)] if row.kind == "TRAVEL" else covered_periods(row),
            quote_id=quote_id,
            lapse_at=quote_deadline(row.valid_until, start),
        ),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=settings.task_queue,
        # Concurrent conversions meet in one workflow (one of them converts); a policy
        # workflow that has ended is never started again for the same quote.
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        search_attributes=TypedSearchAttributes(attributes),
        static_summary=await summary("Policy", tenant_id, row.monitoring_target_id, start, end),
    )
    await run_update_with_start(
        temporal, CONVERT_UPDATE, operation, f"cannot convert the quote in state {row.status}", key,
        deadline=settings.request_deadline_seconds,
    )
    tell_quote_converted(temporal, tenant_id, quote_id, policy_id)
    return policy_id


def covered_periods(row: QuoteRow) -> list[tuple[dt.date, dt.date]]:
    """The risk periods a quote's policy monitors and settles: the calendar-month pieces of its
    risk period, less the months a tenant quote leaves uncovered (nothing to settle there)."""
    uncovered = {(m.start, m.end) for m in row.uncovered_months or ()}
    return [p for p in month_segments(row.risk_period_from, row.risk_period_to) if p not in uncovered]


log = logging.getLogger("parametric.api")
# Signals in flight (a task the loop holds only weakly would be collected before it ran).
_telling: set[asyncio.Task] = set()


def tell_quote_converted(temporal: Client, tenant_id: str, quote_id: uuid.UUID, policy_id: uuid.UUID) -> None:
    """Tell the quote's workflow of its conversion (the `converted` signal), in the background:
    the answer does not wait for it. Its QuoteState and PolicyId then say ACCEPTED within
    milliseconds and it ends, its deadline timer cancelled (issue 29; before, it learned at its
    deadline, up to 30 days later). Cheaper over the quote's life than the policy's workflow
    signalling it, which doubled the conversion's server work (docs/quotes-and-policies.md,
    bench/temporal_costs.py). A signal that fails (the quote's workflow has ended: a retried
    conversion; Temporal unreachable) changes nothing: the quote's workflow finds the conversion
    in the database at its deadline, as before."""
    task = asyncio.get_running_loop().create_task(_tell(temporal, tenant_id, quote_id, policy_id))
    _telling.add(task)
    task.add_done_callback(_telling.discard)


async def _tell(temporal: Client, tenant_id: str, quote_id: uuid.UUID, policy_id: uuid.UUID) -> None:
    try:
        await temporal.get_workflow_handle(quote_workflow_id(tenant_id, quote_id)).signal(CONVERTED_SIGNAL, str(policy_id))
    except Exception as err:  # noqa: BLE001 - the deadline is the fallback (docstring)
        log.info("quote %s: its workflow was not told of the conversion (%s); it finds it at its deadline", quote_id, err)


async def reject_quote(row: QuoteRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey) -> None:
    """Reject the quote through its workflow."""
    if key.key is None:
        check_open(row, "reject")
    handle = temporal.get_workflow_handle(quote_workflow_id(tenant_id, row.id))
    await run_update(
        handle, REJECT_UPDATE, f"cannot reject the quote in state {row.status}", key,
        deadline=settings.request_deadline_seconds,
    )


async def check_no_overlaps(row: QuoteRow, tenant_id: str) -> None:
    """400 naming the covers when the quote holds one index twice at its target for the same
    days (a quote written before issue 33: a policy never holds such a pair, it would pay
    twice for one event). Field paths are the quote's: `lineItems[i].coverages[k]`."""
    placed = [
        (f"lineItems[{i}].coverages[{k}]", c)
        for i, item in enumerate(await quotes_db.line_item_rows(tenant_id, quote_id=row.id))
        for k, c in enumerate(item.covers)
    ]
    keys = [CoverKey(c.index_definition_id, row.monitoring_target_id, c.start, c.end) for _, c in placed]
    errors = [
        FieldError(
            placed[o.second][0],
            f"coverage {placed[o.second][1].coverage_id} overlaps coverage {placed[o.first][1].coverage_id} "
            f"({placed[o.first][0]}): both cover {BY_CODE[placed[o.second][1].index_code].name} at target "
            f"{row.monitoring_target_id} on {days(o)}; a policy holds one index once per target and day",
        )
        for o in overlaps(keys)
    ]
    if errors:
        raise InvalidInput(f"cannot convert the quote: {errors[0].field}: {errors[0].message}", errors=errors)


def check_open(row: QuoteRow, what: str) -> None:
    """409 for a quote that is decided or past its deadline (the workflow would refuse too)."""
    if row.status != QuoteStatus.CREATED:
        raise Conflict(f"cannot {what} the quote in state {row.status}")
    deadline = quote_deadline(row.valid_until, row.risk_period_from)
    if utcnow() >= deadline:
        raise Conflict(f"cannot {what} the quote in state CREATED: it expired at {deadline:%Y-%m-%d %H:%M} UTC")


def period_attributes(start: dt.date, end: dt.date) -> list[SearchAttributePair]:
    """RiskPeriodStart/End: the first instant of the risk period and the first after it (UTC)."""
    return [
        SearchAttributePair(RISK_PERIOD_START, day_start(start)),
        SearchAttributePair(RISK_PERIOD_END, day_start(end + dt.timedelta(days=1))),
    ]
