"""What settlement on a source ladder reads (issue 34; docs/settlement.md, "Settlement
basis"): a cover's period readings of its primary data set and of its fallback as
`models.domain.ladder.Reading`s, the calibration of the fallback to the primary fitted on
their stored overlap, and the latest settlement snapshot of a coverage.

Readings: the latest revision of each day (`observations.latest_values`); an hourly index's
day is its sum over the index's hours (missing unless every one of them is in), provisional
if any of them is, SUSPECT if any of them is.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.db.observations import hourly_days, latest_values
from models.db.tables import Observation
from models.domain.index_catalog import BY_CODE
from models.domain.ladder import Reading
from models.domain.settlement_basis import MIN_PAIRS, Calibration, fit_calibration

CALIBRATION_YEARS = 3  # the overlap a calibration is fitted on: the last three years of stored days


async def readings(
    target_id: str, index_code: str, data_set: str, variable: str, start: dt.date, end: dt.date
) -> tuple[dict[dt.date, Reading], bool]:
    """The period's readings of `data_set`'s `variable` at the target by day, and whether any
    is simulated."""
    stored = await latest_values(target_id, data_set, variable, start, end)
    simulated = any(v.simulated for v in stored)
    spec = BY_CODE[index_code]
    if spec.hours is None:
        return {
            v.day: Reading(v.day, v.value, v.provisional, v.quality or "GOOD", v.revision, v.source, data_set)
            for v in stored if v.hour is None
        }, simulated
    out: dict[dt.date, Reading] = {}
    for day, (total, used) in hourly_days(stored, index_code).items():
        quality = "SUSPECT" if any(v.quality == "SUSPECT" for v in used) else "GOOD"
        out[day] = Reading(day, total, any(v.provisional for v in used), quality, max(v.revision for v in used),
                           used[0].source, data_set)
    return out, simulated


async def _latest_days(data_set: str, variable: str, first: dt.date, last: dt.date, target_id: str | None) -> dict:
    """(target, day) → (value, final) of the latest revision of each daily value (hour null)
    in [first, last], at the target or (None) at every target; SUSPECT values left out."""
    where = (
        (Observation.data_set == data_set) & (Observation.variable == variable) & Observation.hour.is_null()
        & (Observation.observed_on >= first) & (Observation.observed_on <= last)
    )
    if target_id is not None:
        where = where & (Observation.monitoring_target_id == target_id)
    rows = await Observation.select(
        Observation.monitoring_target_id, Observation.observed_on, Observation.value, Observation.provisional,
        Observation.quality, Observation.revision,
    ).where(where)
    best: dict[tuple[str, dt.date], dict] = {}
    for r in rows:
        key = (r["monitoring_target_id"], r["observed_on"])
        if key not in best or r["revision"] > best[key]["revision"]:
            best[key] = r
    return {
        k: (Decimal(r["value"]), not r["provisional"]) for k, r in best.items() if r["quality"] != "SUSPECT"
    }


async def calibration(
    target_id: str, data_set: str, fallback_data_set: str, variable: str, end: dt.date
) -> Calibration | None:
    """primary ≈ intercept + slope × fallback, fitted on the days of the last
    CALIBRATION_YEARS up to `end` that have a final primary value and a fallback value at the
    target; pooled over every target when the target has fewer than MIN_PAIRS such days;
    None when neither has enough (`fit_calibration`)."""
    first = end - dt.timedelta(days=365 * CALIBRATION_YEARS)
    for scope, target in (("target", target_id), ("pooled", None)):
        primary = await _latest_days(data_set, variable, first, end, target)
        fallback = await _latest_days(fallback_data_set, variable, first, end, target)
        pairs = [
            (key[1], fallback[key][0], value)
            for key, (value, final) in sorted(primary.items())
            if final and key in fallback
        ]
        if len(pairs) >= MIN_PAIRS:
            return fit_calibration(pairs, fallback_data_set, scope)
    return None


async def provisional_error(target_id: str, data_set: str, variable: str, end: dt.date, declared: Decimal) -> Decimal:
    """The 1-σ error of one day's provisional value against its final one: the root mean
    square of (final − provisional) over the days of the last CALIBRATION_YEARS up to `end`
    whose stored revisions hold both (the last provisional revision before a final one) at
    the target; the ladder's `declared` figure while fewer than MIN_PAIRS such days are
    stored there. To 0.01 of the unit, never below 0.01 (a provisional value is never
    taken as certain)."""
    first = end - dt.timedelta(days=365 * CALIBRATION_YEARS)
    rows = await Observation.select(
        Observation.obs_key, Observation.revision, Observation.value, Observation.provisional
    ).where(
        (Observation.monitoring_target_id == target_id) & (Observation.data_set == data_set)
        & (Observation.variable == variable) & Observation.hour.is_null() & (Observation.observed_on >= first)
        & (Observation.observed_on <= end) & (Observation.quality != "SUSPECT")
    )
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        by_key.setdefault(r["obs_key"], []).append(r)
    squares = []
    for revisions in by_key.values():
        revisions.sort(key=lambda r: r["revision"])
        final = next((r for r in reversed(revisions) if not r["provisional"]), None)
        earlier = [r for r in revisions if r["provisional"] and final is not None and r["revision"] < final["revision"]]
        if earlier:
            squares.append((Decimal(final["value"]) - Decimal(earlier[-1]["value"])) ** 2)
    if len(squares) < MIN_PAIRS:
        return declared
    return max((sum(squares, Decimal(0)) / len(squares)).sqrt().quantize(Decimal("0.01")), Decimal("0.01"))
