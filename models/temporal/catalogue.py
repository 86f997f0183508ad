"""Workflow and activity inputs of the coverage catalogue."""

from __future__ import annotations

import uuid
from decimal import Decimal

import msgspec

from models.domain.terms import CoverageSlot, CoverTerms

# --- coverage catalogue and pricing ------------------------------------------------------------

# The catalogue workflow's contract (see models/temporal/quotes.py).
CATALOGUE_WORKFLOW = "CatalogueWorkflow"
ENSURE_UPDATE = "ensure"
UNKNOWN_TARGET = "UnknownTarget"  # ApplicationError type: the target does not exist (not retried)



class SiteRef(msgspec.Struct, frozen=True):
    """Where a monitoring target is: what the pricing model needs to calibrate for it."""

    target_id: str
    target_name: str
    district: str
    state: str
    latitude: float
    longitude: float


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

    @property
    def terms(self) -> CoverTerms | None:
        """The proposed terms (None when no viable cover was found)."""
        if not self.viable or self.trigger is None:
            return None
        return CoverTerms(
            index_code=self.slot.index_code,
            start=self.slot.start,
            end=self.slot.end,
            direction=self.direction,
            trigger=self.trigger,
            exit=self.exit,
            limit=self.limit,
            min_payout=self.min_payout,
            payout_per_unit=self.payout_per_unit,
            currency=self.currency,
        )


class ProposeTermsInput(msgspec.Struct, frozen=True):
    site: SiteRef
    slots: list[CoverageSlot]
    unit_limit: Decimal
    currency: str
    # True: for each month short of viable slots, propose the next preferred index's slot too
    # (models.domain.quotes.fallback_slots), so a first quote needs one catalogue round trip.
    fallbacks: bool = False


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
    # True: also create (and price) the fallback slots of months whose slots are not viable;
    # the answer then lists them after the requested slots.
    fallbacks: bool = False


class CatalogueInput(msgspec.Struct, frozen=True):
    """Settings a catalogue workflow prices with (given by the starter, so replays agree)."""

    target_id: str
    unit_limit: Decimal
    currency: str
    expected_loss_ratio: Decimal
    simulations: int
    created_by: str
