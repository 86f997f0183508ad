"""Wire types of the tenant surface (`/quotes`, `/policies`, `/index-definitions`)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Annotated, Literal

import msgspec

from models.wire.capacity import Month, QuoteCapacity
from models.wire.common import CamelStruct, Money, MonitoringTargetOut, ShortText

# --- catalogue ----------------------------------------------------------------------------


class IndexDefinitionOut(CamelStruct):
    id: str
    name: str
    description: str
    unit: str
    type: str


# --- tenant surface: quotes and policies ------------------------------------------------------


class NewQuote(CamelStruct, forbid_unknown_fields=False):
    monitoring_target_id: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    risk_period_from: dt.date
    risk_period_to: dt.date
    sum_insured_for_line_item: Money
    external_ref: ShortText | None = None

    def __post_init__(self) -> None:
        if self.risk_period_to < self.risk_period_from:
            raise ValueError("riskPeriodTo is before riskPeriodFrom")
        if self.sum_insured_for_line_item.amount <= 0:
            raise ValueError("sumInsuredForLineItem must be positive")


class IndexDefinitionRef(CamelStruct):
    id: uuid.UUID
    description: str


class TenantCoverage(CamelStruct):
    id: uuid.UUID
    gross_written_premium_pct: Decimal
    index_definition: IndexDefinitionRef
    monitoring_target: MonitoringTargetOut
    risk_period_start: dt.date
    risk_period_end: dt.date
    trigger_unit: str
    trigger_value: Decimal


class LineItemOut(CamelStruct):
    id: uuid.UUID
    name: str
    coverages: list[TenantCoverage]
    min_payout: Money
    payout_per_unit: Money
    quantity: Decimal
    sum_insured: Money
    total_sum_insured: Money


class UncoveredMonthOut(CamelStruct):
    """A month of the risk period with no line item, and why (docs/quotes-and-policies.md,
    "Months without a cover"). `periodStart`/`periodEnd`: the days of the risk period in that
    month (a partial first or last month is only its days). `reason`: NO_VIABLE_COVER (no
    index has a cover with a meaningful trigger at the target that month: nothing to sell) or
    HELD_FOR_REVIEW (a cover exists but its price awaits an actuary; a quote made after it is
    published may cover the month). `detail`: the same in words."""

    month: Month
    period_start: dt.date
    period_end: dt.date
    reason: Literal["NO_VIABLE_COVER", "HELD_FOR_REVIEW"]
    detail: str


UncoveredMonths = Annotated[list[UncoveredMonthOut], msgspec.Meta(
    description="The months of the risk period without a line item, in order, and why; empty when every "
    "month has one. A month with one viable cover is not listed: its line item holds that one cover."
)]


class PolicyOut(CamelStruct):
    """A policy (conversion, activation, cancellation); a quote as created has this shape and
    its capacity (QuoteOut). `lineItems`: one per month of the risk period that has a viable
    cover (one or two covers each); `uncoveredMonths`: the other months and why."""

    id: uuid.UUID
    inception_date: dt.date
    expiry_date: dt.date
    external_ref: str | None
    name: str
    status: str
    total_sum_insured: Money
    gross_premium_amount: Money
    line_items: list[LineItemOut]
    uncovered_months: UncoveredMonths = []


class QuoteOut(PolicyOut):
    """A quote as created: the policy's shape, and whether it fits the capacity limits now
    (docs/capacity.md)."""

    capacity: QuoteCapacity | None = None


class QuoteRecord(CamelStruct):
    """GET /quotes/{id}."""

    id: uuid.UUID
    status: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date
    sum_insured_for_line_item: Money
    capacity: QuoteCapacity | None = None  # whether it fits the capacity limits now (null once decided)
    uncovered_months: UncoveredMonths = []


class QuoteListItem(CamelStruct):
    id: uuid.UUID
    status: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date
    uncovered_months: UncoveredMonths = []


class PolicyListItem(CamelStruct):
    id: uuid.UUID
    status: str
    inception_date: dt.date
    expiry_date: dt.date
    total_sum_insured: Money
