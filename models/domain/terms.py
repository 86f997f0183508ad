"""What a cover is: an index over a risk period (a catalogue slot) and its payout terms."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec


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

    @property
    def slot(self) -> CoverageSlot:
        return CoverageSlot(index_code=self.index_code, start=self.start, end=self.end)


def catalogue_coverage_id(target_id: str, slot: CoverageSlot) -> "uuid.UUID":
    """The id of the catalogue coverage of a target's slot: fixed by the slot, so a coverage
    can be priced before its row is written (the catalogue's joint first pricing)."""
    import uuid

    return uuid.uuid5(uuid.NAMESPACE_URL, f"coverage:{target_id}:{slot.index_code}:{slot.start}:{slot.end}")
