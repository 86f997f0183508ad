"""Settlement arithmetic, pure (docs/settlement.md): a cover's index over its risk period
from measured values, whether the data is complete enough to settle on, and what each line
item of a policy pays by the one payout rule (`models.domain.payout`).

Units: index values in the index's unit (mm, km/h, °C) as `Decimal`; money in minor units
(`int`) of the line item's currency. Nothing here rounds except `round_payout`, once per
amount to be paid.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from decimal import Decimal

from models.domain.index_catalog import BY_CODE, IndexDefinitionSpec
from models.domain.money import from_minor, to_minor
from models.domain.payout import count_payout_exact, line_item_payout, linear_payout_exact, round_payout
from models.domain.quotes import CoverSnapshot

# The variable each index aggregates and the resolution it needs.
VARIABLES = {
    "RAINFALL_MONTHLY_TOTAL": "rainfall_mm",
    "RAINFALL_DEFICIT": "rainfall_mm",
    "WIND_MAX_SPEED": "wind_kmh",
    "TEMPERATURE_MAX": "temperature_c",
    "RAINFALL_DAYTIME_HOURS": "rainfall_mm",
}
EVENT_TYPES = {
    "RAINFALL_MONTHLY_TOTAL": "EXCESS_RAINFALL",
    "RAINFALL_DEFICIT": "RAINFALL_DEFICIT",
    "WIND_MAX_SPEED": "HIGH_WIND",
    "TEMPERATURE_MAX": "HEAT",
    "RAINFALL_DAYTIME_HOURS": "DAYTIME_RAIN",
}
# A revision of final data stored within this long after a period first settled (every
# coverage of it) re-settles it with adjustments; later ones never do. The window's end is
# kept in the database (`settlement.revisions_until`), not only by the settlement workflow:
# once Temporal's retention deletes a closed run, nothing there remembers that it closed.
REVISION_WINDOW = dt.timedelta(days=90)

SETTLEMENT_NAMESPACE = uuid.UUID("0b8f3a52-9e0c-4b7e-8d51-5f2a4c6e7d10")


def plain(x: Decimal) -> str:
    """A decimal as people write it: no exponent, no trailing zeros (40, 2.5, 180.4999)."""
    return format(x.normalize(), "f")


def variable_of(index_code: str) -> str:
    return VARIABLES[index_code]


def hourly(index_code: str) -> bool:
    """Whether the index needs hourly values (the daytime-hours rain of the hotel cover)."""
    return BY_CODE[index_code].hours is not None


def days_of(start: dt.date, end: dt.date) -> list[dt.date]:
    """The days of a risk period, both ends inclusive."""
    return [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]


@dataclass(frozen=True, slots=True)
class DailyValue:
    """The value of a day that settlement uses (for an hourly index: the day's sum over the
    definition's hours), with the data it came from."""

    day: dt.date
    value: Decimal
    provisional: bool
    revision: int
    source: str = ""  # who published it (an hourly index's day: its first hour's source)


@dataclass(frozen=True, slots=True)
class IndexOutcome:
    """A cover's index over its risk period, or why it cannot be computed yet."""

    complete: bool  # every day has a final value
    value: Decimal | None  # SUM / MAX: the index; DAILY_COUNT: the number of counted days
    missing_days: tuple[dt.date, ...]
    provisional_days: tuple[dt.date, ...]
    revision: int  # the highest revision among the values used (the settlement's revision)
    path: tuple[DailyValue, ...]  # the daily values, in day order
    counted_days: tuple[dt.date, ...] = ()  # DAILY_COUNT: the days at or above the trigger


def daily_from_hourly(hours: dict[int, Decimal], spec: IndexDefinitionSpec) -> Decimal | None:
    """A day's value of an hourly index: the sum over the definition's local hours
    [start, end); None unless every one of those hours has a value."""
    first, last = spec.hours or (0, 24)
    wanted = range(first, last)
    if any(h not in hours for h in wanted):
        return None
    return sum((hours[h] for h in wanted), Decimal(0))


def period_index(
    index_code: str,
    start: dt.date,
    end: dt.date,
    values: dict[dt.date, DailyValue],
    trigger: Decimal | None = None,
) -> IndexOutcome:
    """The index over [start, end] from the days' values (`values` may hold other days;
    only the period's count). SUM: total; MAX: the largest value; DAILY_COUNT: the number of
    days whose value is at or above `trigger`. A missing day leaves the index unknown
    (never a silent zero); a provisional one makes it provisional."""
    spec = BY_CODE[index_code]
    days = days_of(start, end)
    path = tuple(values[d] for d in days if d in values)
    missing = tuple(d for d in days if d not in values)
    provisional = tuple(v.day for v in path if v.provisional)
    revision = max((v.revision for v in path), default=0)
    complete = not missing and not provisional
    if missing:
        return IndexOutcome(False, None, missing, provisional, revision, path)
    series = [v.value for v in path]
    counted: tuple[dt.date, ...] = ()
    if spec.aggregation == "SUM":
        value = sum(series, Decimal(0))
    elif spec.aggregation == "MAX":
        value = max(series)
    else:
        if trigger is None:
            raise ValueError("a daily-count index needs its trigger")
        counted = tuple(v.day for v in path if v.value >= trigger)
        value = Decimal(len(counted))
    return IndexOutcome(complete, value, missing, provisional, revision, path, counted)


def cover_payout_per_unit(cover: CoverSnapshot, index_value: Decimal) -> Decimal:
    """What one unit of the cover pays for its period's index (exact, major units)."""
    terms = cover.terms
    if BY_CODE[cover.index_code].aggregation == "DAILY_COUNT":
        return count_payout_exact(int(index_value), payout_per_unit=terms.payout_per_unit, limit=terms.limit)
    return linear_payout_exact(
        index_value,
        direction=terms.direction,
        trigger=terms.trigger,
        payout_per_unit=terms.payout_per_unit,
        limit=terms.limit,
        min_payout=terms.min_payout,
        exit=terms.exit,
    )


@dataclass(frozen=True, slots=True)
class CoverPayout:
    """One cover of one line item, settled: what its terms give and what is paid."""

    coverage_id: uuid.UUID
    index_value: Decimal
    per_unit: Decimal  # the rule's payout for one unit of cover (major units, exact)
    gross_minor: int  # quantity × per_unit, rounded: what the cover alone would pay
    paid_minor: int  # after the line item's cap


def settle_line_item(
    covers: list[CoverSnapshot],
    quantity: Decimal,
    sum_insured_minor: int,
    currency: str,
    index_values: dict[uuid.UUID, Decimal],
    paid_by_others_minor: int = 0,
) -> list[CoverPayout]:
    """The payouts of the line item's covers settled now (`index_values` by coverage id;
    covers not in it are left out). Each cover pays quantity × its per-unit payout; the line
    item pays at most its sum insured in all (`line_item_payout`). What its other covers were
    already paid (`paid_by_others_minor`, net of adjustments) comes off the cap first, and the
    rest is taken in the covers' order on the line item: a payout once made is never taken
    back because a sibling cover settled later."""
    cap = max(from_minor(sum_insured_minor - paid_by_others_minor, currency), Decimal(0))
    gross = []
    for cover in covers:
        if cover.coverage_id not in index_values:
            continue
        x = index_values[cover.coverage_id]
        per_unit = cover_payout_per_unit(cover, x)
        gross.append((cover, x, per_unit, round_payout(per_unit * quantity, currency)))
    remaining = line_item_payout([g[3] for g in gross], cap)
    out = []
    for cover, x, per_unit, amount in gross:
        paid = min(amount, remaining)
        remaining -= paid
        out.append(
            CoverPayout(
                coverage_id=cover.coverage_id,
                index_value=x,
                per_unit=per_unit,
                gross_minor=to_minor(amount, currency),
                paid_minor=to_minor(paid, currency),
            )
        )
    return out


def settlement_key(policy_id: uuid.UUID, coverage_id: uuid.UUID, revision: int) -> str:
    """The idempotency key of a payout: one per (policy, coverage, revision)."""
    return f"{policy_id}:{coverage_id}:r{revision}"


def event_id(key: str) -> uuid.UUID:
    """A stable event id from its settlement key: a retried write produces the same row."""
    return uuid.uuid5(SETTLEMENT_NAMESPACE, key)
