"""Activities of the coverage catalogue: where a target is, what terms the model proposes,
and the idempotent creation of the coverages."""

from __future__ import annotations

from decimal import ROUND_UP, Decimal

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.site_models import site_model
from models.db.catalogue import UnknownTarget, find_coverages, site_of
from models.db.catalogue import create_coverages as store_create_coverages
from models.domain.index_catalog import BY_CODE
from models.domain.terms import CoverageSlot
from models.settings import load_settings
from models.temporal.catalogue import (
    UNKNOWN_TARGET,
    CreateCoveragesInput,
    PlannedCoverage,
    ProposedTerms,
    ProposeTermsInput,
    SiteRef,
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
    """What the catalogue already holds for the slots (slots missing from the answer are new)."""
    rows = await find_coverages(site.target_id, slots)
    return [
        PlannedCoverage(slot=slot, coverage_id=row.id, reason="", priced=row.priced)
        for slot, row in rows.items()
    ]


def _decimal(x: float) -> Decimal:
    return Decimal(repr(float(x)))


@activity.defn
def propose_coverage_terms(request: ProposeTermsInput) -> list[ProposedTerms]:
    """Triggers and exits from the calibrated model (CPU: runs on the worker's thread pool)."""
    from activities.pricing import propose_terms

    model = site_model(request.site)
    proposals = []
    for i, slot in enumerate(request.slots):
        activity.heartbeat(f"{i}/{len(request.slots)}")
        proposal = propose_terms(model, slot.index_code, slot.start, slot.end, request.unit_limit)
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
