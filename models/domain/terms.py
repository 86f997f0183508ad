"""What a cover is: an index over a risk period (a catalogue slot) and its payout terms."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import msgspec

from models.domain.data_sets import INDEX_DATA


class CoverageSlot(msgspec.Struct, frozen=True, order=True):
    """One catalogue entry to exist: an index definition over a risk period (dates inclusive)."""

    index_code: str
    start: dt.date
    end: dt.date


class CoverTerms(msgspec.Struct, frozen=True):
    """A cover's terms, the one shape every layer reads them in (docs/payout-structures.md).

    Index values (`trigger`, `exit`) in the index's unit; money (`limit`, `min_payout`, and
    `payout_per_unit` per index unit or per counted day) exact, in major units of `currency`,
    for one unit of cover. A catalogue row, a quote's frozen snapshot and a model's proposal
    each give theirs with `.terms`; the pricing core takes them (`CoverTerms.of` there), the
    payout rule pays by them and the documents describe them.
    """

    index_code: str
    start: dt.date  # first day of the risk period
    end: dt.date  # last day, inclusive
    direction: str  # ABOVE | BELOW
    trigger: Decimal
    exit: Decimal | None
    limit: Decimal
    min_payout: Decimal
    payout_per_unit: Decimal
    currency: str
    # The data set the cover settles on (models/domain/data_sets.py): a coverage's and a
    # snapshot's terms name theirs, a proposal's what its index settles on now; None only
    # where nobody said (payloads of before pricing-2026.4.0, examples): its index's now.
    data_set: str | None = None

    @property
    def slot(self) -> CoverageSlot:
        return CoverageSlot(index_code=self.index_code, start=self.start, end=self.end)


def catalogue_coverage_id(target_id: str, slot: CoverageSlot) -> uuid.UUID:
    """The id of the catalogue coverage of a target's slot: fixed by the slot, so a coverage
    can be priced before its row is written (the catalogue's joint first pricing)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"coverage:{target_id}:{slot.index_code}:{slot.start}:{slot.end}")


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
            data_set=INDEX_DATA[self.slot.index_code][0],
        )


class PlannedCoverage(msgspec.Struct, frozen=True):
    slot: CoverageSlot
    coverage_id: uuid.UUID | None  # None: no viable cover for this slot (reason says why)
    reason: str
    priced: bool
