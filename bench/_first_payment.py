"""Days from a period's end to the first payment (issue 34), for bench/settlement.py.

A month (the next July: the monsoon month rainfall covers are bought for) of two books of
`policies` policies each (bench/_settlement_seed.py: an excess and a deficit rainfall cover
per policy, the catalogue coverages at `targets` targets per book, half of them wet): one
sold on the **source ladder** (`coverage.settlement_basis`), the other **final-only** (the
baseline: covers sold before the ladder). The real settlement workflows and activities run
in this process on Temporal's **time-skipping** test server against the bench's database,
and the data comes in as the providers publish it, day by day of workflow time:

- IMD's real-time 0.25° product: each day's (provisional) value the next day, but at
  `missing` targets of each book two days (the 10th and the 11th) never come on it;
- the reanalysis (ERA5 through Open-Meteo, the fallback rung): each day's value 5 days later,
  with 62 days of history before the period (final IMD values beside it: the overlap its
  calibration is fitted on);
- IMD's yearly archive (final values) on `archive_on` (default 31 January of the next year:
  "early the next year", docs/observations.md).

Each store is followed by the data-changed signal of the target's settlement, as the
store's settlement notice does. A cover's day of first payment is the `validated_day` of
its first event (the workflow's day); "paying" counts only covers whose first event pays.

Values: one regional daily pattern (55 % wet days, gamma amounts) times a per-target factor
(half the targets wet: their excess covers pay), to 0.1 mm, never the same value days
running (the quality checks would hold a flat line SUSPECT); provisional = final ×
e^N(0, 0.1); the reanalysis = a quarter of the day's rain on the next day × e^N(0, 0.3) plus
a drizzle. Fixed seed: every run feeds the same values.
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

import numpy as np

REAL_TIME_LATENCY = 1  # days: IMD's real-time grid, the next day (settlement_basis.LADDERS)
FALLBACK_LATENCY = 5  # days: ERA5T through Open-Meteo, "within about five days"
HISTORY_DAYS = 62  # the fallback's overlap with final IMD values before the period
GAP_DAYS = (10, 11)  # the days the real-time product misses at the `missing` targets


def _series(rng, days: int, factor: float) -> np.ndarray:
    wet = rng.random(days) < 0.55
    return np.round(np.where(wet, rng.gamma(0.8, 14.0, days), 0.0) * factor, 1)


def feed(targets: list[str], start: dt.date, end: dt.date, missing: set[str], seed: int = 34) -> dict:
    """Every value of the bench's month and its history, and the day each is published:
    {publish day: [ObservationIn]} (the archive's day is the caller's)."""
    from models.domain.observations import REANALYSIS, ObservationIn

    rng = np.random.default_rng(seed)
    first = start - dt.timedelta(days=HISTORY_DAYS)
    days = [first + dt.timedelta(days=i) for i in range((end - first).days + 1)]
    regional = _series(rng, len(days), 1.0)
    out: dict[dt.date, list] = {first: []}
    finals: dict[str, list[tuple[dt.date, Decimal]]] = {}
    for k, t in enumerate(targets):
        factor = 2.2 if k % 2 == 0 else 0.3  # wet: the excess cover pays; within 10x (the neighbour check)
        final = np.round(regional * factor * np.exp(rng.normal(0, 0.1, len(days))), 1)
        provisional = np.round(final * np.exp(rng.normal(0, 0.1, len(days))), 1)
        previous = np.concatenate(([0.0], final[:-1]))
        drizzle = np.where(rng.random(len(days)) < 0.3, rng.gamma(0.5, 0.6, len(days)), 0.0)
        fallback = np.round((0.75 * final + 0.25 * previous) * np.exp(rng.normal(0, 0.3, len(days))) + drizzle, 1)
        finals[t] = []
        for i, day in enumerate(days):
            rain = ObservationIn(t, REANALYSIS, "rainfall_mm", day, None, Decimal(f"{fallback[i]:.1f}"), "bench: reanalysis")
            if day < start:  # the history: archived IMD beside the reanalysis, both there before the month
                out[first] += [ObservationIn(t, "IMD-RF-DAILY", "rainfall_mm", day, None, Decimal(f"{final[i]:.1f}"),
                                             "bench: IMD archive"), rain]
                continue
            out.setdefault(day + dt.timedelta(days=FALLBACK_LATENCY), []).append(rain)
            finals[t].append((day, Decimal(f"{final[i]:.1f}")))
            if t in missing and day.day in GAP_DAYS:
                continue
            out.setdefault(day + dt.timedelta(days=REAL_TIME_LATENCY), []).append(ObservationIn(
                t, "IMD-RF-DAILY", "rainfall_mm", day, None, Decimal(f"{provisional[i]:.1f}"), "bench: IMD real-time",
                provisional=True))
    archive = [ObservationIn(t, "IMD-RF-DAILY", "rainfall_mm", d, None, v, "bench: IMD archive")
               for t, values in finals.items() for d, v in values]
    return {"published": out, "archive": archive}


def next_july(today: dt.date) -> tuple[dt.date, dt.date]:
    year = today.year + (today >= dt.date(today.year, 7, 1))
    return dt.date(year, 7, 1), dt.date(year, 7, 31)


async def measure(policies: int = 1000, targets: int = 20, missing: int = 2, archive_on: dt.date | None = None,
                  verbose: bool = False) -> dict:
    """Run both books through their month and its data; returns {month, archiveOn,
    ladder: {covers, paying, median, max, medianPaying, maxPaying}, baseline: {...}, ok, seconds}."""
    from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
    from temporalio.testing import WorkflowEnvironment
    from temporalio.worker import Worker

    from bench._settlement_seed import free_targets, seed
    from models.db import settlement as settlement_db
    from models.db.observations import store_batch
    from models.db.tables import ParametricEvent, Settlement
    from models.domain.lifecycle import day_start
    from models.domain.settlement_basis import CALCULATION_DEADLINE_DAYS
    from models.temporal.converter import data_converter
    from models.temporal.ids import settlement_workflow_id
    from models.temporal.queues import task_queue
    from models.temporal.search_attributes import SEARCH_ATTRIBUTES
    from models.temporal.settlement import (
        DATA_CHANGED_SIGNAL,
        SETTLEMENT_WORKFLOW,
        SettlementInput,
    )
    from tests.test_lifecycles_time_skipping import INDEXED, ClockWorkflow, advance
    from workflows.worker import Workers

    t_start = time.perf_counter()
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(Path(sys.executable).parent / "temporal-test-server"), data_converter=data_converter
    )
    try:
        await env.client.operator_service.add_search_attributes(AddSearchAttributesRequest(
            namespace=env.client.namespace,
            search_attributes={name: INDEXED[kind] for name, kind in SEARCH_ATTRIBUTES.items()},
        ))
        queue = f"bench-first-payment-{uuid.uuid4().hex[:8]}"
        lifecycle = task_queue(queue, "lifecycle")
        now = await env.get_current_time()
        start, end = next_july(now.date())
        archive_on = archive_on or dt.date(end.year + 1, 1, 31)
        chosen = await free_targets(2 * targets)
        books = {"ladder": chosen[:targets], "baseline": chosen[targets:]}
        tenants = {}
        for name, book in books.items():
            tenants[name] = (await seed(policies, book, [(start, end)], None, ladder=name == "ladder"))["tenant"]
        gaps = set(books["ladder"][:missing]) | set(books["baseline"][:missing])
        data = feed(chosen, start, end, gaps)
        async with Workers(env.client, queue, queues=("lifecycle", "settlement", "webhooks"), pricing_processes=0), Worker(
            env.client, task_queue=f"{queue}-clock", workflows=[ClockWorkflow]
        ):
            # months of nothing but the clock to the month's start; the settlements begin there
            await advance(env, queue, day_start(start) + dt.timedelta(hours=1) - await env.get_current_time())
            for target in chosen:
                await env.client.start_workflow(
                    SETTLEMENT_WORKFLOW,
                    SettlementInput(target_id=target, start=start, end=end,
                                    first_due=(await settlement_db.first_dues(target, [(start, end)])).get((start, end))),
                    id=settlement_workflow_id(target, start, end), task_queue=lifecycle,
                )

            async def publish(rows: list, tell: bool) -> None:  # stored, then (tell) the settlements told
                if not rows:
                    return
                await store_batch(rows)
                if not tell:
                    return
                with env.auto_time_skipping_disabled():  # as tests/test_settlement_ladder_time_skipping.py signals
                    for target in sorted({r.monitoring_target_id for r in rows}):
                        await env.client.get_workflow_handle(settlement_workflow_id(target, start, end)).signal(
                            DATA_CHANGED_SIGNAL)

            # the history (the fallback's overlap with IMD's archive) is there before the month:
            # nothing to tell (the test server also fails a workflow's first task signalled during it)
            await store_batch(data["published"].pop(start - dt.timedelta(days=HISTORY_DAYS)))
            day = start
            while day <= end + dt.timedelta(days=CALCULATION_DEADLINE_DAYS + 2):
                print(f"  {day}: publishing", flush=True) if verbose else None
                # Not told: the ladder's settlements check daily until their calculation deadline, and
                # the test server fails workflow tasks signalled while it skips time (a race of a
                # timer firing and its cancellation); the final-only ones wait for the archive anyway.
                await publish(data["published"].get(day, []), tell=False)
                await advance(env, queue, dt.timedelta(days=1))
                day += dt.timedelta(days=1)
            await advance(env, queue, day_start(archive_on) + dt.timedelta(hours=1) - await env.get_current_time())
            await publish(data["archive"], tell=True)
            await advance(env, queue, dt.timedelta(days=3))
        result = {"month": start.strftime("%B %Y"), "archiveOn": archive_on.isoformat(), "policies": policies,
                  "targets": targets, "missingTargets": missing}
        for name, tenant in tenants.items():
            events = await ParametricEvent.select(
                ParametricEvent.policy_id, ParametricEvent.coverage_id, ParametricEvent.validated_day,
                ParametricEvent.payout_minor,
            ).where(ParametricEvent.tenant_id == tenant).order_by(ParametricEvent.validated_day)
            first: dict[tuple, dict] = {}
            for e in events:
                first.setdefault((e["policy_id"], e["coverage_id"]), e)
            days = [(e["validated_day"] - end).days for e in first.values()]
            paying = [(e["validated_day"] - end).days for e in first.values() if e["payout_minor"] > 0]
            states = await Settlement.select(Settlement.state).where(Settlement.monitoring_target_id.is_in(books[name]))
            result[name] = {
                "covers": len(days), "expected": 2 * policies, "paying": len(paying),
                "median": statistics.median(days) if days else None, "max": max(days, default=None),
                "medianPaying": statistics.median(paying) if paying else None, "maxPaying": max(paying, default=None),
                "finalStates": sorted({r["state"] for r in states}),
            }
        ladder = result["ladder"]
        result["ok"] = (ladder["covers"] == ladder["expected"] and ladder["median"] is not None
                        and ladder["median"] <= 3 and ladder["max"] <= 15)
        result["seconds"] = round(time.perf_counter() - t_start, 1)
        return result
    finally:
        await env.shutdown()


def report(result: dict) -> None:
    """Print `measure`'s result as bench/settlement.py shows it."""
    print(f"\nfirst payment after the period's end: {result['month']}, two books of {result['policies']:,} policies "
          f"(2 covers each) at {result['targets']} targets each, fed as the providers publish (IMD real-time the next "
          f"day, {result['missingTargets']} targets per book missing two days; ERA5 after 5 days; IMD's archive on "
          f"{result['archiveOn']}), time-skipping server, {result['seconds']} s")
    print(f"{'book':<22} {'covers':>7} {'median':>7} {'max':>5}   {'paying':>6} {'median':>7} {'max':>5}   states at the end")
    for name, label in (("ladder", "source ladder"), ("baseline", "final-only (baseline)")):
        r = result[name]
        print(f"{label:<22} {r['covers']:>7,} {r['median']!s:>7} {r['max']!s:>5}   {r['paying']:>6,} "
              f"{r['medianPaying']!s:>7} {r['maxPaying']!s:>5}   {', '.join(r['finalStates'])}")
    ladder = result["ladder"]
    print(f"goals (days to first payment, source ladder): median <= 3 {'met' if ladder['median'] is not None and ladder['median'] <= 3 else 'NOT met'} "
          f"({ladder['median']}), every cover <= 15 {'met' if ladder['max'] is not None and ladder['max'] <= 15 else 'NOT met'} "
          f"({ladder['max']}); every cover settled: {'yes' if ladder['covers'] == ladder['expected'] else 'NO'}")
