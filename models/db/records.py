"""Rows as typed records: the stores convert each row once, here, at their edge.

Field names are the column names (models/db/tables.py); JSON columns arrive parsed (a line
item's `covers` as `CoverSnapshot`s, a pricing run's `metrics` as `RiskMetrics`); statuses are
the enums of models/domain/statuses.py. Money stays in integer minor units, as stored;
`Money.of_minor` makes the wire's money of it. A list page selects fewer columns and has
its own, smaller record. (`*Row` here; `*Record` and `*Out` names are wire types.)
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any, ClassVar, TypeVar

import msgspec

from models.db.core import json_value
from models.domain.data_sets import settles_on
from models.domain.index_catalog import BY_ID
from models.domain.money import from_minor
from models.domain.quotes import CoverSnapshot, UncoveredMonth
from models.domain.settlement_basis import SettlementBasis
from models.domain.risk_metrics import RiskMetrics
from models.domain.statuses import (
    CoverageStatus,
    PolicyStatus,
    PricingRunStatus,
    QuoteStatus,
)
from models.domain.terms import CoverTerms

RecordT = TypeVar("RecordT", bound=msgspec.Struct)


def record(cls: type[RecordT], row: dict[str, Any] | None) -> RecordT | None:
    """`row` (a Piccolo select dict) as a `cls`, or None for no row."""
    if row is None:
        return None
    columns = getattr(cls, "json_columns", ())
    if columns:
        row = {**row, **{c: json_value(row[c]) for c in columns if c in row}}
    return msgspec.convert(row, cls, strict=False)


def records(cls: type[RecordT], rows: list[dict[str, Any]]) -> list[RecordT]:
    return [record(cls, row) for row in rows]


class QuoteRow(msgspec.Struct, frozen=True):
    id: uuid.UUID
    tenant_id: uuid.UUID
    kind: str  # TENANT | FAST | TRAVEL
    name: str
    status: QuoteStatus
    state: str  # the internal surface's view of the status
    external_ref: str | None
    monitoring_target_id: str | None
    customer_id: uuid.UUID | None
    risk_period_from: dt.date | None
    risk_period_to: dt.date | None
    currency: str
    sum_insured_minor: int
    total_sum_insured_minor: int
    gross_premium_minor: int
    risk_premium_minor: int
    valid_until: dt.date | None
    document_file_id: uuid.UUID | None
    error: str | None
    created_at: dt.datetime
    updated_at: dt.datetime
    pricing_report: dict | None = None  # a fast quote's aggregated pricing (docs/internal-quotes.md)
    uncovered_months: list[UncoveredMonth] | None = None  # months without a line item (null: none)

    json_columns: ClassVar[tuple[str, ...]] = ("pricing_report", "uncovered_months")


class QuoteListRow(msgspec.Struct, frozen=True):
    id: uuid.UUID
    status: QuoteStatus
    monitoring_target_id: str | None
    risk_period_from: dt.date | None
    risk_period_to: dt.date | None
    uncovered_months: list[UncoveredMonth] | None = None

    json_columns: ClassVar[tuple[str, ...]] = ("uncovered_months",)


class LineItemRow(msgspec.Struct, frozen=True):
    """One month of a quote or a policy; `covers` are the terms sold, frozen at quote time."""

    id: uuid.UUID
    tenant_id: uuid.UUID
    quote_id: uuid.UUID | None
    policy_id: uuid.UUID | None
    position: int
    name: str
    period_start: dt.date
    period_end: dt.date
    currency: str
    quantity: Decimal
    sum_insured_minor: int
    total_sum_insured_minor: int
    min_payout_minor: int
    payout_per_unit_minor: int
    premium_minor: int
    covers: list[CoverSnapshot]

    json_columns: ClassVar[tuple[str, ...]] = ("covers",)


class PolicyRow(msgspec.Struct, frozen=True):
    id: uuid.UUID
    tenant_id: uuid.UUID
    quote_id: uuid.UUID
    kind: str
    name: str
    status: PolicyStatus
    external_ref: str | None
    issuer: str
    customer: str
    inception_date: dt.date
    expiry_date: dt.date
    currency: str
    total_sum_insured_minor: int
    gross_premium_minor: int
    risk_premium_minor: int
    activated_at: dt.datetime | None
    signature_confirmed: bool
    schedule_file_id: uuid.UUID | None
    created_at: dt.datetime
    updated_at: dt.datetime
    canceled_at: dt.datetime | None = None


class PolicyListRow(msgspec.Struct, frozen=True):
    id: uuid.UUID
    status: PolicyStatus
    inception_date: dt.date
    expiry_date: dt.date
    total_sum_insured_minor: int
    currency: str


class CoverageRow(msgspec.Struct, frozen=True):
    """A catalogue coverage; rates are fractions (docs/api-decisions.md)."""

    id: uuid.UUID
    monitoring_target_id: str
    index_definition_id: uuid.UUID
    risk_period_start: dt.date
    risk_period_end: dt.date
    label: str | None
    risk_carrier: str
    currency: str
    status: CoverageStatus
    ui_state: str
    direction: str  # ABOVE | BELOW
    trigger: Decimal
    exit: Decimal | None
    limit_minor: int
    min_payout_minor: int
    payout_per_unit_minor: int
    risk_premium_minor: int
    risk_premium_pct: Decimal
    gross_premium_indication_pct: Decimal
    expected_loss_ratio: Decimal
    simulations: int
    pricing_version: int  # 0 until the first pricing run completes
    fact_sheet_file_id: uuid.UUID | None
    technical_report_file_id: uuid.UUID | None
    created_by: str
    created_at: dt.datetime
    updated_at: dt.datetime
    data_set: str | None = None  # what it settles on; None: created before pricing-2026.4.0 (settles_on)
    # the settlement basis frozen at creation (issue 34); None: created before the ladder,
    # settles on final values only (docs/settlement.md, "Covers already sold")
    settlement_basis: SettlementBasis | None = None

    json_columns: ClassVar[tuple[str, ...]] = ("settlement_basis",)

    @property
    def priced(self) -> bool:
        return self.pricing_version > 0

    @property
    def terms(self) -> CoverTerms:
        return CoverTerms(
            index_code=BY_ID[self.index_definition_id].code,
            start=self.risk_period_start,
            end=self.risk_period_end,
            direction=self.direction,
            trigger=self.trigger,
            exit=self.exit,
            limit=from_minor(self.limit_minor, self.currency),
            min_payout=from_minor(self.min_payout_minor, self.currency),
            payout_per_unit=from_minor(self.payout_per_unit_minor, self.currency),
            currency=self.currency,
            data_set=settles_on(BY_ID[self.index_definition_id].code, self.data_set),
        )


class PricingRunRow(msgspec.Struct, frozen=True):
    id: uuid.UUID
    coverage_id: uuid.UUID
    version: int
    status: PricingRunStatus
    workflow_id: str
    simulations: int
    seed: int
    expected_loss_ratio: Decimal
    model_version: str | None
    data_hash: str | None
    currency: str
    risk_premium_minor: int | None
    risk_premium_pct: Decimal | None
    gross_premium_minor: int | None
    gross_premium_indication_pct: Decimal | None
    metrics: RiskMetrics | None
    burn: dict[str, Any] | None  # the burn analysis (activities/pricing/burn.py), as stored
    report: dict[str, Any] | None  # loss distribution, convergence, model fit (for the PDF)
    fact_sheet_file_id: uuid.UUID | None
    technical_report_file_id: uuid.UUID | None
    requested_by: str
    error: str | None
    created_at: dt.datetime
    completed_at: dt.datetime | None
    published_by: str | None = None
    published_at: dt.datetime | None = None

    json_columns: ClassVar[tuple[str, ...]] = ("metrics", "burn", "report")

