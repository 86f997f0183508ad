"""Benchmark: cold POST /quotes (targets never priced) against warm ones, and fast quotes
POST → completed split into pricing, PDF render and the rest (issue 12).

Starts its own stack as bench/api.py does (file-backed Temporal dev server, migrate, an
internal tenant, one worker process per task queue, the API; temp dir, free loopback
ports), then:

  (1) cold   POST /quotes, 12 months from next month, sum insured 250,000 INR, for each of
             --cold pin codes whose target has no catalogue yet: the call waits for the
             target's catalogue slots to be created and priced (one joint pricing activity),
             then for the package's pricing (price_package, issue 26; its span printed).
             The stack is idle before each call: the previous target's documents (which
             wait 20 s, then render one at a time) are done.
      package  the first six months of the same period on the same targets: the catalogue
             holds the prices, the package was never priced (price_package runs).
      warm   the 12-month request again for the same targets (the catalogue and the
             package-price cache hold the prices): the baseline measured in the same run.
  (2) fast   --fast fast quotes of 24 covers of one target (12 months x 2 indices) at the
             default number of simulations, one at a time: POST /internal/fast-quotes, then
             GET /internal/quotes/{id} every 10 ms until `completed`. Each is split with its
             workflow history: pricing = the price_fast_quote activity (started → completed),
             render = render_fast_quote_document (started → completed), rest = the remainder
             (HTTP, workflow tasks, queues, database writes, polling).
      compute  the baseline: the same pricing (activities.fast_quotes._price) of the same
             quote in this process, best of 5.

Goals (issue 12): cold p50 <= 1 s; fast quote p50 <= 1.5 s with the rest <= 300 ms.

Run:  .venv/bin/python bench/internal_quotes.py [--cold 8] [--fast 50] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._stack import run_stack_bench, start_temporal_and_migrate  # noqa: E402
from bench.api import (  # noqa: E402
    Ports,
    Processes,
    quiesce,
    run_cli,
    wait_for,
)

# Never priced before the run: Goa, Kolkata, Bhubaneswar, Jaipur, Guwahati, Lucknow, Patna,
# Hyderabad, Ahmedabad, Chennai, Nagpur, Bhopal.
COLD_PIN_CODES = ["403001", "700001", "751001", "302001", "781001", "226001", "800001", "500001",
                  "380001", "600001", "440001", "462001"]
PARTNER = {
    "@type": "NewBusinessPartner", "name": "Bench Agri Producers", "role": "POLICY_HOLDER",
    "contactName": "Asha Rao", "contactEmailAddress": "asha@bench.example", "contactPhoneNumber": "+91 80 1234 5678",
    "address": {"@type": "NewAddress", "countryCode": "IN", "houseNumber": "12", "street": "MG Road",
                "country": "India", "county": "", "postcode": "560001", "state": "Karnataka",
                "district": "Bengaluru Urban", "city": "Bengaluru", "stateCode": "KA"},
    "taxStatus": "REGISTERED",
}


def pct(values: list[float], q: float) -> float:
    data = sorted(values)
    return data[min(len(data) - 1, max(0, int(-(-q * len(data) // 1)) - 1))]


def row(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"  {label:<44} n={len(ms):<3} p50 {pct(ms, 0.5):>7.0f} ms  p95 {pct(ms, 0.95):>7.0f} ms  "
            f"min {min(ms):>6.0f}  max {max(ms):>6.0f}")


def period() -> tuple[str, str]:
    today = dt.date.today()
    start = dt.date(today.year + (today.month == 12), today.month % 12 + 1, 1)
    end = dt.date(start.year + 1, start.month, 1) - dt.timedelta(days=1)
    return start.isoformat(), end.isoformat()


def span(events, activity_type: str) -> float:
    """Started → completed seconds of the (last) activity of that type in a history."""
    scheduled = {e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name
                 for e in events if e.HasField("activity_task_scheduled_event_attributes")}
    started = {}
    total = 0.0
    for e in events:
        if e.HasField("activity_task_started_event_attributes"):
            started[e.activity_task_started_event_attributes.scheduled_event_id] = e.event_time.ToDatetime()
        if e.HasField("activity_task_completed_event_attributes"):
            sid = e.activity_task_completed_event_attributes.scheduled_event_id
            if scheduled.get(sid) == activity_type and sid in started:
                total = (e.event_time.ToDatetime() - started[sid]).total_seconds()
    return total


async def run(args, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> bool:
    import httpx
    from temporalio.client import Client

    from models.temporal.ids import catalogue_workflow_id, quote_workflow_id

    await start_temporal_and_migrate(procs, tmp, ports, env)
    credentials = json.loads(run_cli(["tenants", "create", "bench", "--internal"], env))
    tenant_id = credentials["tenant_id"]
    cli = [sys.executable, "-m", "api.cli"]
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle"], env)
    procs.start("pricing", [*cli, "worker", "--queue", "pricing"], env)
    procs.start("documents", [*cli, "worker", "--queue", "documents"], env)
    procs.start("api", [*cli, "api", "--port", str(ports.api)], env)
    api = f"http://127.0.0.1:{ports.api}"
    ok = True
    async with httpx.AsyncClient(base_url=api, timeout=httpx.Timeout(300)) as http:

        async def healthy() -> bool:
            try:
                return (await http.get("/health")).status_code == 200
            except httpx.HTTPError:
                return False

        await wait_for(healthy, 120, "API", procs)
        r = await http.post(f"/auth/{tenant_id}/oauth2/v2.0/token", data={
            "client_id": credentials["client_id"], "client_secret": credentials["client_secret"],
            "scope": credentials["scope"], "grant_type": "client_credentials"})
        r.raise_for_status()
        h = {"Authorization": f"Bearer {r.json()['access_token']}", "x-tenant-id": tenant_id}
        temporal = await Client.connect(env["TEMPORAL_ADDRESS"])
        pids = {name: procs.pid(name) for name in ("api", "worker", "pricing", "documents", "temporal")}

        async def settle(timeout: float = 1800) -> float:
            """Wait until the catalogues have nothing in flight (no pending activity such as the
            fit summaries, no document waiting or rendering: they sleep 20 s first, so CPU
            alone would look idle) for 3 checks in a row, then until the stack is idle."""
            t = time.monotonic()
            calm = 0
            while calm < 3 and time.monotonic() - t < timeout:
                busy = [w async for w in temporal.list_workflows(
                    'WorkflowType="CoverageDocumentsWorkflow" AND ExecutionStatus="Running"', limit=1)]
                async for w in temporal.list_workflows('WorkflowType="CatalogueWorkflow" AND ExecutionStatus="Running"'):
                    if (await temporal.get_workflow_handle(w.id).describe()).raw_description.pending_activities:
                        busy.append(w)
                calm = 0 if busy else calm + 1
                await asyncio.sleep(1)
            await quiesce(pids)
            return time.monotonic() - t

        mapping = {}
        for line in (await http.get("/pincode-mapping", headers=h)).text.splitlines()[1:]:
            pin, target = line.split(",")[:2]
            mapping[pin.strip()] = target.strip()
        start, end = period()
        targets = []
        for pin in COLD_PIN_CODES:
            target = mapping.get(pin)
            if target and target not in targets:
                targets.append(target)
        targets = targets[: args.cold]

        def quote(target: str) -> dict:
            return {"monitoringTargetId": target, "riskPeriodFrom": start, "riskPeriodTo": end,
                    "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}}

        # A first quote warms the processes (imports, climate data, connections) on another target.
        warmup = mapping["560001"]
        r = await http.post("/quotes", json=quote(warmup), headers=h)
        assert r.status_code == 200, r.text
        print(f"\n(1) POST /quotes, {start}..{end}; processes warmed on {warmup} first", flush=True)
        cold, warm, package_cold, package_span, cold_package_span = [], [], [], [], []

        async def package_pricing(quote_id: str) -> float:
            """The quote's price_package activity, started → completed (0: read from the cache)."""
            events = (await temporal.get_workflow_handle(quote_workflow_id(tenant_id, quote_id)).fetch_history()).events
            return span(events, "price_package")

        for target in targets:
            await settle()
            t0 = time.perf_counter()
            r = await http.post("/quotes", json=quote(target), headers=h)
            cold.append(time.perf_counter() - t0)
            if r.status_code != 200:
                print(f"  cold quote for {target} failed: {r.status_code} {r.text[:300]}")
                ok = False
                continue
            covers = sum(len(i.get("coverages", [])) for i in r.json().get("lineItems", []))
            cold_package_span.append(await package_pricing(r.json()["id"]))
            print(f"  cold {target}: {cold[-1] * 1000:.0f} ms ({covers} covers; the package's pricing "
                  f"{cold_package_span[-1] * 1000:.0f} ms of it)", flush=True)
            if args.explain:
                await explain(temporal, catalogue_workflow_id(target))
        await settle()
        # The catalogue priced, the package never: the first six months of the period.
        six = (dt.date.fromisoformat(start) + dt.timedelta(days=180)).replace(day=1) - dt.timedelta(days=1)
        for target in targets:
            body = {**quote(target), "riskPeriodTo": six.isoformat()}
            t0 = time.perf_counter()
            r = await http.post("/quotes", json=body, headers=h)
            package_cold.append(time.perf_counter() - t0)
            ok &= r.status_code == 200
            if r.status_code == 200:
                package_span.append(await package_pricing(r.json()["id"]))
        for target in targets:
            t0 = time.perf_counter()
            r = await http.post("/quotes", json=quote(target), headers=h)
            warm.append(time.perf_counter() - t0)
            ok &= r.status_code == 200
        print(row("cold POST /quotes (target never priced)", cold))
        if cold_package_span:
            print(row("  of which the package's pricing activity", cold_package_span))
        print(row("POST /quotes, catalogue priced, package not", package_cold))
        if package_span:
            print(row("  of which the package's pricing activity", package_span))
        print(row("warm POST /quotes (package priced before)", warm))
        cold_p50 = pct(cold, 0.5)
        print(f"  goal cold p50 <= 1000 ms: {'met' if cold_p50 <= 1.0 else 'NOT met'} ({cold_p50 * 1000:.0f} ms); "
              f"cold / warm p50 = {cold_p50 / pct(warm, 0.5):.1f}x")

        # (2) fast quotes on the first target's catalogue
        target = targets[0]
        body = (await http.get(f"/internal/coverages?monitoringTargetId={target}&from={start}&to={end}&size=100",
                               headers=h)).json()
        active = [c for c in body["content"] if c["status"] == "ACTIVE"]
        active.sort(key=lambda c: (c["start"], c["indexDefinitionId"] if "indexDefinitionId" in c else c["name"]))
        ids = [c["id"] for c in active][:24]
        r = await http.post("/internal/business-partners", json=PARTNER, headers=h)
        assert r.status_code == 201, r.text
        partner = r.json()["id"]
        new = {"@type": "NewFastQuote", "name": "bench", "customerId": partner, "coverageIds": ids,
               "sumInsured": {"amount": "250000.00", "currency": "INR"}}
        print(f"\n(2) fast quotes: {len(ids)} covers of {target}, {args.fast} quotes one at a time", flush=True)
        # The cold targets' catalogue documents (two PDFs per coverage) render first: a fast
        # quote's document waits behind them on the documents queue.
        print(f"  (waited {await settle():.0f} s for the catalogue documents to render)", flush=True)
        totals, pricing, render, rest, quote_ids = [], [], [], [], []
        for i in range(args.warmup + args.fast):
            t0 = time.perf_counter()
            r = await http.post("/internal/fast-quotes", json=new, headers=h)
            assert r.status_code == 201, r.text
            quote_id = r.json()["id"]
            while True:
                state = (await http.get(f"/internal/quotes/{quote_id}", headers=h)).json()["state"]
                if state in ("completed", "error"):
                    break
                await asyncio.sleep(0.01)
            total = time.perf_counter() - t0
            if state != "completed":
                print(f"  quote {quote_id} ended in {state}")
                ok = False
                continue
            if i < args.warmup:
                continue
            events = (await temporal.get_workflow_handle(quote_workflow_id(tenant_id, quote_id)).fetch_history()).events
            p, d = span(events, "price_fast_quote"), span(events, "render_fast_quote_document")
            totals.append(total)
            pricing.append(p)
            render.append(d)
            rest.append(total - p - d)
            quote_ids.append(quote_id)
        compute = await asyncio.to_thread(baseline_compute, tenant_id, quote_ids[-1], target, "2.5")
        print(row("POST → completed", totals))
        print(row("  pricing activity (started → completed)", pricing))
        print(row("  render activity (started → completed)", render))
        print(row("  rest (HTTP, workflow tasks, queues, writes)", rest))
        print(row("baseline: the same package priced in-process", compute))
        print("  (the first fast quote of these covers priced the package; the rest read its price)")
        met = pct(totals, 0.5) <= 1.5 and pct(rest, 0.5) <= 0.3
        print(f"  goal p50 <= 1500 ms and rest p50 <= 300 ms: {'met' if met else 'NOT met'}")
    return ok


async def explain(temporal, workflow_id: str) -> None:
    """The catalogue workflow's activities, their queue wait and run time (ms after its start)."""
    events = (await temporal.get_workflow_handle(workflow_id).fetch_history()).events
    t0 = events[0].event_time.ToDatetime()
    names, sched = {}, {}
    for e in events:
        at = (e.event_time.ToDatetime() - t0).total_seconds() * 1000
        if e.HasField("activity_task_scheduled_event_attributes"):
            names[e.event_id] = e.activity_task_scheduled_event_attributes.activity_type.name
            sched[e.event_id] = at
        elif e.HasField("activity_task_completed_event_attributes"):
            sid = e.activity_task_completed_event_attributes.scheduled_event_id
            print(f"    {names[sid]:<28} scheduled {sched[sid]:>6.0f}  completed {at:>6.0f} ms")
        elif e.HasField("marker_recorded_event_attributes") and e.marker_recorded_event_attributes.marker_name == "core_local_activity":
            print(f"    local activity marker          at {at:>6.0f} ms")
        elif e.HasField("workflow_execution_update_completed_event_attributes"):
            print(f"    update completed               at {at:>6.0f} ms")


def baseline_compute(tenant_id: str, quote_id: str, target: str, quantity: str) -> list[float]:
    """The package pricing of one completed quote (activities.packages.package_price_of, its
    line items from the database, never from the cache), in this process, 5 times (the first
    includes loading the target's model)."""
    from activities.packages import _key, package_price_of
    from activities.pricing_runs import load_parameters
    from activities.site_models import site_model
    from models.domain.packages import canonical_lines
    from models.settings import load_settings
    from models.temporal.quotes import PackagePricingInput

    async def load():
        from models.db import catalogue as catalogue_db
        from models.db import quotes as quotes_db
        from models.db.core import close_pool, open_pool

        await open_pool()
        try:
            rows = await quotes_db.line_item_rows(tenant_id, quote_id=uuid.UUID(quote_id))
            return await catalogue_db.site_of(target), quotes_db.line_item_drafts(rows)
        finally:
            await close_pool()

    site, items = asyncio.run(load())
    simulations = load_settings().simulations
    request = PackagePricingInput(monitoring_target_id=target, line_items=items, simulations=simulations, seed=20261125)
    params = load_parameters()
    _, key = _key(request, params)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        package_price_of(site_model(site), canonical_lines(items), key, simulations, 20261125, params)
        times.append(time.perf_counter() - t0)
    return times[1:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", type=int, default=8, help="targets quoted cold (at most 12)")
    ap.add_argument("--fast", type=int, default=50, help="fast quotes measured")
    ap.add_argument("--warmup", type=int, default=3, help="fast quotes before measuring")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir afterwards")
    ap.add_argument("--explain", action="store_true", help="print each cold catalogue's activity timeline")
    args = ap.parse_args()
    extra = {"API_HOST": "127.0.0.1", "API_PORT": "{api_port}", "PUBLIC_BASE_URL": "http://127.0.0.1:{api_port}",
             "RATE_LIMIT_PER_SECOND": "1000000", "RATE_LIMIT_BURST": "1000000"}
    return run_stack_bench("quotes", run, args, extra, ("api", "worker", "pricing", "documents"), args.keep)


if __name__ == "__main__":
    sys.exit(main())
