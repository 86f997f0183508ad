"""The data's own basis risk, pure (issue 34; docs/observations.md, "The data's own basis
risk"): for each pair of sources of one data set, how often the trigger decision of a month's
covers would flip between them, and the mean absolute difference of their indices.

Two comparisons per primary data set (models/domain/settlement_basis.py, `LADDERS`):

* `PRIMARY_FALLBACK`: the primary's index on its highest rungs (final, else provisional) against
  the index on the calibrated fallback alone (`Calibration.apply`, as settlement fills a day);
* `PROVISIONAL_FINAL`: the index on the primary's provisional values against the index on its
  final values.

A cover is compared when both indices are complete (every day of its period has a value on
each side, none SUSPECT); it **flips** when one index triggers and the other does not
(`triggered`, the settlement's own test; the ladder's tolerance is not applied: this counts
every flip the data could cause, `disagree` is the narrower test that holds a settlement).
Indices are computed by the settlement's `choose_rungs` and `ladder_index`. Units: an index
difference is in the index's unit (mm, °C, km/h; days for a daily count), so figures are kept
per index definition within a data set pair.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from models.domain.index_catalog import BY_CODE
from models.domain.ladder import Reading, choose_rungs, ladder_index, plain, triggered
from models.domain.settlement_basis import Calibration

PRIMARY_FALLBACK, PROVISIONAL_FINAL = "PRIMARY_FALLBACK", "PROVISIONAL_FINAL"
COMPARISONS = (PRIMARY_FALLBACK, PROVISIONAL_FINAL)
ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class CoverSources:
    """One cover's period readings from each source (latest revision of each, none SUSPECT)."""

    coverage_id: uuid.UUID
    index_code: str
    direction: str
    trigger: Decimal
    start: dt.date
    end: dt.date
    data_set: str  # the primary
    variable: str
    fallback_data_set: str | None
    final: dict[dt.date, Reading]  # the primary's final values
    provisional: dict[dt.date, Reading]  # the primary's provisional values (kept after a final one came)
    fallback: dict[dt.date, Reading]
    calibration: Calibration | None  # fallback → primary; None: too few overlapping days to fit


@dataclass(frozen=True, slots=True)
class BasisRisk:
    """One data set pair and index definition over a set of covers."""

    data_set: str
    other: str  # the fallback's data set, or "<data set> provisional"
    comparison: str  # PRIMARY_FALLBACK | PROVISIONAL_FINAL
    index_code: str
    covers: int  # covers of this data set and index definition
    compared: int  # of them, with both indices complete
    flips: int  # of those, where one index triggers and the other does not
    mean_abs_difference: Decimal | None  # index units, to 0.01; None when none compared
    max_abs_difference: Decimal | None

    @property
    def flip_rate(self) -> Decimal | None:
        """flips / compared, to 0.0001."""
        return None if not self.compared else (Decimal(self.flips) / self.compared).quantize(
            Decimal("0.0001"), ROUND_HALF_EVEN)


def _index(cover: CoverSources, primary: dict, fallback: dict, use_fallback: bool) -> Decimal | None:
    days = [cover.start + dt.timedelta(days=i) for i in range((cover.end - cover.start).days + 1)]
    rungs = choose_rungs(days, primary, fallback, provisional_error=ZERO, calibration=cover.calibration,
                         use_fallback=use_fallback, variable=cover.variable, data_set=cover.data_set)
    index = ladder_index(cover.index_code, cover.start, cover.end, rungs, trigger=cover.trigger,
                         direction=cover.direction, error_share=ZERO)
    return index.value if index.complete else None


def pair_of(cover: CoverSources, comparison: str) -> tuple[Decimal, Decimal] | None:
    """The cover's two indices under `comparison` (primary side first), None unless both
    are complete."""
    if comparison == PRIMARY_FALLBACK:
        if cover.fallback_data_set is None or cover.calibration is None:
            return None
        best = {**cover.provisional, **cover.final}  # final over provisional
        a, b = _index(cover, best, {}, False), _index(cover, {}, cover.fallback, True)
    else:
        a, b = _index(cover, cover.provisional, {}, False), _index(cover, cover.final, {}, False)
    return None if a is None or b is None else (a, b)


def _other(cover: CoverSources, comparison: str) -> str | None:
    if comparison == PRIMARY_FALLBACK:
        return cover.fallback_data_set
    return f"{cover.data_set} provisional"


def basis_risk(covers: list[CoverSources]) -> list[BasisRisk]:
    """The figures per (data set, other source, comparison, index definition), sorted."""
    groups: dict[tuple[str, str, str, str], list[CoverSources]] = {}
    for cover in covers:
        for comparison in COMPARISONS:
            other = _other(cover, comparison)
            if other is not None:
                groups.setdefault((cover.data_set, other, comparison, cover.index_code), []).append(cover)
    out = []
    for (data_set, other, comparison, code), members in sorted(groups.items()):
        aggregation = BY_CODE[code].aggregation
        pairs = []
        for c in members:
            pair = pair_of(c, comparison)
            if pair is not None:
                pairs.append((*pair, c))
        diffs = [abs(a - b) for a, b, _ in pairs]
        flips = sum(1 for a, b, c in pairs if triggered(a, c.trigger, c.direction, aggregation)
                    != triggered(b, c.trigger, c.direction, aggregation))
        mean = None if not diffs else (sum(diffs, ZERO) / len(diffs)).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
        out.append(BasisRisk(data_set, other, comparison, code, len(members), len(pairs), flips, mean,
                             max(diffs) if diffs else None))
    return out


def combined(rows: list[BasisRisk], data_set: str, comparison: str) -> tuple[int, int]:
    """(flips, compared) of one data set and comparison over its index definitions: the
    figure a technical pricing report quotes."""
    mine = [r for r in rows if r.data_set == data_set and r.comparison == comparison]
    return sum(r.flips for r in mine), sum(r.compared for r in mine)


def unit_of(index_code: str) -> str:
    """The unit of an index and of its differences (a daily count: days)."""
    spec = BY_CODE[index_code]
    return "days" if spec.aggregation == "DAILY_COUNT" else spec.unit


_WORDS = {PRIMARY_FALLBACK: "the primary against its calibrated fallback", PROVISIONAL_FINAL: "provisional against final"}


def report_sentence(rows: list[BasisRisk], data_set: str, index_code: str, first: dt.date, last: dt.date) -> str:
    """What a technical pricing report quotes of its data set's basis risk over the covers
    starting in [first, last]: per comparison, the flips over every index definition of the
    data set, and the mean absolute difference of the report's own index."""
    span = f"{first:%b %Y}–{last:%b %Y}"
    parts = []
    for comparison in COMPARISONS:
        mine = [r for r in rows if r.data_set == data_set and r.comparison == comparison]
        flips, compared = combined(rows, data_set, comparison)
        if not compared:
            continue
        own = next((r for r in mine if r.index_code == index_code and r.mean_abs_difference is not None), None)
        text = (f"{_WORDS[comparison]} ({mine[0].other}): the trigger decision flips on {flips} of {compared} "
                f"covers compared ({(Decimal(100 * flips) / compared).quantize(Decimal('0.1'), ROUND_HALF_EVEN)} %)")
        if own is not None:
            text += (f"; this index differs by {plain(own.mean_abs_difference)} {unit_of(index_code)} on average "
                     f"(at most {plain(own.max_abs_difference)})")
        parts.append(text)
    if not parts:
        return f"{data_set}, covers starting {span}: no cover yet with both sources of a pair complete in the stored observations."
    return f"{data_set}, covers starting {span}: " + "; ".join(parts) + "."
