"""Benchmark: what each piece of a quote conversion costs on the Temporal dev server.

One idle workflow per update (like the quotes a conversion finds), updated by C concurrent
callers; each variant adds one piece of what QuoteWorkflow.convert does to a bare update:

  bare            the update returns at once (bench/api.py's baseline (e))
  +LA             a local activity (the database write) before answering
  +upsert         a search-attribute upsert (QuoteState) before answering
  +close          the update ends the workflow, cancelling its 30-day timer
  LA+upsert       the two pieces issue 5 requires of a conversion (write, QuoteState)
  LA+upsert+close all three: the conversion when it starts no other workflow
  +child async    and starts a child workflow, answering before the child runs
  +child await    and starts a child workflow, answering once it started

Then the conversion since issue 9, whose unavoidable part is an update-with-start that creates
the policy's workflow (the Temporal part of bench/api.py's fair baseline (f)); each variant
adds one piece (PolicyLike/QuoteLike in bench/_costs.py), against one idle quote workflow
per conversion:

  uws bare            update-with-start of a new workflow, the update returns at once
  +LA                 the update writes (a local activity) before answering
  +SAs                seven search attributes and a summary set at start
  +lapse timer        the draft then waits for activation with a deadline
  LA+SAs+timer        the three: the policy's workflow when nothing tells the quote
  +tell quote (wf)    ... and the policy's workflow signals the quote's, which upserts and closes
  +tell quote (client) ... and the caller signals the quote's workflow instead
  +tell quote (patch) ... the signal as PolicyWorkflow sends it since issue 29: behind a
                      patch (marker + TemporalChangeVersion upsert), from a task, not awaited

Then a quote's whole life (issue 29): the server's and worker's CPU per conversion over a
fixed window that holds the conversion AND the quote workflow's end, for the two ways the
quote learns of it: at its deadline (set to --life-deadline seconds instead of 30 days: the
timer fires, the expiry write finds the conversion, upsert, close; before issue 29) or told
by the policy's workflow at once (signal, upsert, close; its timer cancelled). Same window
length for both, so the idle server's CPU weighs the same.

Prints req/s, p50/p95 and the CPU per update of the Temporal server, the worker and this
driver, each against the bare update (first table) or the bare update-with-start (second) of
the same run. The server is started the way
`make dev` starts it (temporal-dev.yml's x-temporal-dev settings), on free ports.

Run:  .venv/bin/python bench/temporal_costs.py [--updates 300] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
import tempfile
import uuid
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._costs import CostWorkflow, PolicyLike, PolicyVariant, QuoteLike, Variant  # noqa: E402
from bench.api import (  # noqa: E402
    Ports,
    Processes,
    drive,
    free_port,
    machine,
    port_open,
    quiesce,
    temporal_command,
    wait_for,
)

VARIANTS = {
    "bare": Variant(),
    "+LA": Variant(local_activity=True),
    "+upsert": Variant(upsert=True),
    "+close": Variant(close=True),
    "LA+upsert": Variant(local_activity=True, upsert=True),
    "LA+upsert+close": Variant(local_activity=True, upsert=True, close=True),
    "+child async": Variant(local_activity=True, upsert=True, close=True, child="async"),
    "+child await": Variant(local_activity=True, upsert=True, close=True, child="await"),
}
QUEUE = "bench-costs"
POLICY_VARIANTS = {
    "uws bare": (PolicyVariant(), False),
    "+LA": (PolicyVariant(local_activity=True), False),
    "+SAs": (PolicyVariant(), True),
    "+lapse timer": (PolicyVariant(lapse_timer=True), False),
    "LA+SAs+timer": (PolicyVariant(local_activity=True, lapse_timer=True), True),
    "+tell quote (wf)": (PolicyVariant(local_activity=True, lapse_timer=True, tell_quote="workflow"), True),
    "+tell quote (client)": (PolicyVariant(local_activity=True, lapse_timer=True, tell_quote="client"), True),
    "+tell quote (patch)": (PolicyVariant(local_activity=True, lapse_timer=True, tell_quote="workflow", patched=True), True),
}
LIFE_VARIANTS = {
    "quote learns at its deadline": PolicyVariant(local_activity=True, lapse_timer=True),
    "policy tells (patch, task)": PolicyVariant(local_activity=True, lapse_timer=True, tell_quote="workflow", patched=True),
    "API tells (issue 29)": PolicyVariant(local_activity=True, lapse_timer=True, tell_quote="client"),
}


async def run(args: argparse.Namespace, procs: Processes, tmp: Path) -> None:
    from temporalio.client import Client

    ports = Ports(*(free_port() for _ in range(5)))
    binary = str(Path(sys.executable).parent / "temporal")
    procs.start("temporal", temporal_command(binary, tmp / "temporal.db", ports) + args.server_arg, {})
    await wait_for(lambda: port_open(ports.temporal), 60, "Temporal dev server", procs)
    address = f"127.0.0.1:{ports.temporal}"
    procs.start("worker", [sys.executable, "-m", "bench._costs", address, QUEUE], {"PYTHONPATH": str(REPO)})
    client = await Client.connect(address)
    pids = {"temporal": procs.pid("temporal"), "worker": procs.pid("worker")}
    sem = asyncio.Semaphore(args.concurrency)
    if args.only_life:
        await quiesce(pids)
        return await whole_life(args, client, pids, sem)
    rows = []
    for label, variant in VARIANTS.items():
        wanted = args.updates + args.warmup
        prefix = f"cost-{uuid.uuid4().hex[:6]}"

        async def start(i: int):
            async with sem:
                return await client.start_workflow(CostWorkflow.run, variant, id=f"{prefix}-{i}", task_queue=QUEUE)

        handles = await asyncio.gather(*(start(i) for i in range(wanted)))

        async def settled(handle) -> None:
            async with sem:
                while (await handle.describe()).raw_description.workflow_execution_info.history_length < 5:
                    await asyncio.sleep(0.1)

        await asyncio.wait_for(asyncio.gather(*(settled(h) for h in handles)), 300)
        pending = list(handles)

        async def update() -> bool:
            return (await pending.pop().execute_update(CostWorkflow.go)) == "ok"

        await drive(label, label, update, args.warmup, args.concurrency, 60)
        await quiesce(pids)
        result = await drive(label, label, update, args.updates, args.concurrency, args.duration, pids)
        await quiesce(pids)  # work left behind (children, closes) is not charged to the next variant
        rows.append(result)
        cpu = {k: 1000 * v / result.ok for k, v in result.cpu.items()} if result.ok else {}
        print(f"  {label:<18} {result.rps:>7.1f} req/s  p50 {result.pct(0.5):>7.1f} ms  p95 {result.pct(0.95):>7.1f} ms"
              f"  CPU ms/update: temporal {cpu.get('temporal', 0):.1f}, worker {cpu.get('worker', 0):.1f}"
              + (f"  errors {dict(result.error_kinds)}" if result.errors else ""), flush=True)
    bare = rows[0].rps
    print(f"\nconversion until issue 9 (an update on the quote's workflow), against a bare update:")
    print(f"{'variant':<22} {'req/s':>8} {'x bare':>7}")
    for r in rows:
        print(f"{r.label:<22} {r.rps:>8.1f} {r.rps / bare:>7.0%}")
    if args.skip_new:
        return
    new_rows = await policy_variants(args, client, pids, sem)
    bare = new_rows[0].rps
    print(f"\nconversion since issue 9 (update-with-start of the policy's workflow), against a bare update-with-start:")
    print(f"{'variant':<22} {'req/s':>8} {'x uws':>7}  {'temporal ms':>11} {'worker ms':>9}")
    for r in new_rows:
        cpu = {k: 1000 * v / r.ok for k, v in r.cpu.items()} if r.ok else {}
        print(f"{r.label:<22} {r.rps:>8.1f} {r.rps / bare:>7.0%}  {cpu.get('temporal', 0):>11.1f} {cpu.get('worker', 0):>9.1f}")
    if args.life_deadline > 0:
        await whole_life(args, client, pids, sem)


def _policy_attributes():
    from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

    keyword, when = SearchAttributeKey.for_keyword, SearchAttributeKey.for_datetime
    now = dt.datetime.now(dt.timezone.utc)
    return TypedSearchAttributes(
        [
            SearchAttributePair(keyword("TenantId"), "bench"),
            SearchAttributePair(keyword("PolicyStatus"), "CREATED"),
            SearchAttributePair(keyword("QuoteId"), "q"),
            SearchAttributePair(keyword("MonitoringTargetId"), "IN-12.875N-077.625E"),
            SearchAttributePair(keyword("ExternalRef"), "bench"),
            SearchAttributePair(when("RiskPeriodStart"), now),
            SearchAttributePair(when("RiskPeriodEnd"), now),
        ]
    )


async def whole_life(args, client, pids, sem) -> None:
    """Per conversion, over one window: the conversion and the end of the quote's workflow."""
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import WorkflowIDConflictPolicy

    from bench.api import cpu_seconds

    window = args.life_deadline + 20.0
    print(f"\na quote's whole life: {args.updates} conversions, CPU over {window:.0f} s that hold the conversions and "
          f"the quotes' ends (deadline {args.life_deadline:.0f} s after the quote's start)")
    print(f"{'variant':<30} {'conv/s':>7} {'p50 ms':>7} {'temporal ms':>11} {'worker ms':>9} {'(conversion only: temporal ms)':>31}")
    for label, variant in LIFE_VARIANTS.items():
        prefix = f"life-{uuid.uuid4().hex[:6]}"
        n = args.updates

        async def start_quote(i: int):
            async with sem:
                return await client.start_workflow(
                    QuoteLike.run, args.life_deadline, id=f"{prefix}-quote-{i}", task_queue=QUEUE
                )

        quotes = await asyncio.gather(*(start_quote(i) for i in range(n)))
        pending = list(range(n))

        async def convert(variant=variant, prefix=prefix) -> bool:
            i = pending.pop()
            operation = WithStartWorkflowOperation(
                PolicyLike.run, args=[variant, f"{prefix}-quote-{i}"], id=f"{prefix}-policy-{i}", task_queue=QUEUE,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING, search_attributes=_policy_attributes(),
                static_summary="Policy · Bengaluru Urban · 12 months · bench",
            )
            ok = await client.execute_update_with_start_workflow(PolicyLike.convert, start_workflow_operation=operation)
            if variant.tell_quote == "client":  # the API's background task, after the answer
                told.append(asyncio.create_task(  # not awaited by the call, as api/quotes/service.py sends it
                    client.get_workflow_handle(f"{prefix}-quote-{i}").signal(QuoteLike.converted, f"{prefix}-policy-{i}")
                ))
            return ok == "ok"

        started = asyncio.get_running_loop().time()
        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        told: list = []
        result = await drive(label, label, convert, n, args.concurrency, args.life_deadline, pids)
        await asyncio.gather(*told)
        await asyncio.sleep(max(0.0, started + window - asyncio.get_running_loop().time()))
        used = {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}
        open_quotes = 0
        for handle in quotes:
            async with sem:
                if (await handle.describe()).close_time is None:
                    open_quotes += 1
        per = {k: 1000 * v / max(result.ok, 1) for k, v in used.items()}
        during = 1000 * result.cpu.get("temporal", 0) / max(result.ok, 1)
        print(f"{label:<30} {result.rps:>7.1f} {result.pct(0.5):>7.1f} {per['temporal']:>11.1f} {per['worker']:>9.1f} {during:>31.1f}"
              + (f"  ({open_quotes} quotes still open)" if open_quotes else "")
              + (f"  errors {dict(result.error_kinds)}" if result.errors else ""), flush=True)
        await quiesce(pids)


async def policy_variants(args, client, pids, sem) -> list:
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import WorkflowIDConflictPolicy

    rows = []
    for label, (variant, with_attributes) in POLICY_VARIANTS.items():
        wanted = args.updates + args.warmup
        prefix = f"pol-{uuid.uuid4().hex[:6]}"

        async def start_quote(i: int):
            async with sem:
                return await client.start_workflow(QuoteLike.run, id=f"{prefix}-quote-{i}", task_queue=QUEUE)

        quotes = await asyncio.gather(*(start_quote(i) for i in range(wanted)))

        async def settled(handle) -> None:
            async with sem:
                while (await handle.describe()).raw_description.workflow_execution_info.history_length < 5:
                    await asyncio.sleep(0.1)

        await asyncio.wait_for(asyncio.gather(*(settled(h) for h in quotes)), 300)
        pending = list(range(wanted))
        attributes = _policy_attributes()

        async def convert(variant=variant, with_attributes=with_attributes, prefix=prefix) -> bool:
            i = pending.pop()
            quote_id = f"{prefix}-quote-{i}"
            operation = WithStartWorkflowOperation(
                PolicyLike.run,
                args=[variant, quote_id],
                id=f"{prefix}-policy-{i}",
                task_queue=QUEUE,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                **(dict(search_attributes=attributes, static_summary="Policy · Bengaluru Urban · 12 months · bench")
                   if with_attributes else {}),
            )
            ok = await client.execute_update_with_start_workflow(PolicyLike.convert, start_workflow_operation=operation)
            if variant.tell_quote == "client":
                await client.get_workflow_handle(quote_id).signal(QuoteLike.converted, f"{prefix}-policy-{i}")
            return ok == "ok"

        await drive(label, label, convert, args.warmup, args.concurrency, 60)
        await quiesce(pids)
        result = await drive(label, label, convert, args.updates, args.concurrency, args.duration, pids)
        await quiesce(pids)
        rows.append(result)
        cpu = {k: 1000 * v / result.ok for k, v in result.cpu.items()} if result.ok else {}
        print(f"  {label:<22} {result.rps:>7.1f} req/s  p50 {result.pct(0.5):>7.1f} ms  p95 {result.pct(0.95):>7.1f} ms"
              f"  CPU ms/conversion: temporal {cpu.get('temporal', 0):.1f}, worker {cpu.get('worker', 0):.1f}"
              + (f"  errors {dict(result.error_kinds)}" if result.errors else ""), flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=300)
    ap.add_argument("--concurrency", "-c", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--server-arg", action="append", default=[], help="extra `temporal server start-dev` argument")
    ap.add_argument("--skip-new", action="store_true", help="only the decomposition until issue 9")
    ap.add_argument("--life-deadline", type=float, default=30.0,
                    help="the quotes' deadline in the whole-life table, seconds (0: skip that table)")
    ap.add_argument("--only-life", action="store_true", help="only the whole-life table")
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory(prefix="temporal-costs-") as tmp:
        procs = Processes(Path(tmp))
        try:
            asyncio.run(run(args, procs, Path(tmp)))
        finally:
            procs.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
