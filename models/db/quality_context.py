"""What the quality checks of received values see, read from the store (issue 34;
docs/observations.md, "Quality checks"; the checks are models/domain/quality_checks.py).

Per (data set, variable) of a batch, three reads in chunks: the targets' stored final
values (the spike check's record: latest revisions neither provisional nor SUSPECT), the
days just before each value (the flat line: stored values only, so a stuck feed is caught
on its n-th day, while a batch carrying many days at once is checked against what was
stored before it), and the surrounding targets' values the same day (stored, overlaid by
the batch's own rows, which will be the latest).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from models.db.tables import MonitoringTarget, Observation
from models.domain.observations import ObservationIn
from models.domain.quality_checks import (
    SPIKE_MIN_RECORD,
    THRESHOLDS,
    Context,
    Thresholds,
    distance_km,
    failed_check,
)

CHUNK = 500
KM_PER_DEGREE = 111.0  # latitude; a longitude degree is shorter, so a box of this size holds the circle


def _latest(rows: list[dict]) -> dict[str, dict]:
    best: dict[str, dict] = {}
    for r in rows:
        have = best.get(r["obs_key"])
        if have is None or r["revision"] > have["revision"]:
            best[r["obs_key"]] = r
    return best


async def _stored(data_set: str, variable: str, targets: Sequence[str], first: dt.date | None = None,
                  last: dt.date | None = None) -> list[dict]:
    """The latest revision of each stored key of the targets (of [first, last] if given)."""
    out: list[dict] = []
    wanted = sorted(set(targets))
    for i in range(0, len(wanted), CHUNK):
        query = Observation.select(
            Observation.obs_key, Observation.monitoring_target_id, Observation.observed_on, Observation.hour,
            Observation.value, Observation.revision, Observation.provisional, Observation.quality,
        ).where(
            Observation.monitoring_target_id.is_in(wanted[i : i + CHUNK])
            & (Observation.data_set == data_set) & (Observation.variable == variable)
        )
        if first is not None and last is not None:
            query = query.where((Observation.observed_on >= first) & (Observation.observed_on <= last))
        out.extend((await query))
    return list(_latest(out).values())


async def _records(data_set: str, variable: str, targets: Sequence[str]) -> dict[str, list[Decimal]]:
    """Each target's stored final values (the spike check's record); only targets with enough."""
    by_target: dict[str, list[Decimal]] = {}
    for r in await _stored(data_set, variable, targets):
        if not r["provisional"] and r["quality"] != "SUSPECT":
            by_target.setdefault(r["monitoring_target_id"], []).append(Decimal(r["value"]))
    return {t: v for t, v in by_target.items() if len(v) >= SPIKE_MIN_RECORD}


async def _neighbours_of(targets: Sequence[str], radius_km: float) -> dict[str, list[str]]:
    """Each target's surrounding targets within `radius_km` (itself excluded)."""
    wanted = sorted(set(targets))
    where: dict[str, tuple[float, float]] = {}
    for i in range(0, len(wanted), CHUNK):
        for r in await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude).where(
            MonitoringTarget.id.is_in(wanted[i : i + CHUNK])
        ):
            where[r["id"]] = (r["latitude"], r["longitude"])
    if not where:
        return {}
    pad = radius_km / KM_PER_DEGREE * 2  # longitude degrees shrink with latitude: a generous box
    lats, lons = [p[0] for p in where.values()], [p[1] for p in where.values()]
    around = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude).where(
        (MonitoringTarget.latitude >= min(lats) - pad) & (MonitoringTarget.latitude <= max(lats) + pad)
        & (MonitoringTarget.longitude >= min(lons) - pad) & (MonitoringTarget.longitude <= max(lons) + pad)
    )
    return {
        t: [a["id"] for a in around if a["id"] != t and distance_km(lat, lon, a["latitude"], a["longitude"]) <= radius_km]
        for t, (lat, lon) in where.items()
    }


async def _judge_group(data_set: str, variable: str, t: Thresholds, rows: list[ObservationIn]) -> list[str | None]:
    targets = sorted({r.monitoring_target_id for r in rows})
    days = [r.day for r in rows]
    records = await _records(data_set, variable, targets) if t.spike_margin is not None else {}
    before: dict[tuple[str, dt.date, int | None], Decimal] = {}
    if t.flat_days is not None:
        first = min(days) - dt.timedelta(days=t.flat_days - 1)
        for r in await _stored(data_set, variable, targets, first, max(days)):
            before[(r["monitoring_target_id"], r["observed_on"], r["hour"])] = Decimal(r["value"])
    around: dict[str, list[str]] = {}
    same_day: dict[tuple[str, dt.date, int | None], Decimal] = {}
    if t.neighbours is not None:
        around = await _neighbours_of(targets, t.neighbours.radius_km)
        others = sorted({n for ns in around.values() for n in ns})
        if others:
            for r in await _stored(data_set, variable, others, min(days), max(days)):
                same_day[(r["monitoring_target_id"], r["observed_on"], r["hour"])] = Decimal(r["value"])
        for r in rows:  # the batch's own rows will be the latest
            same_day[(r.monitoring_target_id, r.day, r.hour)] = r.value
    out: list[str | None] = []
    for r in rows:
        earlier = [
            before.get((r.monitoring_target_id, r.day - dt.timedelta(days=k), r.hour))
            for k in range((t.flat_days or 1) - 1, 0, -1)
        ]
        near = [same_day[(n, r.day, r.hour)] for n in around.get(r.monitoring_target_id, ()) if (n, r.day, r.hour) in same_day]
        context = Context(record=records.get(r.monitoring_target_id, ()), before=earlier, neighbours=near)
        out.append(failed_check(data_set, variable, r.value, context))
    return out


async def failed_checks(rows: Sequence[ObservationIn]) -> list[str | None]:
    """The first check each row fails (None: passes), in the rows' order."""
    verdicts: list[str | None] = [None] * len(rows)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((r.data_set, r.variable), []).append(i)
    for (data_set, variable), positions in sorted(groups.items()):
        t = THRESHOLDS.get((data_set, variable))
        if t is None:
            continue
        for i, verdict in zip(positions, await _judge_group(data_set, variable, t, [rows[i] for i in positions])):
            verdicts[i] = verdict
    return verdicts
