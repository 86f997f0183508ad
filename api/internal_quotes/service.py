"""Fast quotes and policies of the internal surface, over the same workflows as the tenant
surface (docs/internal-quotes.md):

- create: validate the request against the catalogue and the tenant's partners, build the
  quote (models/domain/quotes.py: the chosen coverages of one risk period form one line item of
  sum insured S), then update-with-start of its
  QuoteWorkflow, which writes it (state `created`) and runs its pricing job;
- accept / POST /internal/policies: the tenant surface's conversion (the policy's workflow);
- reject: the quote workflow's `reject` update.
"""

from __future__ import annotations

import datetime as dt
import uuid

import msgspec
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy

from api.catalogue.service import snapshot
from api.idempotency import TransitionKey
from api.lifecycle import run_update, run_update_with_start, summary, tenant_attributes
from api.problems import Conflict, InvalidInput, NotFound
from api.quotes.service import convert_quote, period_attributes, reject_quote
from models.clock import utcnow
from models.db import catalogue as catalogue_db
from models.db import quotes as quotes_db
from models.db.core import scoped_update
from models.db.records import QuoteRow
from models.db.tables import BusinessPartner, Quote
from models.domain.cover_overlaps import CoverKey, days, overlaps
from models.domain.index_catalog import BY_ID
from models.domain.lifecycle import line_item_ids
from models.domain.money import MoneyError, to_minor
from models.domain.packages import PACKAGE_SEED
from models.domain.quotes import QuoteError, build_fast_quote
from models.domain.statuses import CoverageStatus, QuoteStatus
from models.domain.travel import INDEX_CODE as TRAVEL_INDEX
from models.settings import Settings
from models.temporal.ids import quote_workflow_id
from models.temporal.quotes import CREATED_UPDATE, QUOTE_WORKFLOW, REJECT_UPDATE, QuoteWorkflowInput
from models.temporal.search_attributes import MONITORING_TARGET_ID, QUOTE_STATE
from models.wire.common import FieldError
from models.wire.internal import NewFastQuote

FAST_QUOTE_SEED = PACKAGE_SEED  # the package pricing's seed, as a tenant quote's: the same package, the same figures


async def quote_or_404(tenant_id: str, quote_id: uuid.UUID) -> QuoteRow:
    """Any quote of the tenant (a fast quote, or a tenant-surface quote shown in the internal
    shape); another tenant's is a 404."""
    row = await quotes_db.quote_row(tenant_id, quote_id)
    if row is None:
        raise NotFound(f"quote {quote_id} does not exist")
    return row


async def fast_quote_or_404(tenant_id: str, quote_id: uuid.UUID) -> QuoteRow:
    """The tenant's fast quote; another tenant's (or a tenant-surface) quote is a 404."""
    row = await quotes_db.quote_row(tenant_id, quote_id)
    if row is None or row.kind != "FAST":
        raise NotFound(f"quote {quote_id} does not exist")
    return row


async def _covers(data: NewFastQuote, errors: list[FieldError]) -> list:
    """The chosen coverages; every fault found is added to `errors` (all are reported at once)."""
    ids = data.coverage_ids
    if not ids:
        errors.append(FieldError("coverageIds", "at least one coverage id is needed"))
    seen = set()
    rows, positions = [], []
    for i, cid in enumerate(ids):
        if cid in seen:
            errors.append(FieldError(f"coverageIds[{i}]", f"coverage {cid} is listed twice"))
            continue
        seen.add(cid)
        row = await catalogue_db.coverage_row(cid)
        if row is None:
            errors.append(FieldError(f"coverageIds[{i}]", f"unknown coverage {cid}"))
        elif row.status != CoverageStatus.ACTIVE or not row.priced:
            errors.append(FieldError(f"coverageIds[{i}]", f"coverage {cid} is not active (status {row.status}): it has no price yet"))
        elif BY_ID[row.index_definition_id].code == TRAVEL_INDEX:
            # Its stay is one period whatever months it spans, which only a travel quote's
            # conversion knows: it would never be settled under a fast quote.
            errors.append(FieldError(f"coverageIds[{i}]", f"coverage {cid} is a hotel-rain cover: it is sold on the travel surface only"))
        elif row.risk_period_start <= dt.date.today():
            errors.append(FieldError(f"coverageIds[{i}]", f"coverage {cid}'s risk period has started: it is no longer sold"))
        else:
            rows.append(row)
            positions.append(i)
    _refuse_overlaps(rows, positions, errors)
    if len({r.monitoring_target_id for r in rows}) > 1:
        errors.append(FieldError(
            "coverageIds",
            "the coverages must share one monitoring target: the joint model has no dependence between targets",
        ))
    if len({r.currency for r in rows}) > 1:
        errors.append(FieldError("coverageIds", "the coverages must share one currency"))
    money = data.sum_insured
    if rows and money.currency != rows[0].currency:
        errors.append(FieldError("sumInsured.currency", f"must be {rows[0].currency}, the coverages' currency"))
    if money.amount <= 0:
        errors.append(FieldError("sumInsured.amount", "must be greater than 0"))
    else:
        try:
            to_minor(money.amount, money.currency)
        except MoneyError as err:
            errors.append(FieldError("sumInsured.amount", str(err)))
    return rows


def _refuse_overlaps(rows: list, positions: list[int], errors: list[FieldError]) -> None:
    """Two coverages of one index at one target sharing a day would pay twice for one event
    (issue 33: a Dec 1-28 and a Dec 1-31 heat cover in one policy): the later one is named."""
    keys = [CoverKey(r.index_definition_id, r.monitoring_target_id, r.risk_period_start, r.risk_period_end) for r in rows]
    for o in overlaps(keys):
        first, second = rows[o.first], rows[o.second]
        errors.append(FieldError(
            f"coverageIds[{positions[o.second]}]",
            f"coverage {second.id} overlaps coverage {first.id} (coverageIds[{positions[o.first]}]): both cover "
            f"{BY_ID[second.index_definition_id].name} at target {second.monitoring_target_id} on {days(o)}; "
            "a quote holds one index once per target and day",
        ))


async def _check_customer(tenant_id: str, customer_id: uuid.UUID, errors: list[FieldError]) -> None:
    row = await BusinessPartner.select(BusinessPartner.role).where(
        (BusinessPartner.id == customer_id) & (BusinessPartner.tenant_id == uuid.UUID(tenant_id))
    ).first()
    if row is None:
        errors.append(FieldError("customerId", f"unknown business partner {customer_id}"))
    elif row["role"] != "POLICY_HOLDER":
        errors.append(FieldError("customerId", f"business partner {customer_id} has the role {row['role']}, not POLICY_HOLDER"))


async def create_fast_quote(data: NewFastQuote, tenant_id: str, temporal: Client, settings: Settings) -> uuid.UUID:
    """Validate, build and start the quote's workflow (it answers once the quote is written)."""
    errors: list[FieldError] = []
    rows = await _covers(data, errors)
    await _check_customer(tenant_id, data.customer_id, errors)
    if errors:
        detail = f"{errors[0].field}: {errors[0].message}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
        raise InvalidInput(detail, errors=errors)
    sum_insured_minor = to_minor(data.sum_insured.amount, data.sum_insured.currency)
    quote_id = uuid.uuid4()
    target_id = rows[0].monitoring_target_id
    try:
        draft = build_fast_quote(
            quote_id=quote_id,
            line_item_ids=line_item_ids(quote_id, len(rows)),
            tenant_id=tenant_id,
            name=data.name,
            customer_id=data.customer_id,
            monitoring_target_id=target_id,
            covers=[snapshot(r) for r in rows],
            sum_insured_minor=sum_insured_minor,
            today=utcnow().date(),  # validity runs on UTC days, as its deadline (models/domain/lifecycle.py)
        )
    except QuoteError as err:
        raise InvalidInput.of_field("coverageIds", str(err)) from None
    start, end = draft.risk_period_from, draft.risk_period_to
    attributes = [
        *await tenant_attributes(tenant_id),
        SearchAttributePair(QUOTE_STATE, QuoteStatus.PENDING),
        SearchAttributePair(MONITORING_TARGET_ID, target_id),
        *period_attributes(start, end),
    ]
    operation = WithStartWorkflowOperation(
        QUOTE_WORKFLOW,
        QuoteWorkflowInput(draft=draft, lifecycle=2, simulations=settings.simulations, seed=FAST_QUOTE_SEED),
        id=quote_workflow_id(tenant_id, quote_id),
        task_queue=settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
        search_attributes=TypedSearchAttributes(attributes),
        static_summary=await summary(f"Fast quote ({len(rows)} covers)", tenant_id, target_id, start, end),
    )
    await run_update_with_start(
        temporal, CREATED_UPDATE, operation, "the quote could not be created", deadline=settings.request_deadline_seconds
    )
    return quote_id


def _check_convertible(row: QuoteRow, what: str) -> None:
    if row.status == QuoteStatus.ACCEPTED:
        raise Conflict(f"cannot {what}: the quote was already converted to a policy")
    if row.status != QuoteStatus.CREATED:
        raise Conflict(f"cannot {what}: the quote is in state {row.state}")


async def accept_fast_quote(
    row: QuoteRow, external_policy_id: str, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey
) -> uuid.UUID:
    """completed → accepted, with its policy draft; `externalPolicyId` becomes the policy's
    external reference (and the quote's)."""
    _check_convertible(row, "accept")
    await scoped_update(Quote, tenant_id, {Quote.external_ref: external_policy_id}).where(
        (Quote.id == row.id) & (Quote.status == QuoteStatus.CREATED)
    )
    return await convert_quote(
        msgspec.structs.replace(row, external_ref=external_policy_id), tenant_id, temporal, settings, key
    )


async def policy_from_quote(row: QuoteRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey) -> uuid.UUID:
    """POST /internal/policies: the policy of a completed quote (one per quote: 409 after)."""
    _check_convertible(row, "create a policy from the quote")
    return await convert_quote(row, tenant_id, temporal, settings, key)


# A fast quote can be rejected in its job too (issue 29): its workflow cancels the job.
REJECTABLE_JOB = (QuoteStatus.PENDING, QuoteStatus.QUEUED, QuoteStatus.RUNNING)


async def reject_fast_quote(row: QuoteRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey) -> None:
    """Reject a fast quote at any state before it is accepted: completed (as a tenant quote is
    rejected), or still in its job (queued or running: the workflow writes the rejection, then
    cancels the pricing and ignores the document; a workflow started before that change
    refuses with a 409)."""
    if row.status not in (QuoteStatus.CREATED, *REJECTABLE_JOB):
        raise Conflict(f"cannot reject the quote in state {row.state}")
    if row.status == QuoteStatus.CREATED:
        await reject_quote(row, tenant_id, temporal, settings, key)
        return
    handle = temporal.get_workflow_handle(quote_workflow_id(tenant_id, row.id))
    await run_update(
        handle, REJECT_UPDATE, f"cannot reject the quote in state {row.state}", key,
        deadline=settings.request_deadline_seconds,
    )
