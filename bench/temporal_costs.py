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

Prints req/s, p50/p95 and the CPU per update of the Temporal server, the worker and this
driver, each against the bare update of the same run. The server is started the way
`make dev` starts it (temporal-dev.yml's x-temporal-dev settings), on free ports.

Run:  .venv/bin/python bench/temporal_costs.py [--updates 300] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import uuid
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench.api import Processes, Ports, drive, free_port, machine, port_open, quiesce, temporal_command, wait_for  # noqa: E402
from bench._costs import CostWorkflow, Variant  # noqa: E402

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
    print(f"\n{'variant':<18} {'req/s':>8} {'x bare':>7}")
    for r in rows:
        print(f"{r.label:<18} {r.rps:>8.1f} {r.rps / bare:>7.0%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=300)
    ap.add_argument("--concurrency", "-c", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--server-arg", action="append", default=[], help="extra `temporal server start-dev` argument")
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
