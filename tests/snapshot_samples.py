"""Settlement snapshots built with the service's own pure ladder (models/domain/ladder.py):
the rungs chosen from readings, the index with its error, `snapshot_body`, as settlement
writes them. Used by the snapshot checks' tests and to seed `settlement_snapshot` rows."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.domain.ladder import (
    Reading,
    choose_rungs,
    ladder_index,
    snapshot_body,
    terms_of,
)
from models.domain.settlement_basis import INITIAL_STAGE, Calibration

RAIN, TMAX, HOURLY, REAN = "IMD-RF-DAILY", "IMD-TMAX-1DEG", "IMD-RF-HOURLY", "REAN-SFC-HOURLY"
CALIBRATION = Calibration(REAN, Decimal("1.5"), Decimal("0.9"), Decimal("3.2"), 400, "target",
                          dt.date(2024, 1, 1), dt.date(2026, 10, 31))


def _days(start: dt.date, end: dt.date) -> list[dt.date]:
    return [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]


def body(
    index_code: str = "RAINFALL_MONTHLY_TOTAL",
    *,
    stage: str = INITIAL_STAGE,
    values: list[Decimal] | None = None,
    provisional: set[int] = frozenset(),
    fallback: dict[int, Decimal] | None = None,
    start: dt.date = dt.date(2026, 7, 1),
    end: dt.date = dt.date(2026, 7, 31),
    direction: str = "ABOVE",
    trigger: Decimal = Decimal(300),
    exit: Decimal | None = None,
    payout_per_unit: Decimal = Decimal("12.5"),
    limit: Decimal = Decimal(2500),
    min_payout: Decimal = Decimal(100),
    provisional_error: Decimal = Decimal(2),
    error_share: Decimal = Decimal(1),
    coverage_id: uuid.UUID | None = None,
    revision: int = 1,
) -> dict:
    """A snapshot of `index_code` over [start, end]: day i's value is `values[i]` (12 mm a
    day by default), provisional for i in `provisional`; days in `fallback` have no primary
    value and take the calibrated fallback's (the deadline has passed)."""
    data_set, variable = {"TEMPERATURE_MAX": (TMAX, "temperature_c"),
                          "RAINFALL_DAYTIME_HOURS": (HOURLY, "rainfall_mm")}.get(index_code, (RAIN, "rainfall_mm"))
    days = _days(start, end)
    values = values if values is not None else [Decimal(12)] * len(days)
    fallback = fallback or {}
    primary = {d: Reading(d, values[i], i in provisional, "GOOD", 1, "IMD", data_set)
               for i, d in enumerate(days) if i not in fallback}
    second = {days[i]: Reading(days[i], v, False, "GOOD", 1, "open-meteo", REAN) for i, v in fallback.items()}
    rungs = choose_rungs(days, primary, second, provisional_error=provisional_error,
                         calibration=CALIBRATION if fallback else None, use_fallback=bool(fallback),
                         variable=variable, data_set=data_set)
    index = ladder_index(index_code, start, end, rungs, trigger=trigger, direction=direction, error_share=error_share)
    return snapshot_body(
        coverage_id=str(coverage_id or uuid.uuid4()), revision=revision, stage=stage, index_code=index_code,
        start=start, end=end,
        terms=terms_of(direction, trigger, exit, payout_per_unit, limit, min_payout, "INR"),
        error_share=error_share, calibration=CALIBRATION if fallback else None, index=index,
    )
