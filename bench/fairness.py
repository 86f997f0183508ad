"""Benchmark: one tenant's burst of pricing against another tenant's single request (issue 24,
"Fair capacity"), with the quiet figure measured in the same run.

Starts its own stack as bench/travel_quotes.py does (file-backed Temporal dev server with
`make dev`'s settings, fairness on, migrate, the lifecycle and pricing workers, the API;
temp dir, free loopback ports) and three tenants: A (the burst), B (the single request) and
W (unmeasured warm-ups). Every request is a cold travel stay of --nights nights (its covers
are priced on the hourly rain model by a TravelCoveragesWorkflow on the pricing pool):

  warm-up  W prices one stay at each place (the pricing process loads the climate data and
           fits each target's model once).
  quiet    B alone: --quiet-samples cold stays in Chennai, one after the other (their median
           is B's quiet time).
  burst    A sends --burst cold stays in Mumbai at once (distinct dates); --delay seconds
           later B sends one cold stay in Chennai (rounds take the delays in turn: B lands
           at different points of the pricing under way, which it may have to wait out). A's answers are counted (200, 429 beyond
           its pricing quota, 503 when its own backlog outlasts the request deadline).

Each round waits for the previous round's pricing to drain. Goal (issue 24): B's latency in
the burst <= 2x its quiet latency.

--unfair runs the same with the pricing quota off and the dev server's fairness and
priorities off (matching.useNewMatcher=false: one FIFO queue, as before issue 24), for
comparison.

Run:  .venv/bin/python bench/fairness.py [--rounds 3] [--burst 40] [--nights 30] [--delay 0.6,1.2,1.8] [--unfair] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import datetime as dt
import json
import shutil
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._stack import api_ready, run_stack_bench  # noqa: E402
from bench.api import Ports, Processes, port_open, run_cli, temporal_command, wait_for  # noqa: E402

MUMBAI = {"lat": "19.0760", "long": "72.8777"}  # tenant A's burst
CHENNAI = {"lat": "13.0827", "long": "80.2707"}  # tenant B's single stays
FAIRNESS_FLAG = "matching.enableFairness=true"


async def start_temporal(procs: Processes, tmp: Path, ports: Ports, env: dict[str, str], fair: bool) -> None:
    binary = str(Path(sys.executable).parent / "temporal")
    if not Path(binary).exists():
        binary = shutil.which("temporal") or binary
    cmd = temporal_command(binary, tmp / "temporal" / "temporal.db", ports)
    if not fair:  # drop `--dynamic-config-value matching.enableFairness=true`; no priorities either
        at = cmd.index(FAIRNESS_FLAG)
        del cmd[at - 1 : at + 1]
        cmd += ["--dynamic-config-value", "matching.useNewMatcher=false"]
    elif FAIRNESS_FLAG not in cmd:
        raise RuntimeError("temporal-dev.yml does not turn fairness on")
    procs.start("temporal", cmd, env)
    await wait_for(lambda: port_open(ports.temporal), 60, "Temporal dev server", procs)
    run_cli(["migrate"], env)


async def pricing_drained(client, procs: Processes, timeout: float = 600) -> None:
    """Wait until no TravelCoveragesWorkflow runs (requests that gave up leave theirs running)."""
    query = 'WorkflowType="TravelCoveragesWorkflow" AND ExecutionStatus="Running"'
    deadline = time.monotonic() + timeout
    while (await client.count_workflows(query)).count:
        procs.check()
        if time.monotonic() > deadline:
            raise RuntimeError(f"stay pricing still running after {timeout:.0f} s")
        await asyncio.sleep(0.5)


async def pricing_wait(client, first_night: dt.date) -> tuple[float, float]:
    """(seconds the stay's pricing activity waited for the pool, seconds it ran), from its
    workflow's history (the stay starting on `first_night`)."""
    async for found in client.list_workflows('WorkflowType="TravelCoveragesWorkflow"'):
        if f":{first_night}:" in found.id:
            events = (await client.get_workflow_handle(found.id).fetch_history()).events
            break
    else:
        return float("nan"), float("nan")
    scheduled = {e.event_id: e for e in events if e.HasField("activity_task_scheduled_event_attributes")}
    for e in events:
        if e.HasField("activity_task_started_event_attributes"):
            s = scheduled[e.activity_task_started_event_attributes.scheduled_event_id]
            if s.activity_task_scheduled_event_attributes.activity_type.name == "price_stay_nights":
                done = next(x for x in events if x.HasField("activity_task_completed_event_attributes")
                            and x.activity_task_completed_event_attributes.started_event_id == e.event_id)
                return ((e.event_time.ToDatetime() - s.event_time.ToDatetime()).total_seconds(),
                        (done.event_time.ToDatetime() - e.event_time.ToDatetime()).total_seconds())
    return float("nan"), float("nan")


async def run(args, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> bool:
    import httpx

    await start_temporal(procs, tmp, ports, env, fair=not args.unfair)
    tenants = {name: json.loads(run_cli(["tenants", "create", f"bench-fair-{name}"], env)) for name in "ABW"}
    cli = [sys.executable, "-m", "api.cli"]
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle"], env)
    procs.start("pricing", [*cli, "worker", "--queue", "pricing"], env)
    procs.start("api", [*cli, "api", "--port", str(ports.api)], env)
    api = f"http://127.0.0.1:{ports.api}"
    today = dt.date.today()
    days = iter(range(10, 366 - args.nights))  # a fresh check-in day for every stay

    async with httpx.AsyncClient(timeout=httpx.Timeout(600), limits=httpx.Limits(max_connections=None)) as http:

        await api_ready(http, api, procs)

        from temporalio.client import Client

        temporal = await Client.connect(env["TEMPORAL_ADDRESS"])
        last_b: list[dt.date] = []

        async def stay(tenant: str, place: dict) -> tuple[int, float]:
            """One cold stay's coverages: (status, seconds)."""
            creds = tenants[tenant]
            check_in = today + dt.timedelta(days=next(days))
            if tenant == "B":
                last_b.append(check_in)
            params = {**place, "time_range": f"{check_in}/P{args.nights}D"}
            headers = {"Authorization": f"Bearer {creds['api_key']}", "x-tenant-id": creds["tenant_id"]}
            t0 = time.perf_counter()
            r = await http.get(f"{api}/travel/{creds['tenant_id']}/coverages", params=params, headers=headers)
            took = time.perf_counter() - t0
            if r.status_code not in (200, 429, 503):
                raise RuntimeError(f"GET /coverages answered {r.status_code}: {r.text}")
            return r.status_code, took

        for place in (MUMBAI, CHENNAI):
            status, took = await stay("W", place)
            print(f"warm-up at {place}: {status} in {took:.1f} s", flush=True)
        ratios = []
        for round_no in range(1, args.rounds + 1):
            await pricing_drained(temporal, procs)
            samples = []
            for _ in range(args.quiet_samples):
                status, took = await stay("B", CHENNAI)
                if status != 200:
                    raise RuntimeError(f"tenant B's quiet stay answered {status}")
                samples.append((took, *await pricing_wait(temporal, last_b[-1])))
            quiet, quiet_wait, quiet_run = sorted(samples)[len(samples) // 2]

            delay = args.delay[(round_no - 1) % len(args.delay)]

            async def late_b() -> tuple[int, float]:
                await asyncio.sleep(delay)
                return await stay("B", CHENNAI)

            t0 = time.perf_counter()
            burst = [asyncio.ensure_future(stay("A", MUMBAI)) for _ in range(args.burst)]
            b_status, b_took = await late_b()
            answers = await asyncio.gather(*burst)
            burst_took = time.perf_counter() - t0
            counts = collections.Counter(code for code, _ in answers)
            b_night = last_b[-1]
            await pricing_drained(temporal, procs)  # B's pricing goes on after a 503
            b_wait, b_run = await pricing_wait(temporal, b_night)
            ratio = b_took / quiet
            ratios.append(ratio if b_status == 200 else float("inf"))
            print(f"\nround {round_no}:")
            print(f"  tenant B quiet (alone, median of {len(samples)})  {quiet:6.1f} s  (its pricing waited "
                  f"{quiet_wait:.1f} s for the pool, ran {quiet_run:.1f} s; samples "
                  f"{', '.join(f'{t:.1f}' for t, _, _ in samples)} s)")
            print(f"  tenant B in A's burst ({delay:g} s in)       {b_took:6.1f} s  (status {b_status})  "
                  f"= {ratio:.2f}x quiet  (waited {b_wait:.1f} s, ran {b_run:.1f} s)")
            print(f"  tenant A's {args.burst} stays at once: " + ", ".join(f"{n} x {c}" for c, n in sorted(counts.items()))
                  + f"; all answered in {burst_took:.1f} s")
            slow = sorted(t for c, t in answers if c == 429)
            if slow:
                print(f"    (429 answers took at most {slow[-1] * 1000:.0f} ms)")
            sys.stdout.flush()
        worst = max(ratios)
        met = worst <= 2
        print(f"\ngoal: B's cold stay in A's burst <= 2x its quiet time: {'met' if met else 'NOT met'} "
              f"(ratios {', '.join(f'{r:.2f}' for r in ratios)}; worst {worst:.2f}x)"
              + (" [--unfair: quota, fairness and priorities off]" if args.unfair else ""))
        return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="quiet + burst rounds")
    ap.add_argument("--burst", type=int, default=40, help="tenant A's concurrent cold stays")
    ap.add_argument("--quiet-samples", type=int, default=3, help="B's quiet stays a round (their median)")
    ap.add_argument("--nights", type=int, default=30, help="nights of every stay (at most 30)")
    ap.add_argument("--delay", type=lambda v: [float(x) for x in v.split(",")], default=[0.6, 1.2, 1.8],
                    help="seconds into A's burst that B asks (comma-separated: the rounds take them in turn)")
    ap.add_argument("--unfair", action="store_true", help="pricing quota, Temporal fairness and priorities off")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir afterwards")
    args = ap.parse_args()
    if 2 + args.rounds * (args.burst + args.quiet_samples + 1) > 356 - args.nights:
        ap.error("not enough distinct check-in days within a year for so many stays: fewer rounds or a smaller burst")
    env_extra = {"PRICING_IN_FLIGHT_PER_TENANT": "0", "PRICING_STARTS_PER_MINUTE": "0"} if args.unfair else {}
    return run_stack_bench("fairness", run, args, env_extra, ("api", "worker", "pricing"), args.keep)


if __name__ == "__main__":
    sys.exit(main())
