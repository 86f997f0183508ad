"""Benchmark: days from a period's end to the first payment (issue 34), the quality checks'
cost, and a month end's settlement of --policies active policies (issue 13).

First payment (bench/_first_payment.py): a month of two 1,000-policy books (--first-policies),
one on the source ladder, one final-only (the baseline, measured in the same run), settled
by the real workflows and activities on Temporal's time-skipping server against this
bench's database, fed day by day as the providers publish (IMD real-time the next day, a
few targets missing two days that the calibrated fallback fills at the calculation
deadline; IMD's archive early the next year): the days from the period's end to each
cover's first payment, median and max. Goals: median <= 3 days, every cover <= 15.
Then the cost of the quality checks per 10,000 values (bench/_quality_cost.py, when present).

Its own stack, as bench/api.py starts it (file-backed Temporal dev server with `make dev`'s
settings, migrations, a lifecycle + webhooks worker process and a settlement worker process
as `make dev` runs them; temp dir, free loopback ports, SQLite). Then:

  seed      --policies policies in force (6 monthly line items of 2 covers each: excess
            rainfall and deficit, 250,000 INR; 12 covers per policy) spread over --targets
            monitoring targets, straight into the database (bench/_settlement_seed.py: the
            rows conversion and activation write; no policy workflows), and the final daily
            rainfall of the first month (a wet month at half the targets: their excess
            covers pay).
  settle    the first month's settlement workflow of every target, started ahead with a
            start delay that ends at one moment, the month end (the workflows exist
            before it: each policy's activation starts them, months earlier); timed from
            that moment until every coverage is SETTLED (--include-starts: from the start
            calls). Workflow tasks: the settlement workflows' WorkflowTaskCompleted events
            up to then. Repeated with --small policies on other targets: the month end's
            task count must not grow with the number of policies.
  baseline  in the same run, the bare database work: the same index computation (one
            aggregate query over the observations) and the same event and payout rows
            written by one set-based INSERT ... SELECT each into copies of the tables
            (same columns, keys and indexes, so the same index upkeep),
            with the payout rule in SQL (no line-item cap: simpler than what settlement
            does, so the baseline is if anything flattered).

Goal: settlement <= 3 x the baseline's time; month-end workflow tasks independent of the
number of policies.

Run:  .venv/bin/python bench/settlement.py [--only first-payment|throughput] [--first-policies 1000]
      [--policies 10000] [--small 1000] [--targets 20] [--spans] [--include-starts]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
import time
from decimal import Decimal
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._stack import run_stack_bench, start_temporal_and_migrate  # noqa: E402
from bench.api import Ports, Processes  # noqa: E402


async def settle_month(
    temporal, queue: str, targets: list[str], month, timeout: float = 3600, show_spans: bool = False,
    include_starts: bool = False,
) -> tuple[float, int]:
    """The month end of every target's settlement: (seconds from the month end until all
    SETTLED, workflow tasks)."""
    from temporalio.common import WorkflowIDConflictPolicy

    from models.db.tables import Settlement
    from models.temporal.ids import settlement_workflow_id
    from models.temporal.settlement import SETTLEMENT_WORKFLOW, SettlementInput

    # The workflows exist before the month ends: each policy's activation starts them, months
    # earlier, and they sleep until the period is due. Here the month is over already, so they
    # are started with a start delay ending at one moment, `month_end`: the timed window opens
    # when their first workflow tasks become due, as when their timers fire at a month end.
    # The start calls themselves are timed apart and printed (--include-starts times them too).
    lead = 0.0 if include_starts else 2.0 + 0.02 * len(targets)
    t_call = time.perf_counter()
    month_end = t_call + lead
    await asyncio.gather(*(
        temporal.start_workflow(
            SETTLEMENT_WORKFLOW, SettlementInput(target_id=target, start=month[0], end=month[1]),
            id=settlement_workflow_id(target, *month), task_queue=queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            start_delay=dt.timedelta(seconds=max(0.0, month_end - time.perf_counter())) if lead else None,
        )
        for target in targets
    ))
    started = time.perf_counter() - t_call
    if lead and time.perf_counter() > month_end:
        raise RuntimeError(f"starting the workflows took {started:.2f} s, past the month end {lead:.2f} s ahead")
    t0 = month_end
    while True:
        rows = await Settlement.select(Settlement.state).where(Settlement.monitoring_target_id.is_in(targets))
        if len(rows) == 2 * len(targets) and all(r["state"] == "SETTLED" for r in rows):
            break
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"not settled after {timeout} s")
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - t0
    print(f"  ({len(targets)} settlement workflows started in {started:.2f} s, "
          f"{'inside the timed window' if include_starts else 'before the month end: not timed'})", flush=True)
    tasks = 0
    first_start = last_end = None
    busy = 0.0
    spans = []
    for target in targets:
        handle = temporal.get_workflow_handle(settlement_workflow_id(target, *month))
        while True:  # the states are committed just before the activity reports its completion
            history = await handle.fetch_history()
            if any(e.HasField("activity_task_completed_event_attributes") for e in history.events):
                break
            await asyncio.sleep(0.05)
        tasks += sum(1 for e in history.events if e.HasField("workflow_task_completed_event_attributes"))
        # The settle activity: from its start to its completion, as the server recorded them.
        started = next(e.event_time.ToDatetime() for e in history.events if e.HasField("activity_task_started_event_attributes"))
        done = next(e.event_time.ToDatetime() for e in history.events if e.HasField("activity_task_completed_event_attributes"))
        busy += (done - started).total_seconds()
        spans.append((started, done))
        first_start = started if first_start is None else min(first_start, started)
        last_end = done if last_end is None else max(last_end, done)
    if show_spans:  # each settle activity's (start, end), seconds after the first start
        print("  spans:", [(round((a - first_start).total_seconds(), 3), round((b - first_start).total_seconds(), 3))
                           for a, b in sorted(spans)])
    print(f"  (settle activities: first start to last completion {(last_end - first_start).total_seconds():.2f} s, "
          f"{busy:.2f} s summed over {len(targets)} running concurrently)", flush=True)
    return elapsed, tasks


BASELINE_INDEX = """
SELECT monitoring_target_id, SUM(value) AS total FROM observation
WHERE data_set = 'IMD-RF-DAILY' AND variable = 'rainfall_mm' AND observed_on >= {} AND observed_on <= {}
  AND monitoring_target_id IN ({targets})
GROUP BY monitoring_target_id
"""

# One statement: every (policy, cover) of the month's coverages at the targets, paid by the
# linear rule in SQL from the coverage's terms and the month's index.
BASELINE_EVENTS = """
INSERT INTO bench_event (id, tenant_id, policy_id, coverage_id, settlement_key, event_type, validated_day,
                         index_value, currency, payout_minor, created_at, kind, line_item_id, data_set,
                         revision, simulated, explanation)
SELECT lower(hex(randomblob(16))), pi.tenant_id, pi.policy_id, pi.coverage_id,
       pi.policy_id || ':' || pi.coverage_id || ':r1', c.direction, {}, idx.total, pi.currency,
       CAST(ROUND(pi.quantity * CASE
         WHEN c.direction = 'ABOVE' AND idx.total >= c."trigger"
           THEN MIN(c.limit_minor, c.min_payout_minor + c.payout_per_unit_minor * (idx.total - c."trigger"))
         WHEN c.direction = 'BELOW' AND idx.total <= c."trigger"
           THEN MIN(c.limit_minor, c.min_payout_minor + c.payout_per_unit_minor * (c."trigger" - idx.total))
         ELSE 0 END) AS INTEGER),
       {}, 'SETTLEMENT', NULL, 'IMD-RF-DAILY', 1, 0, {}
FROM policy_item pi
JOIN coverage c ON c.id = pi.coverage_id
JOIN policy p ON p.id = pi.policy_id AND p.status IN ('ACCEPTED', 'ACTIVE')
JOIN bench_index idx ON idx.monitoring_target_id = c.monitoring_target_id
WHERE c.risk_period_start = {} AND c.risk_period_end = {} AND c.monitoring_target_id IN ({targets})
"""

BASELINE_PAYOUTS = """
INSERT INTO bench_payout (id, tenant_id, policy_id, coverage_id, event_id, settlement_key, currency, amount_minor, created_at)
SELECT lower(hex(randomblob(16))), tenant_id, policy_id, coverage_id, id, settlement_key, currency, payout_minor, created_at
FROM bench_event WHERE payout_minor <> 0
"""


async def _copy_table(table: str, copy: str) -> None:
    """An empty copy of `table` with its keys and indexes (the unique settlement key
    included): the baseline writes the same rows into the same structure, so it pays for the
    same index upkeep settlement does."""
    from models.db.tables import ParametricEvent

    rows = await ParametricEvent.raw(
        "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = {} AND sql IS NOT NULL ORDER BY type DESC", table
    )
    for row in rows:  # the table first ('table' sorts after 'index' descending), then its indexes
        sql = row["sql"].replace(f'"{table}"', f'"{copy}"').replace(f" {table} ", f" {copy} ")
        if row["type"] == "index":
            sql = sql.replace(f"INDEX {row['name']}", f"INDEX {copy}_{row['name']}", 1).replace(
                f'INDEX "{row["name"]}"', f'INDEX "{copy}_{row["name"]}"', 1)
        await ParametricEvent.raw(sql)


async def baseline(targets: list[str], month) -> tuple[float, int]:
    """The bare database work: (seconds, event rows)."""
    from models.db.core import write_transaction
    from models.db.tables import ParametricEvent

    marks = ", ".join("{}" for _ in targets)
    await ParametricEvent.raw("DROP TABLE IF EXISTS bench_event")
    await ParametricEvent.raw("DROP TABLE IF EXISTS bench_payout")
    await ParametricEvent.raw("DROP TABLE IF EXISTS bench_index")
    await _copy_table("parametric_event", "bench_event")
    await _copy_table("payout", "bench_payout")
    await ParametricEvent.raw("CREATE TABLE bench_index (monitoring_target_id TEXT PRIMARY KEY, total NUMERIC)")
    now = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    async with write_transaction():
        totals = await ParametricEvent.raw(BASELINE_INDEX.replace("{targets}", marks), month[0], month[1], *targets)
        for row in totals:
            await ParametricEvent.raw("INSERT INTO bench_index VALUES ({}, {})", row["monitoring_target_id"], row["total"])
        await ParametricEvent.raw(BASELINE_EVENTS.replace("{targets}", marks), now.date(), now, "{}", month[0], month[1], *targets)
        await ParametricEvent.raw(BASELINE_PAYOUTS)
    elapsed = time.perf_counter() - t0
    rows = (await ParametricEvent.raw("SELECT COUNT(*) AS n FROM bench_event"))[0]["n"]
    return elapsed, rows


async def run(args, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> bool:
    from temporalio.client import Client

    from bench._settlement_seed import free_targets, months_back, seed
    from models.db.core import close_pool, open_pool
    from models.db.tables import ParametricEvent, Payout
    from models.temporal.converter import data_converter
    from models.temporal.queues import task_queue

    await start_temporal_and_migrate(procs, tmp, ports, env)
    ok = True
    if args.only in (None, "first-payment"):
        ok = await first_payment_and_quality(args) and ok
        if args.only == "first-payment":
            return ok
    cli = [sys.executable, "-m", "api.cli"]
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle", "--queue", "webhooks"], env)
    procs.start("settlement", [*cli, "worker", "--queue", "settlement"], env)
    await asyncio.sleep(3)
    await open_pool()
    try:
        temporal = await Client.connect(env["TEMPORAL_ADDRESS"], data_converter=data_converter)
        queue = task_queue(env.get("TEMPORAL_TASK_QUEUE", "parametric"), "lifecycle")
        months = months_back(dt.date.today(), 6)
        first = months[0]
        runs = []
        for label, n in (("small", args.small), ("large", args.policies)):
            targets = await free_targets(args.targets)
            rain = {t: [Decimal(400) if i % 2 == 0 else Decimal(90)] * 6 for i, t in enumerate(targets)}
            t0 = time.perf_counter()
            seeded = await seed(n, targets, months, rain)
            print(f"seed ({label}): {n:,} policies x 6 months x 2 covers = {n * 12:,} covers at {len(targets)} targets "
                  f"in {time.perf_counter() - t0:.1f} s (straight into the database, no policy workflows)", flush=True)
            elapsed, tasks = await settle_month(temporal, queue, targets, first, show_spans=args.spans,
                                                include_starts=args.include_starts)
            events = await ParametricEvent.count().where(ParametricEvent.tenant_id == seeded["tenant"])
            payouts = await Payout.count().where(Payout.tenant_id == seeded["tenant"])
            base, base_rows = await baseline(targets, first)
            runs.append((label, n, targets, elapsed, tasks, events, payouts, base, base_rows))
            print(f"settle ({label}): {events:,} events, {payouts:,} payouts in {elapsed:.2f} s; "
                  f"{tasks} workflow tasks for {len(targets)} settlement workflows", flush=True)
            print(f"baseline ({label}): {base_rows:,} event rows (+ payouts) by set-based SQL in {base:.2f} s", flush=True)
        print()
        print(f"{'run':<6} {'policies':>9} {'covers settled':>15} {'settlement':>11} {'baseline':>9} {'ratio':>6} {'wf tasks':>9}")
        for label, n, targets, elapsed, tasks, events, payouts, base, base_rows in runs:
            print(f"{label:<6} {n:>9,} {events:>15,} {elapsed:>10.2f}s {base:>8.2f}s {elapsed / base:>5.1f}x {tasks:>9}")
        large = runs[-1]
        small = runs[0]
        # A policy-year: 12 month ends; each month end's tasks are shared by every policy.
        per_policy_year = 12 * large[4] / large[1]
        # Tasks per workflow can differ by one between runs of any size: whether an activity's
        # completion and the next timer land in one workflow task is a matter of timing.
        flat = large[4] <= small[4] + len(large[2])
        print(f"\nmonth-end workflow tasks: {small[4]} at {small[1]:,} policies, {large[4]} at {large[1]:,} "
              f"({'no growth' if flat else 'GROWS'}: {small[4] / len(small[2]):.1f} and {large[4] / len(large[2]):.1f} "
              f"per settlement workflow); settlement's share per policy-year: "
              f"{per_policy_year:.4f} tasks (12 month ends / {large[1]:,} policies), plus the policy workflow's own "
              f"handful (activation, one timer per period start, expiry)")
        ratio = large[3] / large[7]
        ok = ratio <= 3 and flat
        print(f"goal settlement <= 3 x baseline: {'met' if ratio <= 3 else 'NOT met'} ({ratio:.1f}x); "
              f"tasks independent of the number of policies: {'met' if flat else 'NOT met'}")
        return ok
    finally:
        await close_pool()


async def first_payment_and_quality(args) -> bool:
    """Issue 34's figures: days to first payment (ladder against final-only) and the quality
    checks' cost per 10,000 values (package 2's bench/_quality_cost.py, when present)."""
    import importlib.util
    import inspect

    from bench._first_payment import measure, report
    from models.db.core import close_pool, open_pool

    await open_pool()
    try:
        result = await measure(policies=args.first_policies, targets=args.first_targets, verbose=args.spans)
        report(result)
        if importlib.util.find_spec("bench._quality_cost") is None:
            print("\nquality checks' cost: bench/_quality_cost.py is not present (package 2)")
        else:
            from bench import _quality_cost

            cost = _quality_cost.measure(n=10_000)
            cost = await cost if inspect.isawaitable(cost) else cost
            print("\n" + _quality_cost.line(cost) + " (bench/_quality_cost.py, same run)")
        return result["ok"]
    finally:
        await close_pool()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", type=int, default=10_000, help="policies of the large run")
    ap.add_argument("--small", type=int, default=1_000, help="policies of the small run (task count comparison)")
    ap.add_argument("--targets", type=int, default=20, help="monitoring targets the policies are spread over")
    ap.add_argument("--spans", action="store_true", help="print each settle activity's start and end")
    ap.add_argument("--include-starts", action="store_true",
                    help="start the settlement workflows inside the timed window (as the earlier runs did)")
    ap.add_argument("--only", choices=("first-payment", "throughput"), help="run one part (default: both)")
    ap.add_argument("--first-policies", type=int, default=1_000, help="policies of each first-payment book")
    ap.add_argument("--first-targets", type=int, default=20, help="targets of each first-payment book")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir afterwards")
    args = ap.parse_args()
    return run_stack_bench("settlement", run, args, {}, ("worker", "settlement"), args.keep)


if __name__ == "__main__":
    sys.exit(main())
