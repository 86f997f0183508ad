"""The data's own basis risk, pure (issue 34; models/domain/basis_risk.py): trigger flips and
the mean absolute index difference between a data set's sources over a month's covers."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.domain.basis_risk import (
    PRIMARY_FALLBACK,
    PROVISIONAL_FINAL,
    CoverSources,
    basis_risk,
    combined,
)
from models.domain.ladder import Reading
from models.domain.settlement_basis import Calibration

START, END = dt.date(2027, 7, 1), dt.date(2027, 7, 31)
DAYS = [START + dt.timedelta(days=i) for i in range(31)]
DOUBLE = Calibration("REAN-SFC-HOURLY", Decimal(0), Decimal(2), Decimal("1.5"), 60, "target", START, END)


def readings(values, provisional=False, data_set="IMD-RF-DAILY") -> dict:
    return {d: Reading(d, Decimal(v), provisional, "GOOD", 2 if not provisional else 1, "src", data_set)
            for d, v in zip(DAYS, values)}


def sources(final, provisional, fallback, trigger="150", calibration=DOUBLE) -> CoverSources:
    return CoverSources(uuid.uuid4(), "RAINFALL_MONTHLY_TOTAL", "ABOVE", Decimal(trigger), START, END, "IMD-RF-DAILY",
                        "rainfall_mm", "REAN-SFC-HOURLY", final, provisional, fallback, calibration)


def test_flips_and_mean_absolute_difference_per_pair():
    # cover 1: final 155 (pays), provisional 145 (does not): a flip of 10 mm; fallback 2 x 77.5 = 155: same side
    one = sources(readings(["5"] * 31), readings(["5"] * 30 + ["-5"], True), readings(["2.5"] * 31, data_set="REAN"))
    # cover 2: final 124 (no), provisional 124.5 (no), fallback 2 x 80 = 160 (pays): a flip of 36 mm
    two = sources(readings(["4"] * 31), readings(["4"] * 30 + ["4.5"], True), readings(["2.5"] * 30 + ["5"], data_set="R"))
    # cover 3: the provisional product lacks a day: not compared on that pair; no calibration: not on the other
    three = sources(readings(["4"] * 31), readings(["4"] * 30, True), {}, calibration=None)
    rows = {r.comparison: r for r in basis_risk([one, two, three])}
    pf = rows[PROVISIONAL_FINAL]
    assert (pf.other, pf.covers, pf.compared, pf.flips) == ("IMD-RF-DAILY provisional", 3, 2, 1)
    assert pf.mean_abs_difference == Decimal("5.25") and pf.max_abs_difference == Decimal(10) and pf.flip_rate == Decimal("0.5")
    fb = rows[PRIMARY_FALLBACK]
    assert (fb.other, fb.covers, fb.compared, fb.flips) == ("REAN-SFC-HOURLY", 3, 2, 1)
    assert fb.mean_abs_difference == Decimal(18)  # |155 - 155| and |124 - 160|
    assert combined(list(rows.values()), "IMD-RF-DAILY", PRIMARY_FALLBACK) == (1, 2)


def test_the_primary_side_takes_final_values_over_provisional_ones():
    # every day final 5 except the last, which only has its provisional value: 150 + 0 = 150 against 2 x 75
    final = readings(["5"] * 30)
    cover = sources(final, readings(["5"] * 30 + ["0"], True), readings(["2.5"] * 30 + ["0"], data_set="R"))
    fb = next(r for r in basis_risk([cover]) if r.comparison == PRIMARY_FALLBACK)
    assert (fb.compared, fb.flips, fb.mean_abs_difference) == (1, 0, Decimal(0))


def test_an_hourly_index_reads_a_day_of_a_kind_only_when_every_set_hour_has_one():
    """models/db/basis_risk.py `_readings` (no database): IMD-RF-HOURLY's day is the sum of
    the index's hours (08-20 IST), the latest revision of each kind per hour, SUSPECT left out."""
    from models.db.basis_risk import _readings
    from models.domain.index_catalog import BY_CODE

    spec = BY_CODE["RAINFALL_DAYTIME_HOURS"]
    day, other = dt.date(2027, 7, 1), dt.date(2027, 7, 2)

    def row(d, hour, value, revision, provisional, quality="GOOD"):
        return {"obs_key": f"t|IMD-RF-HOURLY|rainfall_mm|{d}|{hour:02d}", "observed_on": d, "hour": hour,
                "value": Decimal(value), "provisional": provisional, "quality": quality, "revision": revision,
                "source": "aws"}

    rows = [row(day, h, "1", 1, True) for h in range(8, 20)] + [row(day, h, "2", 2, False) for h in range(8, 20)]
    rows += [row(day, 3, "50", 1, True)]  # outside the set hours: not counted
    rows += [row(other, h, "1", 1, True) for h in range(8, 19)]  # 19:00 missing
    rows += [row(other, h, "1", 2, False) for h in range(8, 20)]
    rows[-1] = row(other, 19, "9", 3, False, "SUSPECT")  # the latest final of 19:00 is SUSPECT: no final day
    provisional = _readings(rows, "IMD-RF-HOURLY", True, spec)
    final = _readings(rows, "IMD-RF-HOURLY", False, spec)
    assert {d: r.value for d, r in provisional.items()} == {day: Decimal(12)}
    assert {d: r.value for d, r in final.items()} == {day: Decimal(24)}
    assert provisional[day].provisional and not final[day].provisional and final[day].revision == 2
