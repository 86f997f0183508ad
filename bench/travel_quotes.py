"""Benchmark: the travel surface's POST /quotes once the stay's covers are priced (issue 14),
beside a bare Litestar endpoint in the same run.

Starts its own stack as bench/internal_quotes.py does (file-backed Temporal dev server with
`make dev`'s settings, migrate, a tenant, the lifecycle and pricing workers, the API; the
bare Litestar app of bench/_bare.py; temp dir, free loopback ports), then:

  cold   GET /travel/{tenant}/coverages for a 3-night stay in Mumbai: the first request
         prices the stay's covers on the hourly rain model (TravelCoveragesWorkflow); then
         the same stay again (read), and another stay at the same place (priced, the
         pricing process and the target's model warm).
  warm   --quotes POST /travel/{tenant}/quotes, one at a time (after --warmup unmeasured
         ones): each validates, prices from the stored distribution of nights and writes the
         quote through its QuoteWorkflow (update-with-start).
  bare   the same number of GETs of the bare Litestar endpoint, interleaved with the quotes
         (same client, same moment): what HTTP alone costs on this machine.

Goal (issue 14): warm POST /quotes p50 <= 100 ms.

Run:  .venv/bin/python bench/travel_quotes.py [--quotes 200] [--warmup 20] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._stack import run_stack_bench, start_temporal_and_migrate  # noqa: E402
from bench.api import Ports, Processes, run_cli, wait_for  # noqa: E402
from bench.internal_quotes import pct, row  # noqa: E402

MUMBAI = {"lat": "19.0760", "long": "72.8777"}


async def run(args, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> bool:
    import httpx

    await start_temporal_and_migrate(procs, tmp, ports, env)
    credentials = json.loads(run_cli(["tenants", "create", "bench-travel"], env))
    tenant_id = credentials["tenant_id"]
    cli = [sys.executable, "-m", "api.cli"]
    bare = [sys.executable, "-c", "from bench._bare import main; main()"]
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle"], env)
    procs.start("pricing", [*cli, "worker", "--queue", "pricing"], env)
    procs.start("api", [*cli, "api", "--port", str(ports.api)], env)
    procs.start("bare-http", [*bare, "http", "--port", str(ports.bare)], env)
    api = f"http://127.0.0.1:{ports.api}"
    bare_url = f"http://127.0.0.1:{ports.bare}/bare"
    headers = {"Authorization": f"Bearer {credentials['api_key']}", "x-tenant-id": tenant_id}
    async with httpx.AsyncClient(timeout=httpx.Timeout(300)) as http:

        async def up(url: str) -> bool:
            try:
                return (await http.get(url)).status_code == 200
            except httpx.HTTPError:
                return False

        await wait_for(lambda: up(f"{api}/health"), 120, "API", procs)
        await wait_for(lambda: up(bare_url), 60, "bare Litestar endpoint", procs)
        check_in = dt.date.today() + dt.timedelta(days=30)
        params = {**MUMBAI, "time_range": f"{check_in}/{check_in + dt.timedelta(days=3)}"}
        t0 = time.perf_counter()
        r = await http.get(f"{api}/travel/{tenant_id}/coverages", params=params, headers=headers)
        cold = time.perf_counter() - t0
        r.raise_for_status()
        covers = r.json()["coverages"]
        t0 = time.perf_counter()
        (await http.get(f"{api}/travel/{tenant_id}/coverages", params=params, headers=headers)).raise_for_status()
        listed_warm = time.perf_counter() - t0
        other = {**MUMBAI, "time_range": f"{check_in + dt.timedelta(days=7)}/{check_in + dt.timedelta(days=12)}"}
        t0 = time.perf_counter()
        (await http.get(f"{api}/travel/{tenant_id}/coverages", params=other, headers=headers)).raise_for_status()
        second = time.perf_counter() - t0
        print(f"GET /coverages: first stay {cold * 1000:.0f} ms (prices its {len(covers)} covers; the pricing "
              f"process loads the climate data and fits the target's model first); the same stay again "
              f"{listed_warm * 1000:.0f} ms; another stay (5 nights) {second * 1000:.0f} ms", flush=True)
        body = {"coverage_id": covers[1]["id"], "max_payout": 1500, "qty": 3, "technical_client_ref": "bench"}
        quotes, bares = [], []
        for i in range(args.warmup + args.quotes):
            t0 = time.perf_counter()
            q = await http.post(f"{api}/travel/{tenant_id}/quotes", json=body, headers=headers)
            took = time.perf_counter() - t0
            if q.status_code != 200:
                raise RuntimeError(f"POST /quotes answered {q.status_code}: {q.text}")
            t0 = time.perf_counter()
            (await http.get(bare_url)).raise_for_status()
            bare_took = time.perf_counter() - t0
            if i >= args.warmup:
                quotes.append(took)
                bares.append(bare_took)
        print(row("POST /travel/{tenant}/quotes (warm)", quotes))
        print(row("bare Litestar GET (same run, interleaved)", bares))
        p50 = pct(quotes, 0.5) * 1000
        print(f"\nquote p50 {p50:.0f} ms = bare p50 + {p50 - pct(bares, 0.5) * 1000:.0f} ms")
        met = p50 <= 100
        print(f"goal warm POST /quotes p50 <= 100 ms: {'met' if met else 'NOT met'} ({p50:.0f} ms)")
        return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quotes", type=int, default=200, help="measured quotes")
    ap.add_argument("--warmup", type=int, default=20, help="unmeasured quotes first")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir afterwards")
    args = ap.parse_args()
    return run_stack_bench("travel_quotes", run, args, {}, ("api", "worker", "pricing"), args.keep)


if __name__ == "__main__":
    sys.exit(main())
