"""Benchmark: cold quotes end to end, and where their time goes (issue 26, "Cold quotes <= 1 s").

Starts its own stack as bench/travel_quotes.py does (file-backed Temporal dev server with
`make dev`'s settings, migrate, a tenant, the lifecycle, pricing and documents workers, the
API; temp dir, free loopback ports), waits until the stack is idle (the pricing worker's
pool warms up as it starts), then, waiting for the stack to be idle before each request:

  quote   POST /quotes, 12 months (January-December of next year, the two preferred covers a
          month, ₹250,000 a line item), for each of --targets (pin codes: targets never
          priced): the catalogue prices the target's covers, then the quote's package.
  stay    GET /travel/{tenant}/coverages for a 3-night stay 30 days ahead at each of --stays
          (pin codes' coordinates): the first stay of the target, priced on the hourly model.
  warm    the baseline, in the same run: the first target's quote again (the package priced
          before: no simulation) and the first place's stay again (read).

Beside each request, where its time went, from the Temporal histories of the workflows it
ran (event times, the server's clock on this machine): the pricing activities' run time
(started → completed) and queueing (scheduled → started), the database activities' run
time, the workflow tasks (scheduled → completed, local activities included), and the rest
(API, HTTP, the client's round trips to Temporal, the gaps between them) = wall − the union
of those intervals. Then the engine's phases inside each pricing activity: the activities'
own inputs (from the histories) priced again in one fresh process warmed as a pricing pool
process is (modules and calibration data loaded), in the order the pool ran them, each
phase timed (model: the target's fit; terms; simulation; band; burn, premium and report).

    .venv/bin/python bench/cold_quotes_stack.py [--targets 600001,...] [--stays 110001,...] [--keep]

Goal (issue 26): p50 <= 1 s for a 12-month quote and for a target's first stay, on a quiet
machine (the load average is printed at the start and at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import statistics
import subprocess
import sys
import time
import typing
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._stack import api_ready, run_stack_bench, start_temporal_and_migrate, tenant_headers  # noqa: E402
from bench.api import Ports, Processes, quiesce, run_cli  # noqa: E402

# Bengaluru, New Delhi, Jaipur, Kolkata, Hyderabad (the cells of Chennai, Mumbai and Pune have
# months with one viable cover: their 12-month quotes, one-cover line items and all, are
# bench/quote_months_stack.py's)
TARGETS = "560001,110001,302001,700001,500001"
STAYS = "560001,700001,752001,403001,600001"  # Bengaluru, Kolkata, Puri, North Goa, Chennai
PRICING_ACTIVITIES = ("propose_and_price_coverages", "price_package", "price_stay_nights")
PHASES = ("model", "terms", "simulation", "band", "burn, premium and report")


# --- the histories ----------------------------------------------------------------------------


def _seconds(ts) -> float:
    return ts.seconds + ts.nanos / 1e9


async def _histories(temporal, since: float, until: float) -> list:
    """The histories of the workflows started in [since, until] (epoch seconds)."""
    start = dt.datetime.fromtimestamp(since - 0.5, dt.timezone.utc).isoformat().replace("+00:00", "Z")
    ids = [(w.id, w.run_id) async for w in temporal.list_workflows(f'StartTime >= "{start}"')]
    out = []
    for workflow_id, run_id in ids:
        history = await temporal.get_workflow_handle(workflow_id, run_id=run_id).fetch_history()
        if history.events and _seconds(history.events[0].event_time) <= until + 0.5:
            out.append((workflow_id, history))
    return out


def _intervals(histories, timeline: list) -> tuple[dict[str, list[tuple[float, float]]], list[tuple[str, bytes]]]:
    """Intervals by kind (epoch seconds) and the pricing activities' (type, input) in order;
    each activity's (start, end, label) appended to `timeline`."""
    kinds: dict[str, list[tuple[float, float]]] = {
        "pricing activity": [], "pricing queueing": [], "database activities": [], "other queueing": [],
        "workflow tasks": [], "documents (beside)": [],
    }
    inputs: list[tuple[float, str, bytes]] = []
    for workflow_id, history in histories:
        scheduled: dict[int, tuple[float, str, bytes]] = {}
        started: dict[int, float] = {}
        tasks: dict[int, float] = {}
        for e in history.events:
            t = _seconds(e.event_time)
            kind = e.WhichOneof("attributes")
            if kind == "activity_task_scheduled_event_attributes":
                a = e.activity_task_scheduled_event_attributes
                scheduled[e.event_id] = (t, a.activity_type.name, a.input.payloads[0].data if a.input.payloads else b"",
                                         a.task_queue.name)
            elif kind == "activity_task_started_event_attributes":
                a = e.activity_task_started_event_attributes
                t0, name, data, _ = scheduled[a.scheduled_event_id]
                started[a.scheduled_event_id] = t
                pricing = name in PRICING_ACTIVITIES
                kinds["pricing queueing" if pricing else "other queueing"].append((t0, t))
                if pricing:
                    inputs.append((t, name, data))
            elif kind == "activity_task_completed_event_attributes":
                a = e.activity_task_completed_event_attributes
                _, name, _, queue = scheduled[a.scheduled_event_id]
                kind = ("pricing activity" if name in PRICING_ACTIVITIES else
                        "documents (beside)" if queue.endswith("-documents") else "database activities")
                kinds[kind].append((started[a.scheduled_event_id], t))
                timeline.append((started[a.scheduled_event_id], t, f"{name} ({queue}, queued {started[a.scheduled_event_id] - scheduled[a.scheduled_event_id][0]:.3f})"))
            elif kind == "workflow_task_scheduled_event_attributes":
                tasks[e.event_id] = t
            elif kind == "workflow_task_completed_event_attributes":
                a = e.workflow_task_completed_event_attributes
                if a.scheduled_event_id in tasks:
                    kinds["workflow tasks"].append((tasks[a.scheduled_event_id], t))
                    timeline.append((tasks[a.scheduled_event_id], t, f"workflow task of {workflow_id.split(':')[0]}"))
            elif kind == "marker_recorded_event_attributes":  # a local activity, in the task before it
                timeline.append((t, t, f"  local activity recorded ({workflow_id.split(':')[0]})"))
    return kinds, [(name, data) for _, name, data in sorted(inputs)]


def _union(intervals: list[tuple[float, float]], lo: float, hi: float) -> float:
    total, end = 0.0, lo
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


# --- the engine's phases, in a fresh process --------------------------------------------------


def _replay(path: str) -> None:
    """Price the recorded pricing activities' inputs again, in order, in this process (warmed
    as a pricing pool process is), each phase timed; one JSON line per activity."""
    import importlib.util

    import threading

    t0 = time.perf_counter()
    from temporalio.testing import ActivityEnvironment

    from activities import catalogue, site_models, travel
    from activities.pricing import quote_pricing, uncertainty
    from models.settings import DATA_DIR
    import activities.pricing as engine
    import activities.pricing_runs as runs
    from activities.pricing import montecarlo

    lock = threading.Lock()
    # warmed as a pricing pool process is (activities/site_models.py warm_up; done here by
    # hand too, so the script measures a tree from before the warm-up the same way)
    for name in ("activities.catalogue", "activities.packages", "activities.pricing_runs", "activities.travel",
                 "activities.fast_quotes"):
        if importlib.util.find_spec(name):
            importlib.import_module(name)
    t1 = time.perf_counter()
    climate = engine.load_climate_data(DATA_DIR)
    t2 = time.perf_counter()
    warm = engine.pincode_site(climate, "560001")
    engine.build_site_model(climate, warm.query_district, warm.query_state, warm.latitude, warm.longitude)
    t3 = time.perf_counter()
    # what a pricing process pays once, before its first activity (the pool's warm-up)
    print(json.dumps({"activity": "warm-up", "total": t3 - t0, "cpu": time.process_time(), "note": "",
                      "phases": {"import": t1 - t0, "data": t2 - t1, "first fit": t3 - t2}}), flush=True)
    spent: dict[str, float] = {}
    local = threading.local()  # the phase this thread is timing: a call inside it counts as its

    def timed(owner, name: str, phase: str | typing.Callable):
        inner = getattr(owner, name, None)
        if inner is None:
            return

        def wrapper(*args, **kwargs):
            if getattr(local, "label", None):
                return inner(*args, **kwargs)
            label = local.label = phase(args, kwargs) if callable(phase) else phase
            t = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                with lock:
                    spent[label] = spent.get(label, 0.0) + time.perf_counter() - t
                local.label = None

        setattr(owner, name, wrapper)

    timed(site_models, "_build", "model")
    timed(catalogue, "propose_coverage_terms", "terms")
    timed(engine, "simulate_payouts", "simulation")
    timed(engine, "price_sample", "simulation")
    timed(uncertainty, "parameter_bands", "band")
    timed(runs, "_outcome", "burn, premium and report")
    timed(quote_pricing, "simulate_payouts", "simulation")
    timed(quote_pricing, "package_band", "band")
    # a stay: its simulation on the request's paths; its band's replicates on fewer
    stay_paths = {"n": 0}
    timed(montecarlo, "simulate_index", lambda args, kwargs: "simulation" if args[4] == stay_paths["n"] else "band")
    env = ActivityEnvironment()
    sites: dict[str, object] = {}
    for line in Path(path).read_text().splitlines():
        name, data = json.loads(line)
        data = data.encode()
        spent.clear()
        t, cpu = time.perf_counter(), time.process_time()
        note = ""
        if name == "propose_and_price_coverages":
            request = _decode(catalogue.propose_and_price_coverages, data)
            sites[request.proposal.site.target_id] = request.proposal.site
            result = env.run(catalogue.propose_and_price_coverages, request)
            note = f"{len(result.priced)} covers"
        elif name == "price_stay_nights":
            request = _decode(travel.price_stay_nights, data)
            stay_paths["n"] = request.simulations
            env.run(travel.price_stay_nights, request)
            note = f"{request.site.target_id} {request.first_night}..{request.last_night}"
        elif name == "price_package":
            try:
                from activities import packages

                request = _decode(packages.price_package, data)
                site = sites[request.monitoring_target_id]
                params = runs.load_parameters()
                lines, key = packages._key(request, params)
                packages.package_price_of(site_models.site_model(site), lines, key, request.simulations,
                                          request.seed, params)
                note = f"{sum(len(c) for c in lines)} covers in {len(lines)} line items"
            except Exception as exc:  # noqa: BLE001 - the package path is young: say so, go on
                note = f"not replayed ({type(exc).__name__}: {exc})"
        total, cpu = time.perf_counter() - t, time.process_time() - cpu
        print(json.dumps({"activity": name, "total": total, "cpu": cpu, "phases": dict(spent), "note": note}),
              flush=True)


def _decode(fn, data: bytes):
    import msgspec

    hints = typing.get_type_hints(fn)
    arg = next(v for k, v in hints.items() if k != "return")
    return msgspec.json.decode(data, type=arg)


# --- the run ----------------------------------------------------------------------------------


def _site(pin: str) -> tuple[str, float, float]:
    from activities.pricing import load_climate_data, pincode_site
    from models.db.reference_data import cell_centre, target_id
    from models.settings import DATA_DIR

    s = pincode_site(load_climate_data(DATA_DIR), pin)
    return target_id(*cell_centre(s.latitude, s.longitude)), s.latitude, s.longitude


async def run(args, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> bool:
    import httpx
    from temporalio.client import Client

    await start_temporal_and_migrate(procs, tmp, ports, env)
    credentials = json.loads(run_cli(["tenants", "create", "bench-cold"], env))
    tenant_id = credentials["tenant_id"]
    cli = [sys.executable, "-m", "api.cli"]
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle"], env)
    procs.start("pricing", [*cli, "worker", "--queue", "pricing"], env)
    procs.start("documents", [*cli, "worker", "--queue", "documents"], env)
    procs.start("api", [*cli, "api", "--port", str(ports.api)], env)
    api = f"http://127.0.0.1:{ports.api}"
    travel_headers = {"Authorization": f"Bearer {credentials['api_key']}", "x-tenant-id": tenant_id}
    temporal = await Client.connect(env["TEMPORAL_ADDRESS"])
    pids = {name: procs.pid(name) for name in ("temporal", "worker", "pricing", "documents", "api")}
    rows: list[tuple[str, str, float, dict[str, float]]] = []
    replay: list[tuple[str, bytes]] = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(300)) as http:

        await api_ready(http, api, procs)
        quote_headers = await tenant_headers(http, api, credentials)

        async def measured(kind: str, label: str, method: str, url: str, **kw) -> httpx.Response:
            await quiesce(pids, threshold=0.10, window=1.0, timeout=60)
            t0 = time.time()
            r = await http.request(method, url, headers=travel_headers if "/travel/" in url else quote_headers, **kw)
            t1 = time.time()
            if r.status_code == 400 and "no viable covers" in r.text:  # priced, but not quotable whole
                print(f"{kind:5} {label:34} skipped: {r.json()['detail']}", flush=True)
                return r
            if r.status_code != 200:
                raise RuntimeError(f"{method} {url} answered {r.status_code}: {r.text[:500]}")
            await asyncio.sleep(0.5)  # the histories' last events
            timeline: list = []
            kinds, inputs = _intervals(await _histories(temporal, t0, t1), timeline)
            split = {k: _union(v, t0, t1) for k, v in kinds.items()}
            split["rest (API, HTTP, client round trips, gaps)"] = (t1 - t0) - _union(
                [i for k, v in kinds.items() if k != "documents (beside)" for i in v], t0, t1)
            rows.append((kind, label, t1 - t0, split))
            replay.extend(inputs)
            print(f"{kind:5} {label:34} {t1 - t0:6.3f} s  " + "  ".join(f"{k} {v:.3f}" for k, v in split.items()),
                  flush=True)
            if args.timeline:
                for a, b, what in sorted(timeline):
                    print(f"        {a - t0:7.3f} .. {b - t0:7.3f}  {what}")
            return r

        year = dt.date.today().year + 1
        targets = [(pin, *_site(pin)) for pin in args.targets.split(",") if pin]
        stays = [(pin, *_site(pin)) for pin in args.stays.split(",") if pin]

        def quote(target: str, n: int) -> dict:
            return {"monitoringTargetId": target, "riskPeriodFrom": f"{year}-01-01", "riskPeriodTo": f"{year}-12-31",
                    "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}, "externalRef": f"cold-{n}"}

        check_in = dt.date.today() + dt.timedelta(days=30)
        stay = f"{check_in}/{check_in + dt.timedelta(days=3)}"
        for i, (pin, target, _, _) in enumerate(targets):
            await measured("quote", f"{pin} {target}", "POST", f"{api}/quotes", json=quote(target, i))
        for pin, target, lat, lon in stays:
            await measured("stay", f"{pin} {target}", "GET", f"{api}/travel/{tenant_id}/coverages",
                           params={"lat": f"{lat:.4f}", "long": f"{lon:.4f}", "time_range": stay})
        if targets:
            await measured("warm", f"quote {targets[0][0]} again", "POST", f"{api}/quotes",
                           json=quote(targets[0][1], len(targets)))
        if stays:
            pin, _, lat, lon = stays[0]
            await measured("warm", f"stay {pin} again", "GET", f"{api}/travel/{tenant_id}/coverages",
                           params={"lat": f"{lat:.4f}", "long": f"{lon:.4f}", "time_range": stay})

    # the engine's phases of the same activities, in one fresh warmed process
    file = tmp / "pricing-inputs.jsonl"
    file.write_text("".join(json.dumps([name, data.decode()]) + "\n" for name, data in replay))
    done = subprocess.run([sys.executable, __file__, "--replay", str(file)], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=900)
    if done.returncode:
        print(f"replay failed:\n{done.stderr[-3000:]}", file=sys.stderr)
    engine = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    print(f"\nengine phases of those pricing activities, priced again in one fresh warmed process "
          f"(wall seconds, and the CPU seconds of all its threads; seconds of each phase's calls; on two threads, the band overlaps the stay's simulation, "
          f"so phases may add up to more than the total; stay dates {stay}):")
    for e in engine:
        phases = PHASES if e["activity"] != "warm-up" else tuple(e["phases"])
        print(f"  {e['activity']:28} {e['total']:6.3f} (CPU {e.get('cpu', 0.0):.3f})  "
              + "  ".join(f"{p} {e['phases'].get(p, 0.0):.3f}" for p in phases)
              + (f"  ({e['note']})" if e["note"] else "  (once per pricing process, before its first activity)"))

    print("\np50 (seconds):")
    met = True
    for kind in ("quote", "stay", "warm"):
        chosen = [r for r in rows if r[0] == kind]
        if not chosen:
            continue
        p50 = statistics.median(r[2] for r in chosen)
        keys = list(chosen[0][3])
        split = "  ".join(f"{k} {statistics.median(r[3][k] for r in chosen):.3f}" for k in keys)
        print(f"  {kind:5} n={len(chosen)}  end to end {p50:.3f}   {split}")
        for name in {"quote": ("propose_and_price_coverages", "price_package"), "stay": ("price_stay_nights",)}.get(kind, ()):
            these = [e for e in engine if e["activity"] == name]
            if these:
                print(f"        {name} (engine, p50 of {len(these)}): total {statistics.median(e['total'] for e in these):.3f}"
                      f" (CPU {statistics.median(e.get('cpu', 0.0) for e in these):.3f})  "
                      + "  ".join(f"{p} {statistics.median(e['phases'].get(p, 0.0) for e in these):.3f}" for p in PHASES))
        if kind != "warm":
            goal = p50 <= 1.0
            met &= goal
            print(f"        goal p50 <= 1 s: {'met' if goal else 'NOT met'}")
    return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default=TARGETS, help="pin codes of the targets quoted cold (12 months)")
    ap.add_argument("--stays", default=STAYS, help="pin codes of the places of a first stay")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir afterwards")
    ap.add_argument("--timeline", action="store_true", help="print each request's activities")
    ap.add_argument("--replay", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.replay:
        _replay(args.replay)
        return 0
    return run_stack_bench("cold_quotes_stack", run, args, {}, ("api", "worker", "pricing"), args.keep)


if __name__ == "__main__":
    sys.exit(main())
