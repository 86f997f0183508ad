"""Inputs and results of workflows and activities (passed through the msgspec converter)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import msgspec

from models.wire import NewBusinessPartner


class RegisterBusinessPartnerInput(msgspec.Struct, frozen=True):
    tenant_id: str
    partner_id: uuid.UUID
    partner: NewBusinessPartner
    requested_by: str  # OAuth client id


# --- coverage catalogue and pricing ------------------------------------------------------------


class SiteRef(msgspec.Struct, frozen=True):
    """Where a monitoring target is: what the pricing model needs to calibrate for it."""

    target_id: str
    target_name: str
    district: str
    state: str
    latitude: float
    longitude: float


class CoverageSlot(msgspec.Struct, frozen=True, order=True):
    """One catalogue entry to exist: an index definition over a risk period (dates inclusive)."""

    index_code: str
    start: dt.date
    end: dt.date


class ProposedTerms(msgspec.Struct, frozen=True):
    """Terms the calibrated model proposes for a slot (money in major units, exact)."""

    slot: CoverageSlot
    viable: bool
    reason: str
    direction: str
    trigger: Decimal | None
    exit: Decimal | None
    limit: Decimal
    min_payout: Decimal
    payout_per_unit: Decimal
    currency: str
    trigger_probability: float


class ProposeTermsInput(msgspec.Struct, frozen=True):
    site: SiteRef
    slots: list[CoverageSlot]
    unit_limit: Decimal
    currency: str


class CreateCoveragesInput(msgspec.Struct, frozen=True):
    site: SiteRef
    proposals: list[ProposedTerms]
    created_by: str
    expected_loss_ratio: Decimal
    simulations: int


class PlannedCoverage(msgspec.Struct, frozen=True):
    slot: CoverageSlot
    coverage_id: uuid.UUID | None  # None: no viable cover for this slot (reason says why)
    reason: str
    priced: bool


class EnsureCoveragesRequest(msgspec.Struct, frozen=True):
    slots: list[CoverageSlot]
    wait_for_pricing: bool = False


class PriceCoverageInput(msgspec.Struct, frozen=True):
    coverage_id: uuid.UUID
    version: int
    simulations: int
    seed: int
    expected_loss_ratio: Decimal
    requested_by: str


class CoverTermsIn(msgspec.Struct, frozen=True):
    index_code: str
    start: dt.date
    end: dt.date
    direction: str
    trigger: Decimal
    exit: Decimal | None
    limit: Decimal
    min_payout: Decimal
    payout_per_unit: Decimal
    currency: str


class SimulationInput(msgspec.Struct, frozen=True):
    run: PriceCoverageInput
    site: SiteRef
    terms: CoverTermsIn


class PricingOutcome(msgspec.Struct, frozen=True):
    """What a simulation found; fractions are of the limit, money in major units."""

    model_version: str
    data_hash: str
    simulations: int
    method: str
    risk_premium: Decimal
    risk_premium_pct: Decimal
    gross_premium: Decimal
    gross_premium_indication_pct: Decimal
    metrics: dict[str, str]
    burn: dict[str, Any]
    report: dict[str, Any]
    seconds: float


class PublishPricingInput(msgspec.Struct, frozen=True):
    run: PriceCoverageInput
    outcome: PricingOutcome


class PricingRunResult(msgspec.Struct, frozen=True):
    coverage_id: uuid.UUID
    version: int
    status: str
    risk_premium: Decimal | None
    gross_premium_indication_pct: Decimal | None


class CatalogueInput(msgspec.Struct, frozen=True):
    """Settings a catalogue workflow prices with (given by the starter, so replays agree)."""

    target_id: str
    unit_limit: Decimal
    currency: str
    expected_loss_ratio: Decimal
    simulations: int
    created_by: str


def coverage_seed(coverage_id: uuid.UUID) -> int:
    """Default seed of a coverage's pricing runs: stable, so a rerun reproduces the numbers."""
    return coverage_id.int % (2**31 - 1)


# --- quotes and policies ------------------------------------------------------------------------


class CoverSnapshot(msgspec.Struct, frozen=True):
    """A cover as sold: the coverage's terms and price frozen at quote time."""

    coverage_id: uuid.UUID
    index_code: str
    index_definition_id: uuid.UUID
    start: dt.date
    end: dt.date
    direction: str
    trigger: Decimal
    exit: Decimal | None
    currency: str
    limit_minor: int  # one unit of cover
    min_payout_minor: int
    payout_per_unit_minor: int  # per index unit, one unit of cover
    gross_premium_pct: Decimal  # fraction of the sum insured
    risk_premium_pct: Decimal
    pricing_version: int


class LineItemDraft(msgspec.Struct, frozen=True):
    id: uuid.UUID
    position: int
    start: dt.date
    end: dt.date
    currency: str
    quantity: Decimal
    sum_insured_minor: int
    total_sum_insured_minor: int
    min_payout_minor: int
    payout_per_unit_minor: int
    premium_minor: int
    covers: list[CoverSnapshot]


class QuoteDraft(msgspec.Struct, frozen=True):
    id: uuid.UUID
    tenant_id: str
    kind: str  # TENANT | FAST | TRAVEL
    name: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date
    currency: str
    sum_insured_minor: int
    total_sum_insured_minor: int
    gross_premium_minor: int
    risk_premium_minor: int
    external_ref: str | None
    valid_until: dt.date
    line_items: list[LineItemDraft]


class ConvertQuoteInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    policy_id: uuid.UUID
    line_item_ids: list[uuid.UUID]


class PolicyTransitionInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
    to_status: str
    from_statuses: list[str]
    at: dt.datetime


class QuoteTransitionInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    to_status: str
    to_state: str
    from_statuses: list[str]


class PolicyWorkflowInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
    monitoring_target_id: str
    external_ref: str | None
    # Risk periods of the covers, in order: monitoring wakes at each start and end.
    periods: list[tuple[dt.date, dt.date]]
    # Set when the workflow converts its quote itself (`convert`, update-with-start); None in
    # workflows started as the quote workflow's child, whose draft was already written.
    quote_id: uuid.UUID | None = None
    # When the draft lapses (models.lifecycle.quote_deadline); None: the first risk start.
    lapse_at: dt.datetime | None = None


class QuoteWorkflowInput(msgspec.Struct, frozen=True):
    draft: QuoteDraft
    # The lifecycle the run follows: 1 for runs started before the outcome-checked lifecycle
    # (their input has no such field), 2 for every run started since (workflows/quote.py).
    lifecycle: int = 1


class TransitionOutcome(msgspec.Struct, frozen=True):
    """What a lifecycle write found and did: `status` is the row's status afterwards,
    `applied` whether this write changed it (False: refused, or already so)."""

    status: str
    applied: bool
    policy_id: uuid.UUID | None = None  # quotes: the policy it was converted to
    detail: str = ""


class QuoteWriteInput(msgspec.Struct, frozen=True):
    """Reject or expire a quote (conditional on CREATED and, for rejection, its deadline)."""

    tenant_id: str
    quote_id: uuid.UUID
    at: dt.datetime


class ConvertToPolicyInput(msgspec.Struct, frozen=True):
    """Quote CREATED → ACCEPTED and its policy draft with derived ids, in one transaction."""

    tenant_id: str
    quote_id: uuid.UUID
    policy_id: uuid.UUID
    at: dt.datetime


class PolicyStatusInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
    to_status: str
    from_statuses: list[str]
    at: dt.datetime


class PolicyScheduleInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
