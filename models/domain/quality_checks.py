"""Quality checks on every stored observation value (issue 34; docs/observations.md,
"Quality checks"). Pure: one function per check, the thresholds of every data set in ONE
table (`THRESHOLDS`, each with its reason), and `failed_check`, which runs them in order
over a value and the context the store reads for it (models/db/quality_context.py).

A value a check fails is stored SUSPECT with the check's name (`observation.quality_check`);
SUSPECT is on no rung of the source ladder (models/domain/ladder.py `choose_rungs`), so it
never pays until a data staff member accepts it (`accepted:<check>`) or replaces it.

Units: values in the variable's unit (mm, °C, km/h) as `Decimal`; distances in km.
A check that needs a record (spike: 1,000 final values, `one_in_1000`; flat line: the n-1 days before;
neighbours: at least `min_neighbours` surrounding targets) is skipped when it lacks one.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

RANGE, SPIKE, FLAT_LINE, NEIGHBOURS, MISSING_DAY = "range", "spike", "flat-line", "neighbours", "missing-day"
CHECKS = (RANGE, SPIKE, FLAT_LINE, NEIGHBOURS)  # run on a value, in this order; the first failing names it
ACCEPTED = "accepted:"  # quality_check of a SUSPECT value a data staff member accepted: "accepted:<check>"
REPORTED = "reported"  # the check name of a value its sender sent as SUSPECT

SPIKE_QUANTILE = Decimal("0.999")  # the 1-in-1000 day of the target's own record
SPIKE_MIN_RECORD = 1000  # fewer final values than this: no 1-in-1000 day to speak of, skipped


@dataclass(frozen=True, slots=True)
class NeighbourRule:
    """The value against the surrounding targets' values the same day.

    kind "ratio": fails when value >= `floor` and value > `limit` x the largest neighbour
    (an isolated downpour an interpolated grid cannot make); kind "difference": fails when
    |value - median of the neighbours| > `limit`."""

    radius_km: float
    min_neighbours: int
    kind: str  # "ratio" | "difference"
    limit: Decimal
    floor: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """One data set variable's checks. None switches a check off (`why` says why)."""

    low: Decimal  # physical range: outside [low, high] is SUSPECT (the API refuses only the impossible)
    high: Decimal
    spike_margin: Decimal | None  # SUSPECT above the 99.9th percentile of the record + margin
    flat_days: int | None  # SUSPECT when the same non-zero value comes this many days running
    neighbours: NeighbourRule | None
    why: dict[str, str] = field(default_factory=dict)  # check -> the reason for its threshold


_D = Decimal
# The thresholds of every data set variable (docs/observations.md, "Quality checks", shows
# this table with the reasons). A (data set, variable) not here is checked on nothing.
THRESHOLDS: dict[tuple[str, str], Thresholds] = {
    ("IMD-RF-DAILY", "rainfall_mm"): Thresholds(
        _D(0), _D(1000), _D(0), 5, NeighbourRule(40.0, 3, "ratio", _D(10), _D(100)),
        {
            RANGE: "India's heaviest 24-hour station totals are about 1,000 mm (Cherrapunji, Mawsynram); a 0.25° "
                   "cell's interpolated value is lower. Above it a person looks before it pays.",
            SPIKE: "Beyond the target's 1-in-1000 day (no margin): the days that pay most are rare by design, and a "
                   "unit or decimal slip looks exactly like one.",
            FLAT_LINE: "The grid is interpolated from gauges to 0.1 mm: the same non-zero total five days running "
                       "is a stuck or repeated feed, not weather.",
            NEIGHBOURS: "IMD's grid is interpolated from gauges shared by adjacent cells (0.25°, about 28 km): "
                        "100 mm or more where every one of at least 3 cells within 40 km had under a tenth of it "
                        "is not something the interpolation makes.",
        },
    ),
    ("IMD-RF-HOURLY", "rainfall_mm"): Thresholds(
        _D(0), _D(200), _D(10), None, None,
        {
            RANGE: "Cloudbursts are 100 mm/h by definition and rare above 150 mm/h; the world's hour record is "
                   "about 305 mm. Above 200 mm/h a person looks.",
            SPIKE: "Beyond the station's 1-in-1000 hour by 10 mm: hourly records are mostly dry hours, and a "
                   "heavy shower lands above the quantile without being wrong.",
            FLAT_LINE: "Off: tipping-bucket gauges report in 0.5 mm steps, so identical hours are common in "
                       "steady rain.",
            NEIGHBOURS: "Off: stations are tens of km apart and an hour's rain is local.",
        },
    ),
    ("IMD-TMAX-1DEG", "temperature_c"): Thresholds(
        _D(-25), _D(52), _D(2), 5, NeighbourRule(120.0, 3, "difference", _D(10)),
        {
            RANGE: "India's record is 51.0 °C (Phalodi, 2016); the coldest 1° cells of Ladakh seldom have a "
                   "daily maximum below -20 °C.",
            SPIKE: "Beyond the cell's 1-in-1000 day by 2 °C: a daily maximum's upper tail is short, a few "
                   "degrees above it is a record for the cell.",
            FLAT_LINE: "The archive carries two decimals: the same value five days running is a repeated grid.",
            NEIGHBOURS: "Adjacent 1° cells (111 km, within 120 km) differ by less than 10 °C from their median "
                        "but where a lapse rate of 6.5 °C/km meets a 1.5 km jump in mean height (the Himalayan "
                        "front): beyond it a person looks.",
        },
    ),
    ("IBTRACS-WIND", "wind_kmh"): Thresholds(
        _D(0), _D(300), None, 5, None,
        {
            RANGE: "The North Indian Ocean's strongest cyclones (Odisha 1999, Gonu 2007) reached about 260 km/h "
                   "sustained.",
            SPIKE: "Off: the value is computed from a storm's track, most days are 0 km/h, so every cyclone is a "
                   "spike by nature; the range bounds it.",
            FLAT_LINE: "A storm's wind at a target changes from day to day as it moves: the same non-zero "
                       "value five days running is a stale track.",
            NEIGHBOURS: "Off: the wind field is computed from one track for all targets, consistent by "
                        "construction.",
        },
    ),
    ("REAN-SFC-HOURLY", "rainfall_mm"): Thresholds(
        _D(0), _D(1000), _D(0), 5, None,
        {
            RANGE: "As IMD's daily rainfall; the reanalysis smooths extremes further.",
            SPIKE: "As IMD's daily rainfall.",
            FLAT_LINE: "As IMD's daily rainfall: a model's daily total repeating five days is a stale feed.",
            NEIGHBOURS: "Off: a model field is spatially consistent by construction; what goes wrong is the feed, "
                        "which the other checks catch.",
        },
    ),
    ("REAN-SFC-HOURLY", "temperature_c"): Thresholds(
        _D(-40), _D(52), _D(2), 5, None,
        {
            RANGE: "As IMD's 1° maximum temperature, but the reanalysis covers the high Himalaya down to -40 °C.",
            SPIKE: "As IMD's 1° maximum temperature.",
            FLAT_LINE: "As IMD's 1° maximum temperature.",
            NEIGHBOURS: "Off: a model field (see rainfall).",
        },
    ),
    ("REAN-SFC-HOURLY", "wind_kmh"): Thresholds(
        _D(0), _D(250), _D(0), 5, None,
        {
            RANGE: "ERA5's 0.25° winds underestimate cyclone peaks; its strongest hourly winds over India are "
                   "below 200 km/h.",
            SPIKE: "Beyond the cell's 1-in-1000 day: the reanalysis's own winds vary little.",
            FLAT_LINE: "A model's daily maximum wind repeating five days running is a stale feed.",
            NEIGHBOURS: "Off: a model field (see rainfall).",
        },
    ),
}


def physical_range(value: Decimal, t: Thresholds) -> bool:
    """Fails when the value is outside the variable's physical range [low, high]."""
    return not t.low <= value <= t.high


def quantile(record: Sequence[Decimal], q: Decimal) -> Decimal:
    """The nearest-rank q-quantile of a non-empty record (the 99.9th: the 1-in-1000 day)."""
    ordered = sorted(record)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def one_in_1000(record: Sequence[Decimal]) -> Decimal | None:
    """The target's 1-in-1000 day: the 99.9th percentile (nearest rank) of its final values,
    or None below SPIKE_MIN_RECORD of them. The store computes the same in SQL
    (models/db/quality_context.py): rank ceil(0.999 n) = n - floor(n / 1000)."""
    return quantile(record, SPIKE_QUANTILE) if len(record) >= SPIKE_MIN_RECORD else None


def spike(value: Decimal, day_1_in_1000: Decimal | None, t: Thresholds) -> bool:
    """Fails when the value is beyond the target's 1-in-1000 day (`one_in_1000`) plus the
    margin; skipped (passes) without one (a record shorter than SPIKE_MIN_RECORD values)."""
    if t.spike_margin is None or day_1_in_1000 is None:
        return False
    return value > day_1_in_1000 + t.spike_margin


def flat_line(value: Decimal, before: Sequence[Decimal | None], t: Thresholds) -> bool:
    """Fails when the value is non-zero and the `flat_days - 1` days just before it (`before`,
    oldest first, None where a day has no value) all had the same value; skipped when the
    record is shorter than that."""
    if t.flat_days is None or value == 0:
        return False
    needed = t.flat_days - 1
    if len(before) < needed:
        return False
    return all(v is not None and v == value for v in before[-needed:])


def neighbour_inconsistent(value: Decimal, neighbours: Sequence[Decimal], t: Thresholds) -> bool:
    """Fails when the value disagrees with the surrounding targets' values the same day
    (`NeighbourRule`); skipped with fewer than `min_neighbours` of them."""
    rule = t.neighbours
    if rule is None or len(neighbours) < rule.min_neighbours:
        return False
    if rule.kind == "ratio":
        return value >= rule.floor and value > rule.limit * max(neighbours)
    ordered = sorted(neighbours)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return abs(value - median) > rule.limit


def missing_days(present: Sequence[dt.date], start: dt.date, end: dt.date) -> list[dt.date]:
    """The days of [start, end] without a value (a daily series' gaps)."""
    have = set(present)
    return [start + dt.timedelta(days=i) for i in range((end - start).days + 1) if start + dt.timedelta(days=i) not in have]


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine, Earth radius 6,371 km)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(min(1.0, a)))


def needs_context(value: Decimal, t: Thresholds) -> tuple[bool, bool, bool]:
    """Whether the value could fail (spike, flat line, neighbours) at all, so whether the
    store reads what those checks see: a spike must be above the range's low end plus the
    margin (a record of values in range has its 1-in-1000 day at or above the low end); a
    flat line is of a non-zero value; a ratio neighbour check starts at its floor."""
    rule = t.neighbours
    return (
        t.spike_margin is not None and value > t.low + t.spike_margin,
        t.flat_days is not None and value != 0,
        rule is not None and (rule.kind != "ratio" or value >= rule.floor),
    )


@dataclass(frozen=True, slots=True)
class Context:
    """What the checks of one value see: the target's 1-in-1000 day of the variable
    (`one_in_1000`, None: its record is too short), the days just before it (`before`,
    oldest first, None: no value), and the surrounding targets' values the same day
    (`neighbours`)."""

    day_1_in_1000: Decimal | None = None
    before: Sequence[Decimal | None] = ()
    neighbours: Sequence[Decimal] = ()


def failed_check(data_set: str, variable: str, value: Decimal, context: Context = Context()) -> str | None:
    """The name of the first check (`CHECKS` order) the value fails, or None when it passes
    them all (or its data set variable has no thresholds)."""
    t = THRESHOLDS.get((data_set, variable))
    if t is None:
        return None
    if physical_range(value, t):
        return RANGE
    if spike(value, context.day_1_in_1000, t):
        return SPIKE
    if flat_line(value, context.before, t):
        return FLAT_LINE
    if neighbour_inconsistent(value, context.neighbours, t):
        return NEIGHBOURS
    return None


Stored = tuple[Decimal, str, bool, str]  # a key's latest stored (value, quality, provisional, quality check)


def kept_verdict(
    value: Decimal, quality: str, provisional: bool, stored: Stored | None, check: str = ""
) -> tuple[str, str] | None:
    """(quality, check) a received value is stored with without running the checks, or None
    when the checks decide (`checked_verdict`):
    - the same value (and provisional flag) as its key's stored one whose verdict came from a
      check or an acceptance keeps that verdict (a SUSPECT stays SUSPECT naming its check, an
      accepted value stays accepted), so a replayed batch changes nothing;
    - a value marked SUSPECT stays SUSPECT, naming its check (`check`: a held revision's
      row keeps the one it was held with) or `REPORTED` (its sender said so);
    - the same value, quality and provisional flag as stored (unchanged) is not judged again."""
    same = stored is not None and stored[0] == value and stored[2] == provisional
    if same and stored[3]:
        return stored[1], stored[3]
    if quality == "SUSPECT":
        return "SUSPECT", check or REPORTED
    if same and stored[1] == quality:
        return quality, ""
    return None


def checked_verdict(quality: str, failed: str | None) -> tuple[str, str]:
    """(quality, check) of a judged value: SUSPECT naming the first check it failed, else as sent."""
    return (quality, "") if failed is None else ("SUSPECT", failed)
