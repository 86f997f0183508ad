"""The data's own basis risk: its reads (issue 34; docs/observations.md, "The data's own basis
risk"; the computation is models/domain/basis_risk.py).

The covers of a range of months are the catalogue's coverages whose risk period starts in it
(held by a policy or not: the data's disagreement does not depend on sales) on a data set with
a source ladder. For each, from the stored observations: the primary's latest final value of
each day and its latest provisional one (two readings of one day are two revisions of one
key), the fallback's latest value, none SUSPECT; an hourly index's day is its sum over the
set hours (`daily_from_hourly`), a reading only when every hour has one of that kind.

The fallback's calibration (`fit_calibration`): pairs of the primary's final value and the
fallback's value on the same day at the target over the `CALIBRATION_YEARS` before the cover's
period (out of sample), else pooled over the targets read in the same call.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from models.db.tables import Coverage, Observation
from models.domain.basis_risk import BasisRisk, CoverSources, basis_risk
from models.domain.data_sets import data_of
from models.domain.index_catalog import BY_CODE, BY_ID, IndexDefinitionSpec
from models.domain.ladder import Reading
from models.domain.settlement import daily_from_hourly
from models.domain.settlement_basis import LADDERS, Calibration, fit_calibration

CALIBRATION_YEARS = 3
REPORT_MONTHS = 12
# The figures a technical pricing report quotes, per (data set, first month, last month): the
# reports rendered in one day (a catalogue batch renders hundreds) read them once per process.
_recent: dict[tuple[str, dt.date, dt.date], list[BasisRisk]] = {}
Readings = dict[dt.date, Reading]


async def _rows(target: str, data_set: str, variable: str, first: dt.date, last: dt.date) -> list[dict]:
    return await Observation.select(
        Observation.obs_key, Observation.observed_on, Observation.hour, Observation.value, Observation.provisional,
        Observation.quality, Observation.revision, Observation.source,
    ).where(
        (Observation.monitoring_target_id == target) & (Observation.data_set == data_set)
        & (Observation.variable == variable) & (Observation.observed_on >= first) & (Observation.observed_on <= last)
    )


def _readings(rows: list[dict], data_set: str, provisional: bool | None, spec: IndexDefinitionSpec | None) -> Readings:
    """Each day's reading of one kind (provisional True/False; None: the latest of either),
    the latest revision of that kind per key, SUSPECT ones left out."""
    latest: dict[str, dict] = {}
    for r in rows:
        if provisional is not None and bool(r["provisional"]) != provisional:
            continue
        have = latest.get(r["obs_key"])
        if have is None or r["revision"] > have["revision"]:
            latest[r["obs_key"]] = r
    good = [r for r in latest.values() if r["quality"] != "SUSPECT"]
    if spec is None or spec.hours is None:
        return {r["observed_on"]: _reading(r["observed_on"], Decimal(r["value"]), [r], data_set)
                for r in good if r["hour"] is None}
    by_day: dict[dt.date, list[dict]] = {}
    for r in good:
        if r["hour"] is not None and spec.hours[0] <= r["hour"] < spec.hours[1]:
            by_day.setdefault(r["observed_on"], []).append(r)
    out = {}
    for day, rs in by_day.items():
        total = daily_from_hourly({r["hour"]: Decimal(r["value"]) for r in rs}, spec)
        if total is not None:
            out[day] = _reading(day, total, rs, data_set)
    return out


def _reading(day: dt.date, value: Decimal, rows: list[dict], data_set: str) -> Reading:
    return Reading(day, value, any(bool(r["provisional"]) for r in rows), "GOOD", max(r["revision"] for r in rows),
                   rows[0]["source"], data_set)


def _pairs(final: Readings, fallback: Readings, before: dt.date) -> list[tuple[dt.date, Decimal, Decimal]]:
    """(day, fallback, primary final) on the days both have, in the CALIBRATION_YEARS before `before`."""
    first = before.replace(year=before.year - CALIBRATION_YEARS)
    return [(d, fallback[d].value, final[d].value) for d in sorted(final) if first <= d < before and d in fallback]


async def covers_between(first: dt.date, last: dt.date, data_set: str | None = None) -> list[CoverSources]:
    """The covers whose risk period starts in [first, last] (module docstring), each with its
    sources' readings and calibration; `data_set`: only covers settling on it."""
    rows = await Coverage.select(
        Coverage.id, Coverage.monitoring_target_id, Coverage.index_definition_id, Coverage.direction, Coverage.trigger,
        Coverage.risk_period_start, Coverage.risk_period_end, Coverage.data_set,
    ).where((Coverage.risk_period_start >= first) & (Coverage.risk_period_start <= last))
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for r in rows:
        code = BY_ID[r["index_definition_id"]].code
        ds, variable = data_of(code, r["data_set"])
        if ds in LADDERS and (data_set is None or ds == data_set):
            groups.setdefault((r["monitoring_target_id"], ds, variable), []).append({**r, "code": code})
    read: dict[tuple[str, str, str], tuple[list[dict], list[dict]]] = {}
    for (target, ds, variable), covers in groups.items():
        lo = min(c["risk_period_start"] for c in covers)
        lo = lo.replace(year=lo.year - CALIBRATION_YEARS)
        hi = max(c["risk_period_end"] for c in covers)
        fallback_ds = LADDERS[ds].fallback_data_set
        read[(target, ds, variable)] = (
            await _rows(target, ds, variable, lo, hi),
            await _rows(target, fallback_ds, variable, lo, hi) if fallback_ds else [],
        )
    out = []
    calibrations: dict[tuple, Calibration | None] = {}
    for key, covers in sorted(groups.items()):
        target, ds, variable = key
        ladder = LADDERS[ds]
        primary_rows, fallback_rows = read[key]
        for c in sorted(covers, key=lambda c: (c["risk_period_start"], c["code"], str(c["id"]))):
            spec = BY_CODE[c["code"]]
            final = _readings(primary_rows, ds, False, spec)
            fallback = _readings(fallback_rows, ladder.fallback_data_set or "", None, spec) if fallback_rows else {}
            calibration = None
            if ladder.fallback_data_set and spec.hours is None:
                ck = (key, c["risk_period_start"])
                if ck not in calibrations:
                    calibrations[ck] = _calibration(key, c["risk_period_start"], final, fallback, read, ladder.fallback_data_set)
                calibration = calibrations[ck]
            out.append(CoverSources(
                coverage_id=c["id"], index_code=c["code"], direction=c["direction"], trigger=Decimal(c["trigger"]),
                start=c["risk_period_start"], end=c["risk_period_end"], data_set=ds, variable=variable,
                fallback_data_set=ladder.fallback_data_set, final=final,
                provisional=_readings(primary_rows, ds, True, spec), fallback=fallback, calibration=calibration,
            ))
    return out


def _calibration(key, before: dt.date, final: Readings, fallback: Readings, read: dict, fallback_ds: str) -> Calibration | None:
    """At the target when it has enough overlapping days, else pooled over the targets read."""
    own = fit_calibration(_pairs(final, fallback, before), fallback_ds, "target")
    if own is not None:
        return own
    _, ds, variable = key
    pooled = []
    for (target, other_ds, other_var), (p_rows, f_rows) in sorted(read.items()):
        if (other_ds, other_var) == (ds, variable) and f_rows:
            pooled += _pairs(_readings(p_rows, ds, False, None), _readings(f_rows, fallback_ds, None, None), before)
    return fit_calibration(pooled, fallback_ds, "pooled")


async def recent_months(data_set: str, today: dt.date) -> tuple[dt.date, dt.date, list[BasisRisk]]:
    """(first day, last day, figures) of the data set's basis risk over the covers starting in
    the REPORT_MONTHS whole months before `today`: what a technical pricing report quotes."""
    last = today.replace(day=1) - dt.timedelta(days=1)
    first = last.replace(day=1)
    for _ in range(REPORT_MONTHS - 1):
        first = (first - dt.timedelta(days=1)).replace(day=1)
    key = (data_set, first, last)
    if key not in _recent:
        _recent.clear()  # one span at a time: yesterday's figures are not kept
        _recent[key] = basis_risk(await covers_between(first, last, data_set))
    return first, last, _recent[key]
