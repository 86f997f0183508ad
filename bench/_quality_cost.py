"""The cost of the quality checks on stored values (issue 34; docs/observations.md,
"Quality checks"): seconds per 10,000 values stored with the checks, beside a baseline
measured in the same run, the same store without them (the rows looked up and inserted with
their settlement notices, as before the checks).

The load is what the providers send: daily batches, one value per target per day, of IMD
daily rainfall at `targets` neighbouring monitoring targets, each with a stored record of
1,000 final days before (so the spike check reads a record, the flat line the days before,
and the neighbour check the surrounding targets). The checked and baseline runs store the
same values on different days (each on keys of its own), alternating batch by batch so
neither gets a warmer cache.

`measure(n)` runs on the database the caller has open (bench/settlement.py prints its
figure); run alone, it makes a temporary SQLite database:

    .venv/bin/python bench/_quality_cost.py [--values 10000] [--targets 100]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.db.core import insert_rows, write_transaction  # noqa: E402
from models.db.observations import DIRECT, Received, insert_received, latest_stored, store_batch  # noqa: E402
from models.db.tables import MonitoringTarget, Observation  # noqa: E402
from models.domain.observations import ObservationIn  # noqa: E402
from models.domain.quality_checks import SPIKE_MIN_RECORD  # noqa: E402

DATA_SET, VARIABLE = "IMD-RF-DAILY", "rainfall_mm"
FIRST = dt.date(1950, 1, 1)  # the record's first day: far from any other use of the database


async def _targets(n: int) -> list[str]:
    """`n` targets close together (sorted by position: neighbours of one another)."""
    rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude)
    rows.sort(key=lambda r: (round(r["latitude"]), r["longitude"], r["latitude"]))
    return [r["id"] for r in rows[:n]]


def _rain(rng: random.Random) -> Decimal:
    """A daily total: dry 60 % of days, else exponential, mean 12 mm (0.1 mm)."""
    return Decimal(0) if rng.random() < 0.6 else Decimal(str(round(rng.expovariate(1 / 12), 1)))


async def _seed_record(targets: list[str], rng: random.Random) -> None:
    """SPIKE_MIN_RECORD final days per target, written directly (no checks)."""
    rows = [
        Observation(monitoring_target_id=t, variable=VARIABLE, observed_on=FIRST + dt.timedelta(days=d), hour=None,
                    value=_rain(rng), source="bench", provisional=False, received_at=dt.datetime.now(dt.timezone.utc),
                    data_set=DATA_SET, quality="GOOD", quality_check="", revision=1,
                    obs_key=f"{t}|{DATA_SET}|{VARIABLE}|{(FIRST + dt.timedelta(days=d)).isoformat()}|",
                    simulated=False, submitted_by="bench", reason="", approved_by="")
        for t in targets for d in range(SPIKE_MIN_RECORD)
    ]
    async with write_transaction():
        for i in range(0, len(rows), 1000):
            await insert_rows(rows[i : i + 1000], without=("id",))


async def _unchecked(rows: list[ObservationIn]) -> None:
    """The store without the checks: as store_batch stored before them."""
    async with write_transaction():
        latest = await latest_stored(sorted({r.key for r in rows}))
        await insert_received([Received(r, latest.get(r.key)) for r in rows], DIRECT)


async def measure(n: int = 10_000, targets: int = 100, seed: int = 34) -> dict:
    """Store `n` values with the checks and `n` without, in daily batches of `targets`
    values; returns {"values", "targets", "checked_s", "baseline_s" (seconds per 10,000
    values), "ratio", "suspect" (values the checks flagged)}."""
    rng = random.Random(seed)
    ids = await _targets(targets)
    await _seed_record(ids, rng)
    days = max(1, n // len(ids))
    start = FIRST + dt.timedelta(days=SPIKE_MIN_RECORD)
    timings = {"checked": 0.0, "baseline": 0.0}
    for d in range(days):
        for kind, offset in (("checked", 0), ("baseline", days)):
            day = start + dt.timedelta(days=d + offset)
            batch = [ObservationIn(t, DATA_SET, VARIABLE, day, None, _rain(rng), "bench") for t in ids]
            began = time.perf_counter()
            if kind == "checked":
                await store_batch(batch)
            else:
                await _unchecked(batch)
            timings[kind] += time.perf_counter() - began
    stored = days * len(ids)
    suspect = await Observation.count().where(
        Observation.monitoring_target_id.is_in(ids) & (Observation.quality == "SUSPECT")
        & (Observation.observed_on >= start) & (Observation.observed_on < start + dt.timedelta(days=days))
    )
    per = 10_000 / stored
    checked, baseline = timings["checked"] * per, timings["baseline"] * per
    return {"values": stored, "targets": len(ids), "checked_s": round(checked, 3), "baseline_s": round(baseline, 3),
            "ratio": round(checked / baseline, 2) if baseline else None, "suspect": suspect}


def line(result: dict) -> str:
    """The figure as bench/settlement.py prints it."""
    return (f"quality checks: {result['checked_s']:.2f} s per 10,000 values stored with them, "
            f"{result['baseline_s']:.2f} s without (x{result['ratio']}); {result['values']} values at "
            f"{result['targets']} targets with a 1,000-day record, {result['suspect']} flagged")


async def _alone(values: int, targets: int) -> dict:
    from models.db.core import close_pool, migrate, open_pool
    from models.db.reference_data import load_reference_data

    await open_pool()
    try:
        await migrate()
        await load_reference_data()
        return await measure(values, targets)
    finally:
        await close_pool()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--values", type=int, default=10_000)
    parser.add_argument("--targets", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/quality.sqlite"
        print(line(asyncio.run(_alone(args.values, args.targets))))


if __name__ == "__main__":
    main()
