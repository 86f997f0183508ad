"""A cover's settlement basis (issue 34): the **source ladder** of the data set it settles on,
the calculation deadline and the true-up window, frozen into the cover when it is created and
into every quote and policy sold on it (docs/settlement.md, "Settlement basis";
docs/observations.md, "Source ladders").

A day's value comes from the highest rung available:

1. `FINAL`: the primary data set's final product (the one the price is fitted on);
2. `PROVISIONAL`: the primary data set's provisional product (the source may still change it);
3. `FALLBACK`: a declared second data set, used only for a day the primary still lacks at
   the **calculation deadline** (the period's last day + `calculation_deadline_days`), mapped
   to the primary by a linear calibration fitted on their stored overlap (`Calibration`).

A `SUSPECT` value is on no rung. Pure: imports only the data sets.

Units: index values and errors in the variable's unit (mm, °C, km/h) as `Decimal`.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

import msgspec

from models.domain.data_sets import (
    DATA_SETS,
    IBTRACS_WIND,
    IMD_TMAX,
    INDEX_DATA,
    REANALYSIS,
)

FINAL, PROVISIONAL, FALLBACK = "FINAL", "PROVISIONAL", "FALLBACK"
RUNGS = (FINAL, PROVISIONAL, FALLBACK)  # highest first
INITIAL_STAGE, FINAL_STAGE = "INITIAL", "FINAL"

# Product settings (docs/settlement.md, "Two payments"): the calculation deadline after the
# period's last day; how long an INITIAL settlement waits for final values before the
# calculation agent's final determination on the best rung then available; the share of a
# rung's stated error the INITIAL payment is reduced by.
CALCULATION_DEADLINE_DAYS = 15
TRUE_UP_WINDOW_DAYS = 450
INITIAL_ERROR_SHARE = Decimal(1)
# A rung's error is measured from stored pairs (provisional against final, fallback against
# primary) once there are at least this many; below that the ladder's declared figure stands.
MIN_PAIRS = 30


@dataclass(frozen=True, slots=True)
class SourceLadder:
    """The rungs of one primary data set and why (docs/observations.md, "Source ladders")."""

    data_set: str  # the primary: what the price is fitted on
    provisional: str  # the provisional product, its publisher and when it comes
    provisional_latency_days: int  # days after a day ends until its provisional value is published
    final: str  # the final product, its publisher and when it comes
    fallback_data_set: str | None  # None: no fallback (the calculation agent estimates)
    fallback: str  # the fallback product and who publishes it; "" when none
    # Declared 1-σ error of one day's provisional value against the final, in the variable's
    # unit, until MIN_PAIRS stored pairs measure it (a product setting, docs/settlement.md).
    provisional_error: Decimal
    # Two sources disagree when their indices lie on different sides of the trigger and
    # further apart than this (index units; daily counts: days).
    tolerance: Decimal


LADDERS: dict[str, SourceLadder] = {
    lad.data_set: lad
    for lad in (
        SourceLadder(
            "IMD-RF-DAILY",
            "IMD real-time 0.25° gridded rainfall (rain_ind0.25_<yy>_<mm>_<dd>.grd), IMD Pune, the next day",
            1,
            "IMD 0.25° gridded rainfall archive (Rainfall_ind<year>_rfp25.grd), IMD Pune, early the next year",
            REANALYSIS,
            "ERA5 daily precipitation (ECMWF, through the Open-Meteo archive API), IST day, within about five days",
            Decimal("2.0"),
            Decimal(10),
        ),
        SourceLadder(
            IMD_TMAX,
            "IMD real-time 0.5° maximum temperature analysis (max<ddmmyyyy>.grd) at the 1° cell's centre, the next day",
            1,
            "IMD quality-controlled 1° maximum temperature archive (Maxtemp_MaxT_<year>.GRD), early the next year",
            REANALYSIS,
            "ERA5 daily maximum 2 m temperature (ECMWF, through the Open-Meteo archive API), within about five days",
            Decimal("0.5"),
            Decimal("1.0"),
        ),
        SourceLadder(
            IBTRACS_WIND,
            "operational tracks of IMD RSMC New Delhi (IBTrACS provisional), within days",
            2,
            "the season's best track in IBTrACS (NOAA NCEI), months after the season",
            REANALYSIS,
            "ERA5 daily maximum 10 m wind (ECMWF, through the Open-Meteo archive API), within about five days",
            Decimal(10),
            Decimal(10),
        ),
        SourceLadder(
            "IMD-RF-HOURLY",
            "the nearest automatic weather station's hourly report (IMD), within the hour",
            1,
            "the same report once IMD's quality control has passed it",
            None,
            "",
            Decimal("0.5"),
            Decimal(1),
        ),
    )
}


class SettlementBasis(msgspec.Struct, frozen=True, kw_only=True):
    """The terms a cover settles on, frozen at sale (`coverage.settlement_basis`,
    `CoverSnapshot.settlement_basis`). Fields are only ever added, with defaults."""

    data_set: str
    variable: str
    provisional: str
    provisional_latency_days: int
    final: str
    fallback_data_set: str | None
    fallback: str
    provisional_error: Decimal
    tolerance: Decimal
    calculation_deadline_days: int = CALCULATION_DEADLINE_DAYS
    true_up_window_days: int = TRUE_UP_WINDOW_DAYS
    initial_error_share: Decimal = INITIAL_ERROR_SHARE

    def calculation_deadline(self, end: dt.date) -> dt.date:
        """The day by which a period ending on `end` (inclusive) is settled INITIAL at the
        latest, the fallback filling what the primary still lacks."""
        return end + dt.timedelta(days=self.calculation_deadline_days)

    def true_up_deadline(self, end: dt.date) -> dt.date:
        """The day after which an INITIAL settlement still lacking final values is settled
        FINAL on the best rung then available (the calculation agent's final determination)."""
        return end + dt.timedelta(days=self.true_up_window_days)

    def first_due(self, end: dt.date) -> dt.date:
        """The first day the period's provisional values can all be in."""
        return end + dt.timedelta(days=1 + self.provisional_latency_days)


def basis_for(index_code: str, data_set: str | None) -> SettlementBasis | None:
    """The settlement basis of a cover of `index_code` settling on `data_set`, as a cover
    created now gets it; None for a data set without a ladder (settles on final values only)."""
    ladder = LADDERS.get(data_set or "")
    if ladder is None:
        return None
    return SettlementBasis(
        data_set=ladder.data_set,
        variable=INDEX_DATA[index_code][1],
        provisional=ladder.provisional,
        provisional_latency_days=ladder.provisional_latency_days,
        final=ladder.final,
        fallback_data_set=ladder.fallback_data_set,
        fallback=ladder.fallback,
        provisional_error=ladder.provisional_error,
        tolerance=ladder.tolerance,
    )


def decode_basis(raw: object) -> SettlementBasis | None:
    """A basis as stored (JSON text, bytes, a dict or None) → `SettlementBasis` or None."""
    if raw is None or raw == "" or raw == "null":
        return None
    if isinstance(raw, SettlementBasis):
        return raw
    if isinstance(raw, (str, bytes)):
        return msgspec.json.decode(raw, type=SettlementBasis | None)
    return msgspec.convert(raw, SettlementBasis | None, strict=False)


def encode_basis(basis: SettlementBasis | None) -> str | None:
    """The JSON text a basis is stored as (None stays None)."""
    return None if basis is None else msgspec.json.encode(basis).decode()


# --- calibration of a fallback to the primary -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Calibration:
    """primary ≈ intercept + slope × fallback, fitted by ordinary least squares on the stored
    days that have a final primary value and a fallback value (`fit_calibration`); `sigma`
    is the residual standard deviation (n − 2 degrees of freedom): the stated error of one
    calibrated day. Parameters are kept to 4 decimal places, so the same pairs always give
    the same calibration and a snapshot carries it exactly."""

    fallback_data_set: str
    intercept: Decimal
    slope: Decimal
    sigma: Decimal
    pairs: int
    scope: str  # "target": fitted on the target's own overlap; "pooled": on every target's
    first_day: dt.date
    last_day: dt.date

    def apply(self, value: Decimal, variable: str, data_set: str) -> Decimal:
        """The fallback `value` mapped to the primary's scale, to 0.01, within the primary
        variable's plausible range (rain and wind are never negative)."""
        _, low, high = DATA_SETS[data_set].variables[variable]
        mapped = (self.intercept + self.slope * value).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
        return min(max(mapped, low), high)

    def as_dict(self) -> dict:
        """Its canonical form in a snapshot (decimals as plain text)."""
        return {
            "fallbackDataSet": self.fallback_data_set,
            "intercept": _plain(self.intercept),
            "slope": _plain(self.slope),
            "sigma": _plain(self.sigma),
            "pairs": self.pairs,
            "scope": self.scope,
            "firstDay": self.first_day.isoformat(),
            "lastDay": self.last_day.isoformat(),
        }


def fit_calibration(
    pairs: list[tuple[dt.date, Decimal, Decimal]], fallback_data_set: str, scope: str
) -> Calibration | None:
    """Least squares of the primary on the fallback over `pairs` [(day, fallback, primary)].
    None when fewer than MIN_PAIRS pairs or the fallback does not vary (nothing to fit)."""
    if len(pairs) < MIN_PAIRS:
        return None
    xs = [float(p[1]) for p in pairs]
    ys = [float(p[2]) for p in pairs]
    n = len(pairs)
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    if sxx <= 0:
        return None
    slope = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    intercept = my - slope * mx
    residual = math.fsum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys))
    sigma = math.sqrt(residual / (n - 2))
    q = Decimal("0.0001")
    days = [p[0] for p in pairs]
    return Calibration(
        fallback_data_set=fallback_data_set,
        intercept=Decimal(repr(intercept)).quantize(q, ROUND_HALF_EVEN),
        slope=Decimal(repr(slope)).quantize(q, ROUND_HALF_EVEN),
        sigma=Decimal(repr(sigma)).quantize(q, ROUND_HALF_EVEN),
        pairs=n,
        scope=scope,
        first_day=min(days),
        last_day=max(days),
    )


def _plain(x: Decimal) -> str:
    return format(x.normalize(), "f")
