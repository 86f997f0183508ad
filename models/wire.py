"""Wire types (msgspec Structs) shared by the API, workflows and activities.

Field names follow the spec to the letter: camelCase on the tenant and internal surfaces
(`rename="camel"`), snake_case on the travel surface. Money amounts are Decimal, written to
JSON as numbers (see api.responses) and validated on the way in (finite, non-negative,
bounded, no more decimals than the currency has).
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from decimal import Decimal
from typing import Annotated, Generic, Literal, TypeVar

import msgspec

from models.money import MoneyError, check_amount, minor_units

T = TypeVar("T")

CURRENCY_RE = re.compile(r"^[A-Z]{3}$")

# No control characters (NUL breaks PostgreSQL), no bidi overrides or zero-width characters
# (they disguise names), and - for required text - not blank.
_CLEAN = r"[^\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
ShortText = Annotated[
    str, msgspec.Meta(min_length=1, max_length=200, pattern=rf"^(?=.*\S){_CLEAN}*\Z", description="1-200 characters")
]
OptionalText = Annotated[str, msgspec.Meta(max_length=200, pattern=rf"^{_CLEAN}*\Z")]


class CamelStruct(msgspec.Struct, rename="camel", forbid_unknown_fields=False, omit_defaults=False):
    """Base of tenant/internal surface types."""


class Money(CamelStruct, frozen=True):
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not CURRENCY_RE.match(self.currency):
            raise ValueError("currency must be a three-letter ISO 4217 code")
        try:
            minor_units(self.currency)
            check_amount(self.amount, self.currency)
        except MoneyError as exc:
            raise ValueError(str(exc)) from None


class Problem(msgspec.Struct, omit_defaults=True):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None
    errors: list[FieldError] | None = None


class FieldError(msgspec.Struct):
    field: str
    message: str


class Page(CamelStruct, Generic[T]):
    """Tenant-surface page envelope."""

    content: list[T]
    total_elements: int
    total_pages: int
    size: int
    number: int


class ContentEnvelope(CamelStruct, Generic[T]):
    content: list[T]


# --- auth -------------------------------------------------------------------------------


class TokenResponse(msgspec.Struct):
    access_token: str
    token_type: str
    expires_in: int
    scope: str


class OAuthError(msgspec.Struct, omit_defaults=True):
    """RFC 6749 section 5.2 error body (the token endpoint's own format)."""

    error: str
    error_description: str | None = None


# --- catalogue ----------------------------------------------------------------------------


class IndexDefinitionOut(CamelStruct):
    id: str
    name: str
    description: str
    unit: str
    type: str


class Point(CamelStruct):
    type: Literal["Point"]
    coordinates: tuple[float, float]  # longitude, latitude


class MonitoringTargetOut(CamelStruct):
    id: str
    name: str
    geometry: Point


# --- business partners ---------------------------------------------------------------------


class NewAddress(CamelStruct, tag_field="@type", tag="NewAddress"):
    country_code: Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{2}\Z")]
    house_number: OptionalText = ""
    street: OptionalText = ""
    country: OptionalText = ""
    county: OptionalText = ""
    postcode: OptionalText = ""
    state: OptionalText = ""
    district: OptionalText = ""
    city: OptionalText = ""
    state_code: OptionalText = ""


PartnerRole = Literal["INTERMEDIARY", "POLICY_HOLDER", "RISK_CARRIER"]
# The spec does not list tax statuses; these are the ones Indian GST registration knows.
TaxStatus = Literal["REGISTERED", "UNREGISTERED", "COMPOSITION", "EXEMPT", "SEZ", "NON_RESIDENT"]


class NewBusinessPartner(CamelStruct, tag_field="@type", tag="NewBusinessPartner"):
    name: ShortText
    role: PartnerRole
    contact_name: ShortText
    contact_email_address: Annotated[
        str, msgspec.Meta(max_length=254, pattern=r"^[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s]{2,63}\Z")
    ]
    contact_phone_number: Annotated[str, msgspec.Meta(pattern=r"^\+?[0-9 ()\-]{6,20}\Z")]
    address: NewAddress
    tax_status: TaxStatus


class Address(CamelStruct, tag_field="@type", tag="Address"):
    country_code: str
    house_number: str
    street: str
    country: str
    county: str
    postcode: str
    state: str
    district: str
    city: str
    state_code: str


class BusinessPartner(CamelStruct, tag_field="@type", tag="BusinessPartner"):
    id: uuid.UUID
    name: str
    role: str
    contact_name: str
    contact_email_address: str
    contact_phone_number: str
    address: Address
    tax_status: str
    created_at: str  # YYYY-MM-DDThh:mm:ss.SSS+00:00


# --- health --------------------------------------------------------------------------------


class ComponentHealth(msgspec.Struct):
    status: Literal["ok", "down"]
    detail: str | None = None


class Health(msgspec.Struct):
    status: Literal["ok", "degraded"]
    database: ComponentHealth
    temporal: ComponentHealth
    version: str


# --- travel surface (snake_case as the spec gives it) -----------------------------------------


class ValidatedEvent(msgspec.Struct):
    policy_id: str
    event_type: str
    validated_day: dt.date
    validated_amount: Decimal


class ValidatedEvents(msgspec.Struct):
    validated_events: list[ValidatedEvent]


# --- internal surface: coverages -------------------------------------------------------------


class SortInfo(CamelStruct):
    unsorted: bool
    sorted: bool
    empty: bool


class Pageable(CamelStruct):
    sort: SortInfo
    page_number: int
    page_size: int
    offset: int
    paged: bool
    unpaged: bool


class RichPage(CamelStruct, Generic[T]):
    """The internal coverage list envelope (Spring-style page)."""

    content: list[T]
    pageable: Pageable
    total_pages: int
    total_elements: int
    last: bool
    size: int
    number: int
    sort: SortInfo
    number_of_elements: int
    first: bool
    empty: bool


class CoverageFull(CamelStruct, tag_field="@type", tag="Coverage"):
    id: uuid.UUID
    label: str | None
    risk_carrier: str
    currency: str
    simulations: int
    limit: Money
    expected_loss_ratio: Decimal
    fact_sheet_report_file_id: uuid.UUID | None
    technical_pricing_report_file_id: uuid.UUID | None
    status: str
    ui_state: str
    start: str  # YYYY-MM-DDThh:mm:ss.SSS+00:00
    end: str
    created_by: str
    created_at: str
    updated_at: str
    risk_type: str
    risk_type_id: str
    index_definition: str
    index_definition_id: uuid.UUID
    trigger_unit: str
    trigger_label: str
    data_source_id: str
    data_source_description: str
    data_set: str
    data_set_id: str
    monitoring_target: str
    monitoring_target_id: str
    trigger: Decimal
    exit: Decimal | None
    min_payout: Money
    payout_per_unit: Money
    risk_premium: Money | None  # null until the first pricing run completes
    risk_premium_pct: Decimal | None
    gross_premium_indication_pct: Decimal | None


class RiskMetricsOut(CamelStruct):
    expected_loss: Decimal
    expected_loss_standard_error: Decimal
    standard_deviation: Decimal
    probability_of_attachment: Decimal
    probability_of_exhaustion: Decimal
    var99: Decimal
    tvar99: Decimal
    var995: Decimal
    tvar995: Decimal


class BurnYearOut(CamelStruct):
    year: int
    index_value: Decimal
    payout: Decimal


class PricingRunOut(CamelStruct):
    coverage_id: uuid.UUID
    version: int
    status: str  # QUEUED | RUNNING | COMPLETED | FAILED
    workflow_id: str
    simulations: int
    seed: int
    expected_loss_ratio: Decimal
    model_version: str | None
    data_hash: str | None
    currency: str
    risk_premium: Money | None
    risk_premium_pct: Decimal | None
    gross_premium: Money | None
    gross_premium_indication_pct: Decimal | None
    metrics: RiskMetricsOut | None
    burn_cost: Money | None
    burn_payout_frequency: Decimal | None
    burn_method: str | None
    burn_years: list[BurnYearOut] | None
    fact_sheet_report_file_id: uuid.UUID | None
    technical_pricing_report_file_id: uuid.UUID | None
    requested_by: str
    error: str | None
    created_at: str
    completed_at: str | None


class NewPricingRun(CamelStruct):
    simulations: Annotated[int, msgspec.Meta(ge=1_000, le=2_000_000)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    expected_loss_ratio: Decimal | None = None

    def __post_init__(self) -> None:
        elr = self.expected_loss_ratio
        if elr is not None and not (elr.is_finite() and 0 < elr <= 1):
            raise ValueError("expectedLossRatio must be a number in (0, 1]")


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


class QuoteOut(CamelStruct):
    """A quote as created; the policy (conversion, activation, cancellation) has the same shape."""

    id: uuid.UUID
    inception_date: dt.date
    expiry_date: dt.date
    external_ref: str | None
    name: str
    status: str
    total_sum_insured: Money
    gross_premium_amount: Money
    line_items: list[LineItemOut]


PolicyOut = QuoteOut


class QuoteRecord(CamelStruct):
    """GET /quotes/{id}."""

    id: uuid.UUID
    status: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date
    sum_insured_for_line_item: Money


class QuoteListItem(CamelStruct):
    id: uuid.UUID
    status: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date


class PolicyListItem(CamelStruct):
    id: uuid.UUID
    status: str
    inception_date: dt.date
    expiry_date: dt.date
    total_sum_insured: Money
