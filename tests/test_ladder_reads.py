"""What settlement on the ladder reads from the stored values (models/db/ladder_reads.py, issue
34), on the real database: the provisional product's error measured from the target's own
provisional → final pairs once there are MIN_PAIRS of them (the declared figure before); the
fallback's calibration on the target's overlap, else pooled over every target, else none;
an hourly index's day is SUSPECT if any of its hours is."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from models.db import ladder_reads
from models.db import observations as observations_db
from models.db.tables import MonitoringTarget
from models.domain.observations import ObservationIn
from models.domain.settlement_basis import MIN_PAIRS

RAIN, FALLBACK = "IMD-RF-DAILY", "REAN-SFC-HOURLY"
END = dt.date(2031, 7, 31)  # far from any other test's days


async def _targets(n: int) -> list[str]:
    rows = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id).limit(n + 40)
    return [r["id"] for r in rows][40 : 40 + n]


def _days(n: int) -> list[dt.date]:
    return [END - dt.timedelta(days=i) for i in range(n)]


async def test_the_provisional_error_is_measured_from_the_targets_own_pairs(database):
    few, many = await _targets(2)
    for target, n in ((few, MIN_PAIRS - 1), (many, MIN_PAIRS + 10)):
        days = _days(n)
        await observations_db.store_batch([ObservationIn(target, RAIN, "rainfall_mm", d, None, Decimal(10), "IMD", provisional=True) for d in days])
        # The archive differs by ±1.5 mm a day: RMS 1.5 mm.
        await observations_db.store_batch([
            ObservationIn(target, RAIN, "rainfall_mm", d, None, Decimal("11.5") if i % 2 else Decimal("8.5"), "IMD")
            for i, d in enumerate(days)
        ])
    declared = Decimal(2)
    assert await ladder_reads.provisional_error(few, RAIN, "rainfall_mm", END, declared) == declared
    assert await ladder_reads.provisional_error(many, RAIN, "rainfall_mm", END, declared) == Decimal("1.5")


async def test_the_calibration_is_the_targets_own_else_pooled_else_none(database):
    own, other, bare = (await _targets(5))[2:5]
    days = _days(MIN_PAIRS + 5)
    rows = []
    for i, d in enumerate(days):
        imd = Decimal(i % 9) * 3
        rows += [ObservationIn(own, RAIN, "rainfall_mm", d, None, imd, "IMD"),
                 ObservationIn(own, FALLBACK, "rainfall_mm", d, None, imd / 2 + (Decimal("0.1") if i % 2 else 0), "era5")]
    await observations_db.store_batch(rows)
    mine = await ladder_reads.calibration(own, RAIN, FALLBACK, "rainfall_mm", END)
    assert mine is not None and mine.scope == "target" and mine.pairs == len(days)
    assert abs(mine.slope - 2) < Decimal("0.05")
    pooled = await ladder_reads.calibration(other, RAIN, FALLBACK, "rainfall_mm", END)
    assert pooled is not None and pooled.scope == "pooled" and pooled.pairs >= len(days)
    assert await ladder_reads.calibration(bare, RAIN, FALLBACK, "rainfall_mm", dt.date(2001, 1, 31)) is None


async def test_an_hourly_day_is_suspect_if_any_of_its_hours_is(database):
    [target] = (await _targets(7))[6:7]
    day = END
    rows = [ObservationIn(target, "IMD-RF-HOURLY", "rainfall_mm", day, h, Decimal(1), "aws",
                          quality="SUSPECT" if h == 12 else "GOOD") for h in range(24)]
    await observations_db.store_batch(rows)
    readings, _ = await ladder_reads.readings(target, "RAINFALL_DAYTIME_HOURS", "IMD-RF-HOURLY", "rainfall_mm", day, day)
    assert readings[day].quality == "SUSPECT" and readings[day].value > 0
