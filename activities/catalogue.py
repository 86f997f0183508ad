"""Activities of the coverage catalogue: where a target is, what terms the model proposes,
and the idempotent creation of the coverages."""

from __future__ import annotations

import time
from decimal import ROUND_UP, Decimal

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.site_models import site_model
from models.db.catalogue import UnknownTarget, find_coverages, insert_priced_coverages, site_of
from models.db.catalogue import create_coverages as store_create_coverages
from models.domain.index_catalog import BY_CODE
from models.domain.quotes import fallback_slots, pricing_settled
from models.domain.terms import CoverageSlot, catalogue_coverage_id
from models.settings import load_settings
from models.temporal.catalogue import (
    UNKNOWN_TARGET,
    CreateCoveragesInput,
    PlannedCoverage,
    ProposedTerms,
    ProposeTermsInput,
    SiteRef,
)
from models.temporal.pricing import (
    JointSimulationInput,
    PriceCoverageInput,
    ProposeAndPriceInput,
    ProposedAndPriced,
    PublishPricingInput,
    RecordPricedInput,
    SimulationInput,
    coverage_seed,
)

CENT = Decimal("0.01")


@activity.defn
async def load_site(target_id: str) -> SiteRef:
    try:
        return await site_of(target_id)
    except UnknownTarget:
        raise ApplicationError(f"no monitoring target {target_id}", type=UNKNOWN_TARGET, non_retryable=True) from None


@activity.defn
async def find_catalogue_coverages(site: SiteRef, slots: list[CoverageSlot]) -> list[PlannedCoverage]:
    """What the catalogue already holds for the slots (slots missing from the answer are new);
    `priced` also for one held for an actuary (REVIEW): the catalogue does not price it again."""
    rows = await find_coverages(site.target_id, slots)
    return [
        # a coverage held for an actuary has nothing to price: it waits for a publication
        PlannedCoverage(slot=slot, coverage_id=row.id, reason="", priced=pricing_settled(row.status, row.pricing_version))
        for slot, row in rows.items()
    ]


def _decimal(x: float) -> Decimal:
    return Decimal(repr(float(x)))


@activity.defn
def propose_and_price_coverages(request: ProposeAndPriceInput) -> ProposedAndPriced:
    """A target's new slots in one step (CPU, pricing pool): their terms from the model (and
    the fallback slots' with `fallbacks`), then version 1 of the viable ones priced jointly
    (activities.pricing_runs.price_coverages, fit summaries later). Coverage ids follow from
    the slots, so the prices exist before the rows: the catalogue writes both at once."""
    from activities.pricing_runs import _Progress, price_coverages

    started = time.perf_counter()
    model = site_model(request.proposal.site)
    proposals = propose_coverage_terms(request.proposal)
    viable = [p for p in proposals if p.viable]
    if not viable:
        return ProposedAndPriced(proposals=proposals, priced=[], joint=None)
    site = request.proposal.site
    ids = [catalogue_coverage_id(site.target_id, p.slot) for p in viable]
    seed = coverage_seed(ids[0])
    runs = [
        PriceCoverageInput(
            coverage_id=coverage_id,
            version=1,
            simulations=request.simulations,
            seed=seed,
            expected_loss_ratio=request.expected_loss_ratio,
            requested_by=request.requested_by,
        )
        for coverage_id in ids
    ]
    terms = [p.terms for p in viable]
    outcomes = price_coverages(model, terms, runs, seed, request.simulations, _Progress(), started, fits=False)
    joint = JointSimulationInput(
        site=site,
        runs=[SimulationInput(run=r, site=site, terms=t) for r, t in zip(runs, terms)],
        seed=seed,
        simulations=request.simulations,
    )
    return ProposedAndPriced(
        proposals=proposals,
        priced=[PublishPricingInput(run=r, outcome=o) for r, o in zip(runs, outcomes)],
        joint=joint,
    )


@activity.defn
async def record_priced_coverages(request: RecordPricedInput) -> list[PlannedCoverage]:
    """Write the new coverages with their version-1 pricing, in one transaction (idempotent:
    a retry finds the rows and leaves them)."""
    return await insert_priced_coverages(
        request.site,
        request.proposals,
        request.priced,
        request.created_by,
        load_settings().risk_carrier,
        request.expected_loss_ratio,
        request.workflow_id,
    )


@activity.defn
def propose_coverage_terms(request: ProposeTermsInput) -> list[ProposedTerms]:
    """Triggers and exits from the calibrated model (CPU: on the pricing pool); with
    `fallbacks`, also the fallback slots of months short of viable covers."""
    model = site_model(request.site)
    proposals = _propose(model, request, request.slots)
    if request.fallbacks:
        extra = fallback_slots(request.slots, {p.slot for p in proposals if p.viable})
        if extra:
            proposals += _propose(model, request, extra)
    return proposals


def _propose(model, request: ProposeTermsInput, slots: list[CoverageSlot]) -> list[ProposedTerms]:
    from activities.pricing import propose_terms
    from activities.pricing.threads import in_threads

    activity.heartbeat(f"proposing terms for {len(slots)} slots")

    def proposed(slot: CoverageSlot):
        return lambda: propose_terms(model, slot.index_code, slot.start, slot.end, request.unit_limit)

    # each slot's proposal on its own (the same terms, on the pricing's threads)
    proposals = []
    for slot, proposal in zip(slots, in_threads([proposed(s) for s in slots])):
        terms = proposal.terms
        if terms is None:
            proposals.append(
                ProposedTerms(
                    slot=slot,
                    viable=False,
                    reason=proposal.reason,
                    direction=BY_CODE[slot.index_code].direction,
                    trigger=None,
                    exit=None,
                    limit=request.unit_limit,
                    min_payout=Decimal(0),
                    payout_per_unit=Decimal(0),
                    currency=request.currency,
                    trigger_probability=proposal.trigger_probability,
                )
            )
            continue
        proposals.append(
            ProposedTerms(
                slot=slot,
                viable=True,
                reason="",
                direction=terms.resolved_direction,
                trigger=_decimal(terms.trigger),
                exit=None if terms.exit is None else _decimal(terms.exit),
                limit=terms.limit.quantize(CENT),
                min_payout=terms.min_payout.quantize(CENT),
                # Rounded up to the minor unit: the limit is then reached at (or just before) the exit.
                payout_per_unit=terms.payout_per_unit.quantize(CENT, rounding=ROUND_UP),
                currency=request.currency,
                trigger_probability=proposal.trigger_probability,
            )
        )
    return proposals


@activity.defn
async def create_coverages(request: CreateCoveragesInput) -> list[PlannedCoverage]:
    return await store_create_coverages(
        request.site,
        request.proposals,
        request.created_by,
        load_settings().risk_carrier,
        request.expected_loss_ratio,
        request.simulations,
    )
