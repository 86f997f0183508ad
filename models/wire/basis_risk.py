"""The data's own basis risk as data, operations and actuary staff read it
(`GET /internal/observations/basis-risk?month=YYYY-MM`; docs/observations.md, "The data's own
basis risk"; computed by models/domain/basis_risk.py)."""

from __future__ import annotations

from decimal import Decimal

from models.wire.common import CamelStruct


class BasisRiskRow(CamelStruct):
    """One data set pair and index definition over the month's covers: how often the trigger
    decision flips between the two sources, and how far apart their indices are."""

    data_set: str  # the primary
    other: str  # the fallback's data set, or "<data set> provisional"
    comparison: str  # PRIMARY_FALLBACK | PROVISIONAL_FINAL
    index_code: str
    unit: str  # of the index and its differences (days for a daily count)
    covers: int  # the month's covers of this data set and index definition
    compared: int  # of them, with both indices complete
    flips: int  # of those, where one index triggers and the other does not
    flip_rate: Decimal | None  # flips / compared, to 0.0001; null when none compared
    mean_abs_difference: Decimal | None  # in `unit`, to 0.01
    max_abs_difference: Decimal | None


class BasisRiskView(CamelStruct):
    month: str  # YYYY-MM: the covers whose risk period starts in it
    rows: list[BasisRiskRow]
    method: str
