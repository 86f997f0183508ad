"""12-month quotes over HTTP at targets across India (issue 33, 1: "a 12-month quote must
succeed at every target of the pin-code mapping that has a viable cover in some month").

Starts its own stack as bench/cold_quotes_stack.py does (file-backed Temporal dev server,
migrate, a tenant, the lifecycle, pricing and documents workers, the API; temp dir, free
loopback ports), then `POST /quotes` for January-December of 2027 at ₹100,000 a month at the
target of each pin code of --pins (default: bench/quote_months_survey.py's panel of 15 across
India), --parallel at a time. Each target's first quote prices its catalogue year (Monte Carlo,
a minute or so on a busy 2-core machine). Prints per target the answer, the covers of each
month (2, 1, or 0 for a month without a line item) and the uncovered months with their reason;
then how many were quoted. Unlike bench/quote_months_survey.py (viability alone) this sees what
the priced catalogue offers: a cover held for an actuary (burn check) is not sold.

    .venv/bin/python bench/quote_months_stack.py [--pins 400001,600001,...] [--random 40] [--parallel 2] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._stack import api_ready, run_stack_bench, start_temporal_and_migrate, tenant_headers  # noqa: E402
from bench.api import Ports, Processes, run_cli  # noqa: E402
from bench.quote_months_survey import PANEL  # noqa: E402


def random_pins(n: int) -> list[str]:
    """A pin code of each of `n` targets drawn from the pin-code mapping (fixed seed: the same
    draw as bench/quote_months_survey.py --random)."""
    import random

    from models.db.reference_data import build_targets, read_pin_codes

    return [t.pin_codes[0] for t in random.Random(33).sample(build_targets(read_pin_codes()), n)]


def _target_of(pin: str) -> str:
    from models.db.reference_data import build_targets, read_pin_codes

    return next(t.id for t in build_targets(read_pin_codes()) if pin in t.pin_codes)


async def run(args, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> bool:
    import httpx

    await start_temporal_and_migrate(procs, tmp, ports, env)
    credentials = json.loads(run_cli(["tenants", "create", "bench-quote-months"], env))
    cli = [sys.executable, "-m", "api.cli"]
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle"], env)
    procs.start("pricing", [*cli, "worker", "--queue", "pricing"], env)
    procs.start("documents", [*cli, "worker", "--queue", "documents"], env)
    procs.start("api", [*cli, "api", "--port", str(ports.api)], env)
    api = f"http://127.0.0.1:{ports.api}"
    pins = [p for p in args.pins.split(",") if p] if not args.random else random_pins(args.random)
    quoted = refused = 0
    # No kept-alive connections: each request here waits minutes while its pool's others sit
    # idle, and a pooled one the API has closed meanwhile fails with ReadError (issue 33, 8).
    async with httpx.AsyncClient(timeout=httpx.Timeout(1200), limits=httpx.Limits(max_keepalive_connections=0)) as http:

        await api_ready(http, api, procs)
        headers = await tenant_headers(http, api, credentials)
        gate = asyncio.Semaphore(args.parallel)

        async def one(pin: str) -> None:
            nonlocal quoted, refused
            target = _target_of(pin)
            body = {"monitoringTargetId": target, "riskPeriodFrom": "2027-01-01", "riskPeriodTo": "2027-12-31",
                    "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}}
            async with gate:
                t0 = time.perf_counter()
                for _ in range(60):  # a 503 (the catalogue still pricing) is retried as a client would
                    r = await http.post(f"{api}/quotes", json=body, headers=headers)
                    if r.status_code not in (429, 503):
                        break
                    await asyncio.sleep(float(r.headers.get("retry-after", "2")))
                took = time.perf_counter() - t0
            label = f"{pin} {PANEL.get(pin, '')[:12]:<12} {target}"
            if r.status_code != 200:
                refused += 1
                print(f"{label} {r.status_code} in {took:5.0f} s: {r.text[:300]}", flush=True)
                return
            quoted += 1
            q = r.json()
            by_month = {int(i["coverages"][0]["riskPeriodStart"][5:7]): len(i["coverages"]) for i in q["lineItems"]}
            counts = "".join(str(by_month.get(m, 0)) for m in range(1, 13))
            uncovered = [f"{u['month']} {u['reason']}" for u in q["uncoveredMonths"]]
            print(f"{label} 200 in {took:5.0f} s: covers a month {counts}, premium "
                  f"{q['grossPremiumAmount']['amount']}, uncovered {uncovered}", flush=True)

        await asyncio.gather(*(one(pin) for pin in pins))
    print(f"\n{quoted} of {len(pins)} 12-month quotes made ({refused} refused)")
    return refused == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pins", default=",".join(PANEL), help="pin codes whose targets are quoted (12 months)")
    ap.add_argument("--random", type=int, default=0, help="quote N targets drawn from the pin-code mapping instead")
    ap.add_argument("--parallel", type=int, default=2, help="quotes in flight at once")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir afterwards")
    args = ap.parse_args()
    return run_stack_bench("quote_months_stack", run, args, {}, ("api", "worker", "pricing"), args.keep)


if __name__ == "__main__":
    sys.exit(main())
