"""Wire types of the internal surface (`/internal`): coverages, pricing runs, business partners."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Annotated, Generic, Literal

import msgspec

from models.wire.capacity import QuoteCapacity
from models.wire.common import CamelStruct, Money, OptionalText, ShortText, T

# --- business partners ---------------------------------------------------------------------


class NewAddress(CamelStruct, tag_field="@type", tag="NewAddress"):
    country_code: Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{2}\Z", description="two capital letters (ISO 3166-1), e.g. IN")]
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
        str,
        msgspec.Meta(max_length=254, pattern=r"^[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s]{2,63}\Z",
                     description="an e-mail address such as name@example.com"),
    ]
    contact_phone_number: Annotated[str, msgspec.Meta(
        pattern=r"^\+?[0-9 ()\-]{6,20}\Z",
        description="a phone number of 6 to 20 digits, spaces, brackets or dashes, optionally after a +",
    )]
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


class LadderRungOut(CamelStruct):
    """One rung of a source ladder, highest first (docs/observations.md, "Source ladders")."""

    rung: Literal["FINAL", "PROVISIONAL"]
    product: str  # the product, its publisher and when it comes


class FallbackOut(CamelStruct):
    """The declared fallback data set: used only for a day the primary still lacks (or holds
    SUSPECT) at the calculation deadline, mapped to the primary by `calibration`."""

    data_set: str
    product: str
    calibration: str  # how its values are mapped to the primary's scale, in words


class SettlementBasisOut(CamelStruct):
    """The terms a cover settles on, frozen when the cover was created (issue 34;
    docs/settlement.md, "Settlement basis"). Errors and tolerance in the variable's unit
    (mm, °C, km/h; daily counts: days); `initialErrorShare`: the share of the stated error
    the first (INITIAL) payment's index is moved by towards paying less."""

    data_set: str  # the primary: what the price is fitted on
    variable: str
    ladder: list[LadderRungOut]  # the primary's rungs, highest first: FINAL, PROVISIONAL
    provisional_latency_days: int  # days after a day ends until its provisional value comes
    fallback: FallbackOut | None  # null: no fallback (the calculation agent estimates)
    calculation_deadline_days: int  # INITIAL at the latest this many days after the period's end
    true_up_window_days: int  # FINAL on the best rungs then available at the latest
    initial_error_share: Decimal
    provisional_error: Decimal  # declared 1-sigma error of a provisional day against the final
    tolerance: Decimal  # two sources disagree beyond this across the trigger: DISPUTED


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
    status: str  # PRICING | ACTIVE (offered) | REVIEW (its pricing held for an actuary: not offered)
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
    # The settlement basis frozen at creation (issue 34): the source ladder, the calculation
    # deadline, the true-up window; null for a cover created before it (final values only)
    settlement_basis: SettlementBasisOut | None = None


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
    # Parameter uncertainty of the expected loss (null for runs priced before it was measured)
    parameter_standard_deviation: Decimal | None = None
    expected_loss_band_low: Decimal | None = None
    expected_loss_band_high: Decimal | None = None
    # Burn against model: AGREES | DISAGREES (EL blended with the burn) | HELD (a view of the
    # record above the band: not sold until an actuary publishes it) | NO_HISTORY
    burn_z_score: Decimal | None = None
    burn_check: str | None = None
    review: bool = False


class PremiumPartsOut(CamelStruct):
    """How the gross premium was built (activities/pricing/loading.py), money per unit of cover."""

    method: str
    adjusted_expected_loss: Decimal
    uncertainty_load: Decimal
    capital: Decimal
    capital_load: Decimal
    technical_premium: Decimal
    expenses: Decimal
    minimum_premium: Decimal


class BurnYearOut(CamelStruct):
    year: int
    index_value: Decimal
    payout: Decimal


class BurnViewOut(CamelStruct):
    """The cover's burn on one view of the record (docs/pricing-model.md, "Burn analysis");
    rates are fractions of the limit."""

    name: str  # full record | last 30 years | detrended record
    first_year: int
    last_year: int
    years: int
    burn_cost: Decimal
    burn_cost_rate: Decimal
    burn_cost_standard_error: Decimal
    payout_frequency: Decimal
    basis: str
    holds: bool  # above the band by more than its sampling error: the run is held


class BandDriverOut(CamelStruct):
    """One driver of the parameter band: the EL at its 5 % and 95 % points (money per unit
    of cover), its sd and its share of the band's variance."""

    name: str  # sampling | scale | trend | mapping
    low: Decimal
    high: Decimal
    standard_deviation: Decimal
    share: Decimal
    note: str


class PricingRunOut(CamelStruct):
    coverage_id: uuid.UUID
    version: int
    # QUEUED | RUNNING | CANDIDATE (a rerun waiting for a second actuary) | HELD (the
    # catalogue's run held for an actuary) | COMPLETED (published) | FAILED | LAPSED (a
    # candidate nobody published in time)
    status: str
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
    premium_parts: PremiumPartsOut | None
    burn_cost: Money | None
    burn_payout_frequency: Decimal | None
    burn_method: str | None
    burn_years: list[BurnYearOut] | None
    fact_sheet_report_file_id: uuid.UUID | None
    technical_pricing_report_file_id: uuid.UUID | None
    requested_by: str  # a staff name ("arun"), the catalogue's creator; never a tenant's client
    error: str | None
    created_at: str
    completed_at: str | None
    published_by: str | None = None  # who made it the price (null while not published)
    published_at: str | None = None
    # Why the catalogue's run is held for an actuary (status HELD; pricing-2026.4 on): the
    # burn views above the band. Null when nothing holds it.
    hold_reason: str | None = None
    # The burn on three views of the record that do not share the model's projection (null
    # before pricing-2026.4), and the parameter band's drivers
    burn_views: list[BurnViewOut] | None = None
    band_drivers: list[BandDriverOut] | None = None


class NewPricingRun(CamelStruct):
    simulations: Annotated[int, msgspec.Meta(ge=1_000, le=2_000_000)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    expected_loss_ratio: Decimal | None = None
    # A kept model version to price with (e.g. "pricing-2026.3.1": a rerun of an old run's
    # inputs reproduces its figures); absent: the live version
    model_version: str | None = None

    def __post_init__(self) -> None:
        elr = self.expected_loss_ratio
        if elr is not None and not (elr.is_finite() and 0 < elr <= 1):
            raise ValueError("expectedLossRatio must be a number in (0, 1]")


# --- fast quotes, quotes and policies (docs/internal-quotes.md) ------------------------------


class NewFastQuote(CamelStruct, tag_field="@type", tag="NewFastQuote"):
    name: ShortText
    customer_id: uuid.UUID
    coverage_ids: list[uuid.UUID]
    sum_insured: Money


class AcceptQuote(CamelStruct):
    external_policy_id: ShortText


class NewPolicyFromQuote(CamelStruct, tag_field="@type", tag="NewPolicyFromQuote"):
    quote_id: uuid.UUID


class InternalQuote(CamelStruct, tag_field="@type", tag="Quote"):
    """A fast quote as the internal surface shows it; figures once `state` is completed."""

    id: uuid.UUID
    name: str
    state: str  # created | queued | running | completed | accepted | rejected | expired | error
    customer_id: uuid.UUID | None
    coverage_ids: list[uuid.UUID]
    sum_insured: Money
    total_sum_insured: Money
    monitoring_target_id: str | None
    risk_period_from: str | None
    risk_period_to: str | None
    valid_until: str | None
    created_at: str
    updated_at: str
    gross_premium: Money | None  # completed: the joint premium of the quote
    risk_premium: Money | None
    quote_document_file_id: uuid.UUID | None
    pricing_report: dict | None  # completed: the aggregated pricing (docs/internal-quotes.md)
    error: str | None  # state error: why, in words a person can act on
    policy_id: uuid.UUID | None  # accepted: the policy draft
    external_policy_id: str | None
    # completed: whether it fits the capacity limits now (docs/capacity.md); null otherwise
    capacity: QuoteCapacity | None = None


class InternalPolicyItem(CamelStruct, tag_field="@type", tag="PolicyItem"):
    id: uuid.UUID
    name: str | None
    description: str | None
    quantity: Decimal
    sum_insured: Money
    total_sum_insured: Money
    total_min_payout: Money
    coverage: CoverageFull


class InternalPolicy(CamelStruct, tag_field="@type", tag="Policy"):
    id: uuid.UUID
    name: str
    issuer: str
    customer: str
    inception_date: str
    expiry_date: str
    status: str
    state: str
    total_sum_insured: Money
    risk_premium: Money
    gross_premium: Money
    gross_premium_rate_pct: Decimal | None
    commission: None
    policy_items: list[InternalPolicyItem]
    sum_insured_basis: str | None
    exclusions: None
    external_policy_id: str | None
    quote_id: uuid.UUID
    policy_schedule_document_id: uuid.UUID | None = None
    activated_at: str | None = None
    signature_confirmed: bool | None = None
