"""What the quality checks of received values see, read from the store (issue 34;
docs/observations.md, "Quality checks"; the checks are models/domain/quality_checks.py).

Per (data set, variable) of a batch, three reads in chunks: the targets' 1-in-1000 days
(the spike check's, computed in SQL over their final values: latest revisions neither
provisional nor SUSPECT), the
days just before each value (the flat line: stored values only, so a stuck feed is caught
on its n-th day, while a batch carrying many days at once is checked against what was
stored before it), and the surrounding targets' values the same day (stored, overlaid by
the batch's own rows, which will be the latest; the targets' positions are reference
data, indexed in the process by 1° cell).
"""

from __future__ import annotations

import datetime as dt
import math
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
    needs_context,
)

CHUNK = 500
KM_PER_DEGREE = 111.0  # of latitude; a degree of longitude is shorter (91 km at 35° N): one more cell is searched


def _latest(rows: list[dict]) -> dict[str, dict]:
    best: dict[str, dict] = {}
    for r in rows:
        have = best.get(r["obs_key"])
        if have is None or r["revision"] > have["revision"]:
            best[r["obs_key"]] = r
    return best


async def _stored(data_set: str, variable: str, targets: Sequence[str], first: dt.date, last: dt.date) -> list[dict]:
    """The latest revision of each stored key of the targets over [first, last]."""
    out: list[dict] = []
    wanted = sorted(set(targets))
    for i in range(0, len(wanted), CHUNK):
        query = Observation.select(
            Observation.obs_key, Observation.monitoring_target_id, Observation.observed_on, Observation.hour,
            Observation.value, Observation.revision, Observation.provisional, Observation.quality,
        ).where(
            Observation.monitoring_target_id.is_in(wanted[i : i + CHUNK])
            & (Observation.data_set == data_set) & (Observation.variable == variable)
            & (Observation.observed_on >= first) & (Observation.observed_on <= last)
        )
        out.extend(await query)
    return list(_latest(out).values())


async def _one_in_1000(data_set: str, variable: str, targets: Sequence[str]) -> dict[str, Decimal]:
    """Each target's 1-in-1000 day of the variable, computed in the database: the nearest-rank
    99.9th percentile of its final values (latest revisions neither provisional nor
    SUSPECT), rank ceil(0.999 n) = n - floor(n / 1000), the same as
    `models.domain.quality_checks.one_in_1000`; only targets with SPIKE_MIN_RECORD or more."""
    out: dict[str, Decimal] = {}
    wanted = sorted(set(targets))
    for i in range(0, len(wanted), CHUNK):
        chunk = wanted[i : i + CHUNK]
        rows = await Observation.raw(
            "SELECT t, v FROM (SELECT o.monitoring_target_id AS t, o.value AS v, "
            "ROW_NUMBER() OVER (PARTITION BY o.monitoring_target_id ORDER BY o.value) AS rn, "
            "COUNT(*) OVER (PARTITION BY o.monitoring_target_id) AS n FROM observation o "
            f"WHERE o.monitoring_target_id IN ({', '.join('{}' for _ in chunk)}) "
            "AND o.data_set = {} AND o.variable = {} AND o.provisional = {} AND o.quality <> 'SUSPECT' "
            "AND NOT EXISTS (SELECT 1 FROM observation l WHERE l.obs_key = o.obs_key AND l.revision > o.revision)"
            ") ranked WHERE n >= {} AND rn = n - n / 1000",
            *chunk, data_set, variable, False, SPIKE_MIN_RECORD,
        )
        out.update({r["t"]: Decimal(str(r["v"])) for r in rows})
    return out


_places: dict[str, tuple[float, float]] = {}  # target → (latitude, longitude): reference data, read once
_cells: dict[tuple[int, int], list[str]] = {}  # 1° cell → its targets


async def _positions(targets: Sequence[str]) -> None:
    """The targets' positions in the in-process index (read again when one is not in it)."""
    if all(t in _places for t in targets):
        return
    rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude)
    _places.clear()
    _cells.clear()
    for r in rows:
        _places[r["id"]] = (r["latitude"], r["longitude"])
        _cells.setdefault((math.floor(r["latitude"]), math.floor(r["longitude"])), []).append(r["id"])


async def _neighbours_of(targets: Sequence[str], radius_km: float) -> dict[str, list[str]]:
    """Each target's surrounding targets within `radius_km` (itself excluded)."""
    await _positions(targets)
    reach = math.ceil(radius_km / KM_PER_DEGREE) + 1  # cells either side (longitude degrees are shorter)
    out: dict[str, list[str]] = {}
    for t in set(targets):
        if t not in _places:
            continue
        lat, lon = _places[t]
        cell = (math.floor(lat), math.floor(lon))
        out[t] = [
            n for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)
            for n in _cells.get((cell[0] + dy, cell[1] + dx), ())
            if n != t and distance_km(lat, lon, *_places[n]) <= radius_km
        ]
    return out


async def _judge_group(data_set: str, variable: str, t: Thresholds, rows: list[ObservationIn]) -> list[str | None]:
    needs = [needs_context(r.value, t) for r in rows]  # only what a value could fail is read
    spiky, flat, near_rows = ([r for r, n in zip(rows, needs) if n[k]] for k in range(3))
    records = await _one_in_1000(data_set, variable, [r.monitoring_target_id for r in spiky]) if spiky else {}
    before: dict[tuple[str, dt.date, int | None], Decimal] = {}
    if flat:
        first = min(r.day for r in flat) - dt.timedelta(days=(t.flat_days or 1) - 1)
        for r in await _stored(data_set, variable, [r.monitoring_target_id for r in flat], first, max(r.day for r in flat)):
            before[(r["monitoring_target_id"], r["observed_on"], r["hour"])] = Decimal(r["value"])
    around: dict[str, list[str]] = {}
    same_day: dict[tuple[str, dt.date, int | None], Decimal] = {}
    if near_rows and t.neighbours is not None:
        days = [r.day for r in near_rows]
        around = await _neighbours_of([r.monitoring_target_id for r in near_rows], t.neighbours.radius_km)
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
        context = Context(day_1_in_1000=records.get(r.monitoring_target_id), before=earlier, neighbours=near)
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
