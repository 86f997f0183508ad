"""Workflow and activity inputs of the coverage catalogue."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from models.domain.terms import CoverageSlot
# A target's place, a proposal and what the catalogue holds for a slot: the stores take and
# return them too, so they are defined in the domain.
from models.domain.terms import PlannedCoverage as PlannedCoverage  # noqa: F401 - re-exported
from models.domain.terms import ProposedTerms, SiteRef

# --- coverage catalogue and pricing ------------------------------------------------------------

# The catalogue workflow's contract (see models/temporal/quotes.py).
CATALOGUE_WORKFLOW = "CatalogueWorkflow"
ENSURE_UPDATE = "ensure"
UNKNOWN_TARGET = "UnknownTarget"  # ApplicationError type: the target does not exist (not retried)


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
