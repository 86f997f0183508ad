"""Benchmark: the tenant surface (quotes, conversions, policy lists) against baselines.

Starts its own stack in a temp dir on free loopback ports (never 7233/8000/8233): a
file-backed Temporal dev server (.venv/bin/temporal, the search attributes of
models/temporal/search_attributes.py, the SQLite pragmas and dynamic config of temporal-dev.yml, as
`make dev` runs it), `parametric migrate`, a tenant, one worker process per task queue
(lifecycle, pricing, documents) and the API as subprocesses, plus the baselines: a bare
Litestar app in its own uvicorn process (same settings as `parametric api`, 1 worker) and a
bare Temporal update workflow with its own worker process on the same Temporal server.
Then, with an async httpx driver (one AsyncClient, keep-alive, C concurrent callers, each
scenario bounded by count and time):

  (a) POST /quotes              12-month quote, catalogue already priced (warmed first)
  (b) PATCH /quotes/{id}        conversion to a policy draft, each quote converted once
  (f) fair baseline of (b)      the same database transaction (models.db.policies.convert_to_policy)
                                plus one bare update-with-start round trip, in an HTTP
                                handler of the bare app (bench/_bare.py)
  (b1), (f1)                    the same two at concurrency 1 (latency)
  (g1) PATCH /quotes/{id}       at concurrency 1 through a whole pricing burst: the catalogues
                                of six targets never priced before (about 200 coverages),
                                from the moment the pricing worker is busy until the burst
                                is over (every catalogue priced, its documents' workflows
                                waiting out their delay)
  (r1) PATCH /quotes/{id}       (only with r in --only) at concurrency 1 while that burst's
                                documents render, 20 s later
  (g) PATCH /quotes/{id}        at concurrency C during a second burst (three other targets)
  (c) GET /policies             random pages of 20 with --policies in the database
  (d) bare Litestar GET         trivial JSON
  (e) bare Temporal update      execute_update on a running workflow, returns at once

The --policies seed bypasses HTTP and Temporal: rows are written straight into the SQLite
file with the project's Piccolo tables, mirroring what models.db.quotes.insert_quote and
convert_quote write (quote + line items, policy + line items + policy items).

Before each measurement (but g1, r1, g) the bench waits (up to 2 min) until the stack is idle: the
first quote also starts catalogue document rendering that would otherwise eat the CPU of the
first scenarios. Besides req/s, p50 and p95 it prints the CPU each process spent per request
(/proc), which is steadier than req/s on a shared machine; --profile DIR records py-spy
profiles of the service processes during each scenario.

Goals: GET /policies >= 40 % of the bare endpoint's req/s (issue 5); conversions >= 70 % of
the fair baseline's req/s and p50 at concurrency 1 <= 1.5 x the baseline's (issue 9). The
ratio to the bare update (e), the yardstick before issue 9, is printed beside them. The
burst ratio (issue 25): conversion p50 at concurrency 1 during the pricing burst (g1) <= 1.5 x
the quiet one (b1) of the same run; beside it, the Temporal server's requests per second by
operation during (b1) and (g1) (its Prometheus endpoint) and what the burst's own workflows
asked of it during (g1), counted from their histories (bench/_burst.py).

Run:  .venv/bin/python bench/api.py [--requests 3000] [--conversions 200] [--concurrency 16]
                                    [--duration 20] [--policies 10000] [--only abcdefg(r)]
                                    [--single 60] [--burst-conversions 400] [--burst-seconds 180]
                                    [--keep] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import platform
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# bench/api.py would shadow the project's `api` package: import from the repository root.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from bench._burst import burst_work, server_requests, top_requests  # noqa: E402

TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001
# Targets whose catalogues are priced during scenario (g1): Pune, Kolkata, Bhubaneswar, Patna,
# Hyderabad, Ahmedabad (about 200 coverages); and during (g): Jaipur, Guwahati, Lucknow.
BURST_PIN_CODES = ["411001", "700001", "751001", "800001", "500001", "380001"]
BURST_PIN_CODES_C = ["302001", "781001", "226001"]
BARE_TASK_QUEUE = "bench-bare"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


# --- child processes ------------------------------------------------------------------------


class Processes:
    """Every long-running child, started in its own session (so Ctrl-C reaches only us and we
    stop them in order), stopped by pid: SIGTERM, then SIGKILL after a grace period."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.children: list[tuple[str, subprocess.Popen, object]] = []

    def start(self, name: str, cmd: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(self.log_dir / f"{name}.log", "wb")
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.children.append((name, proc, log))
        return proc

    def stop(self, name: str, sig: int = signal.SIGTERM, timeout: float = 30.0) -> None:
        for entry in list(self.children):
            child, proc, log = entry
            if child == name:
                if proc.poll() is None:
                    proc.send_signal(sig)
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                log.close()
                self.children.remove(entry)

    def pid(self, name: str) -> int:
        return next(p.pid for n, p, _ in self.children if n == name)

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.log_dir / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def check(self) -> None:
        for name, proc, _ in self.children:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with code {proc.returncode}; its log ends:\n{self.log_tail(name)}")

    def stop_all(self, grace: float = 10.0) -> None:
        for _, proc, _ in reversed(self.children):
            if proc.poll() is None:
                try:
                    proc.terminate()
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + grace
        for name, proc, log in reversed(self.children):
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"  {name} (pid {proc.pid}) did not stop in time: killing it", file=sys.stderr)
                proc.kill()
                proc.wait()
            log.close()
        self.children.clear()


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and of its living descendants (Linux /proc): the
    pricing worker's pool processes count as the pricing worker's."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo, seen = 0.0, [pid], False
    while todo:
        current = todo.pop()
        fields = _stat(current)
        if fields is None:
            continue
        seen = True
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        todo.extend(children.get(current, []))
    return total if seen else float("nan")


# --- measurement ----------------------------------------------------------------------------


@dataclass
class Result:
    key: str
    label: str
    concurrency: int
    ok: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    error_kinds: Counter = field(default_factory=Counter)
    cpu: dict[str, float] = field(default_factory=dict)  # process → CPU s during the run
    note: str = ""
    server: str = ""  # the Temporal server's busiest operations during the run (bench/_burst.py)
    work: object = None  # bench._burst.BurstWork: what a pricing burst asked of the server meanwhile
    started_at: float = 0.0  # epoch seconds
    ended_at: float = 0.0

    @property
    def rps(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        data = sorted(self.latencies)
        return data[min(len(data) - 1, max(0, math.ceil(q * len(data)) - 1))] * 1000


async def drive(
    label: str, key: str, call: Callable[[], Awaitable[object]], count: int, concurrency: int, duration: float,
    cpu_pids: dict[str, int] | None = None, stop: asyncio.Event | None = None,
) -> Result:
    """`count` calls (fewer if `duration` runs out, or once `stop` is set) by `concurrency`
    callers. A call returns a truthy value on success; anything else, or an exception,
    counts as an error."""
    result = Result(key=key, label=label, concurrency=concurrency)
    issued = 0
    deadline = math.inf

    async def caller() -> None:
        nonlocal issued
        while issued < count and time.perf_counter() < deadline and not (stop and stop.is_set()):
            issued += 1
            t0 = time.perf_counter()
            try:
                outcome = await call()
            except Exception as exc:  # noqa: BLE001 - a failed request is a data point
                outcome = type(exc).__name__ + (f": {exc}"[:120] if str(exc) else "")
            elapsed = time.perf_counter() - t0
            if outcome is True:
                result.ok += 1
                result.latencies.append(elapsed)
            else:
                result.errors += 1
                result.error_kinds[str(outcome)] += 1

    before = {name: cpu_seconds(pid) for name, pid in (cpu_pids or {}).items()}
    own_before = time.process_time()
    result.started_at = time.time()
    start = time.perf_counter()
    deadline = start + duration
    await asyncio.gather(*(caller() for _ in range(concurrency)))
    result.seconds = time.perf_counter() - start
    result.ended_at = time.time()
    result.cpu = {name: cpu_seconds(pid) - before[name] for name, pid in (cpu_pids or {}).items()}
    result.cpu["bench"] = time.process_time() - own_before
    return result


async def quiesce(pids: dict[str, int], threshold: float = 0.10, window: float = 1.0, timeout: float = 120.0) -> float:
    """Wait until the stack's processes together use less than `threshold` of a core over
    `window` seconds (background work such as catalogue pricing or a backlog of workflow
    tasks must not leak into the next measurement). Returns the last reading."""
    deadline = time.monotonic() + timeout
    while True:
        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        await asyncio.sleep(window)
        used = sum(cpu_seconds(pid) - before[name] for name, pid in pids.items()) / window
        if used < threshold or time.monotonic() > deadline:
            return used


def http_ok(expected: int = 200):
    def check(response) -> object:
        if response.status_code == expected:
            return True
        return f"HTTP {response.status_code}"

    return check


# --- the stack ------------------------------------------------------------------------------


@dataclass
class Ports:
    temporal: int
    temporal_http: int
    temporal_metrics: int
    api: int
    bare: int


def temporal_command(binary: str, db_file: Path, ports: Ports) -> list[str]:
    from models.temporal.search_attributes import SEARCH_ATTRIBUTES

    cmd = [
        binary, "server", "start-dev",
        "--ip", "127.0.0.1",
        "--port", str(ports.temporal),
        "--http-port", str(ports.temporal_http),
        "--metrics-port", str(ports.temporal_metrics),
        "--headless",
        "--db-filename", str(db_file),
        "--namespace", "default",
        "--log-level", "warn",
    ]
    for name, kind in SEARCH_ATTRIBUTES.items():
        cmd += ["--search-attribute", f"{name}={kind}"]
    # The SQLite pragmas and dynamic config `make dev` uses (temporal-dev.yml).
    from api.dev import dev_server_config, tuning_args

    return cmd + tuning_args(dev_server_config())


async def wait_for(predicate: Callable[[], Awaitable[bool] | bool], timeout: float, what: str, procs: Processes) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs.check()
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"{what} did not come up within {timeout:.0f} s")


async def run_cli_async(args: list[str], env: dict[str, str]) -> str:
    return await asyncio.to_thread(run_cli, args, env, 900)


def run_cli(args: list[str], env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(f"`parametric {' '.join(args)}` failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


# --- the seed (bypasses HTTP) ----------------------------------------------------------------


class RowWriter:
    """Rows of a Piccolo table as tuples in its column order, every column the table
    declares (missing ones get the column's default, as `Table(...)` would), written with
    one executemany. The values are the Python objects Piccolo would bind; the sqlite3
    adapters Piccolo registers (UUID, Decimal, date, datetime) store them exactly as a
    `Table.insert` does, about 30 times faster than compiling a multi-row INSERT."""

    def __init__(self, table) -> None:
        self.table = table
        self.columns = [(c._meta.name, c) for c in table._meta.columns]
        self.names = {name for name, _ in self.columns}
        names = ", ".join(f'"{c._meta.db_column_name}"' for c in table._meta.columns)
        marks = ", ".join("?" for _ in self.columns)
        self.sql = f"INSERT INTO {table._meta.get_formatted_tablename()} ({names}) VALUES ({marks})"
        self.rows: list[tuple] = []

    def add(self, values: dict) -> None:
        if not values.keys() <= self.names:
            raise KeyError(f"{self.table.__name__} has no column {sorted(values.keys() - self.names)}")
        self.rows.append(tuple(
            values[name] if name in values else column.get_default_value() for name, column in self.columns
        ))

    def take(self) -> list[tuple]:
        rows, self.rows = self.rows, []
        return rows


async def seed_policies(tenant_id: str, template_quote_id: str, count: int, chunk: int = 500) -> int:
    """`count` accepted quotes with their policy drafts, written straight to the database
    through the project's Piccolo engine: row for row what models.db.quotes.insert_quote (quote,
    line items) and models.db.policies.convert_quote (quote ACCEPTED, policy, new line items,
    policy items) write, copied from a real quote made through HTTP. No Temporal workflow
    exists for them: GET /policies reads the database only. Returns the rows written."""
    from models.clock import utcnow
    from models.db.records import LineItemRow, records
    from models.db.tables import (
        LineItem,
        Policy,
        PolicyItem,
        Quote,
    )
    from models.domain.index_catalog import BY_CODE
    from models.domain.periods import period_label

    # Raw rows (every column, to copy), and the covers parsed as the store parses them.
    template = await Quote.select().where(Quote.id == uuid.UUID(template_quote_id)).first()
    items = await LineItem.select().where(LineItem.quote_id == uuid.UUID(template_quote_id)).order_by(LineItem.position)
    if template is None or not items:
        raise RuntimeError("the template quote is not in the database")
    covers = [item.covers for item in records(LineItemRow, items)]
    cover_names = {  # convert_quote's PolicyItem.name, the same for every copy
        (cover.index_code, item["id"]): f"{BY_CODE[cover.index_code].name} {period_label(item['period_start'], item['period_end'])}"
        for item, item_covers in zip(items, covers) for cover in item_covers
    }
    tenant = uuid.UUID(tenant_id)
    base = utcnow() - dt.timedelta(seconds=count + 60)
    quotes, line_items, policies, policy_items = RowWriter(Quote), RowWriter(LineItem), RowWriter(Policy), RowWriter(PolicyItem)
    writers = (quotes, line_items, policies, policy_items)
    written = 0

    async def write(batches: list[tuple[str, list[tuple]]]) -> None:
        nonlocal written
        await connection.execute("BEGIN IMMEDIATE")  # like models.db.write_transaction: take the write lock up front
        for sql, rows in batches:
            await connection.executemany(sql, rows)
            written += len(rows)
        await connection.commit()

    connection = await Policy._meta.db.get_connection()  # the engine's own connection settings
    pending: asyncio.Future | None = None
    try:
        for first in range(0, count, chunk):
            for i in range(first, min(count, first + chunk)):
                if i % 50 == 0:
                    await asyncio.sleep(0)  # lets the previous chunk's write move to its next statement
                created = base + dt.timedelta(seconds=i)  # distinct, newest last
                quote_id, policy_id = uuid.uuid4(), uuid.uuid4()
                # insert_quote, then convert_quote's update of the quote
                quotes.add({**template, "id": quote_id, "status": "ACCEPTED", "state": "accepted",
                            "created_at": created, "updated_at": created})
                for item in items:
                    line_items.add({**item, "id": uuid.uuid4(), "quote_id": quote_id, "policy_id": None})
                # convert_quote
                policies.add(dict(
                    id=policy_id, tenant_id=tenant, quote_id=quote_id, kind=template["kind"], name=template["name"],
                    status="CREATED", external_ref=template["external_ref"],
                    inception_date=template["risk_period_from"], expiry_date=template["risk_period_to"],
                    currency=template["currency"], total_sum_insured_minor=template["total_sum_insured_minor"],
                    gross_premium_minor=template["gross_premium_minor"], risk_premium_minor=template["risk_premium_minor"],
                    created_at=created, updated_at=created,
                ))
                for item, item_covers in zip(items, covers):
                    new_id = uuid.uuid4()
                    line_items.add({**item, "id": new_id, "quote_id": None, "policy_id": policy_id})
                    for cover in item_covers:
                        policy_items.add(dict(
                            id=uuid.uuid5(new_id, str(cover.coverage_id)), tenant_id=tenant, policy_id=policy_id,
                            coverage_id=cover.coverage_id, name=cover_names[cover.index_code, item["id"]],
                            description=None, quantity=item["quantity"], currency=item["currency"],
                            sum_insured_minor=cover.limit_minor, total_sum_insured_minor=item["sum_insured_minor"],
                            total_min_payout_minor=item["min_payout_minor"],
                        ))
            # SQLite writes this chunk in aiosqlite's thread while the next one is built.
            if pending is not None:
                await pending
            pending = asyncio.ensure_future(write([(w.sql, w.take()) for w in writers]))
        if pending is not None:
            await pending
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
        await connection.close()
    return written


# --- the run --------------------------------------------------------------------------------


def quote_body(year: int, n: int) -> dict:
    return {
        "monitoringTargetId": TARGET,
        "riskPeriodFrom": f"{year}-01-01",
        "riskPeriodTo": f"{year}-12-31",
        "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"},
        "externalRef": f"bench-{n}",
    }


async def run(args: argparse.Namespace, procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> list[Result]:
    import httpx
    from temporalio.client import Client

    from bench._bare import BareUpdateWorkflow

    from bench._stack import start_temporal_and_migrate  # bench._stack imports this module

    t_setup = time.monotonic()
    await start_temporal_and_migrate(procs, tmp, ports, env)
    credentials = json.loads(run_cli(["tenants", "create", "bench", "--internal"], env))
    tenant_id = credentials["tenant_id"]

    cli = [sys.executable, "-m", "api.cli"]
    bare = [sys.executable, "-c", "from bench._bare import main; main()"]
    # One worker process per task queue, as `make dev` runs them.
    procs.start("worker", [*cli, "worker", "--queue", "lifecycle"], env)
    procs.start("pricing", [*cli, "worker", "--queue", "pricing"], env)
    procs.start("documents", [*cli, "worker", "--queue", "documents"], env)
    procs.start("api", [*cli, "api", "--port", str(ports.api)], env)
    procs.start("bare-http", [*bare, "http", "--port", str(ports.bare)], env)
    procs.start("bare-worker", [*bare, "worker", "--address", env["TEMPORAL_ADDRESS"], "--task-queue", BARE_TASK_QUEUE], env)

    api = f"http://127.0.0.1:{ports.api}"
    bare_url = f"http://127.0.0.1:{ports.bare}/bare"
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120), limits=limits) as http:

        async def healthy() -> bool:
            try:
                return (await http.get(f"{api}/health")).status_code == 200
            except httpx.HTTPError:
                return False

        async def bare_up() -> bool:
            try:
                return (await http.get(bare_url)).status_code == 200
            except httpx.HTTPError:
                return False

        await wait_for(healthy, 120, "API", procs)
        await wait_for(bare_up, 60, "bare Litestar endpoint", procs)
        r = await http.post(
            f"{api}/auth/{tenant_id}/oauth2/v2.0/token",
            data={"client_id": credentials["client_id"], "client_secret": credentials["client_secret"],
                  "scope": credentials["scope"], "grant_type": "client_credentials"},
        )
        r.raise_for_status()
        headers = {"Authorization": f"Bearer {r.json()['access_token']}", "x-tenant-id": tenant_id}
        temporal = await Client.connect(env["TEMPORAL_ADDRESS"])
        print(f"stack up in {time.monotonic() - t_setup:.1f} s (temp dir {tmp})", flush=True)

        # 2. Warm the catalogue: the first quote for the target prices its coverages.
        year = dt.date.today().year + 1
        t0 = time.monotonic()
        r = await http.post(f"{api}/quotes", json=quote_body(year, 0), headers=headers, timeout=900)
        if r.status_code != 200:
            raise RuntimeError(f"warm-up quote failed: {r.status_code} {r.text[:500]}")
        template_id = r.json()["id"]
        print(f"catalogue warm: first POST /quotes for {TARGET} {year} took {time.monotonic() - t0:.1f} s", flush=True)
        running = Counter([wf.workflow_type async for wf in temporal.list_workflows('ExecutionStatus="Running"')])
        print(f"  running workflows after the warm-up: {dict(running)} (measurements wait until the stack is idle)",
              flush=True)

        # 3. Seed policies straight into the database.
        t0 = time.monotonic()
        rows = await seed_policies(tenant_id, template_id, args.policies) if "c" in args.only else 0
        page = (await http.get(f"{api}/policies?size=1", headers=headers)).json()
        seeded_total = page["totalElements"]
        print(f"seed: {args.policies:,} policies ({rows:,} rows: quotes, line items, policies, policy items, as "
              f"insert_quote + convert_quote write them) in {time.monotonic() - t0:.1f} s, written directly into the "
              f"SQLite file through the project's Piccolo engine; the seed BYPASSES HTTP and Temporal (no workflows "
              f"for these policies). GET /policies now reports {seeded_total:,}.", flush=True)

        pyspy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy") or "py-spy"
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
        pids = {
            name: procs.pid(name)
            for name in ("api", "worker", "pricing", "documents", "temporal", "bare-http", "bare-worker")
        }
        C, N, D, W = args.concurrency, args.requests, args.duration, args.warmup
        results: list[Result] = []

        profile_targets = {"quotes": ["api", "worker"], "convert": ["api", "worker"], "policies": ["api"],
                           "bare_http": ["bare-http"], "bare_update": ["bare-worker"],
                           "bare_convert": ["bare-http", "bare-worker"], "convert_1": ["api", "worker"],
                           "bare_convert_1": ["bare-http"], "convert_burst": ["api", "worker"],
                           "convert_burst_1": ["api", "worker"], "convert_render_1": ["api", "worker"]}

        async def scenario(
            label: str, key: str, call, count: int, warmup: int = W, concurrency: int | None = None, idle: bool = True,
            duration: float | None = None, stop: asyncio.Event | None = None,
        ) -> Result:
            C_ = concurrency or C
            if warmup:
                await drive(label, key, call, warmup, C_, D)
            t_idle = time.monotonic()
            busy = await quiesce(pids) if idle else 0.0
            waited = time.monotonic() - t_idle
            if busy >= 0.10:
                print(f"  warning: the stack still used {busy:.0%} of a core after {waited:.0f} s of waiting; "
                      f"measuring anyway", flush=True)
            elif waited > 3:
                print(f"  (waited {waited:.0f} s for the stack to go idle)", flush=True)
            spies = []
            if args.profile:
                for name in profile_targets[key]:
                    spy = f"py-spy-{key}-{name}"
                    out = args.profile / f"{key}-{name}.collapsed"
                    procs.start(spy, [pyspy, "record", "--pid", str(pids[name]), "--rate", "200", "--nonblocking",
                                      "--format", "raw", "--output", str(out)] + (["--gil"] if args.profile_gil else []), env)
                    spies.append(spy)
                await asyncio.sleep(1.0)  # let py-spy attach
            server_before = server_requests(ports.temporal_metrics)
            result = await drive(label, key, call, count, C_, duration or D, pids, stop=stop)
            result.server = top_requests(server_before, server_requests(ports.temporal_metrics), result.seconds)
            for spy in spies:
                procs.stop(spy, signal.SIGINT)
            results.append(result)
            print(f"  {label:<44} {result.ok:>6} ok {result.errors:>4} err  {result.rps:>8.1f} req/s  "
                  f"p50 {result.pct(0.5):>7.1f} ms  p95 {result.pct(0.95):>7.1f} ms", flush=True)
            if result.errors:
                print(f"    errors: {dict(result.error_kinds.most_common(3))}", flush=True)
            return result

        print(f"\nmeasuring: concurrency {C}, at most {N} requests ({args.conversions} updates) or {D:.0f} s "
              f"per scenario, {W} warm-up calls first; per-client rate limit raised to "
              f"{float(env['RATE_LIMIT_PER_SECOND']):,.0f}/s so it never throttles", flush=True)

        # (d) bare Litestar endpoint
        async def bare_get():
            return http_ok()(await http.get(bare_url))

        if "d" in args.only:
            await scenario("(d) bare Litestar GET /bare", "bare_http", bare_get, N)

        # (c) GET /policies, random pages
        pages = max(1, math.ceil(seeded_total / 20))
        rng = random.Random(5)

        async def list_policies():
            return http_ok()(await http.get(f"{api}/policies", params={"page": rng.randrange(pages), "size": 20},
                                            headers=headers))

        if "c" in args.only:
            await scenario("(c) GET /policies?page=rand&size=20", "policies", list_policies, N)

        # (a) POST /quotes, catalogue warm; the quotes made here are converted in (b).
        made: deque[str] = deque()
        counter = iter(range(1, 10**9))

        async def create_quote():
            response = await http.post(f"{api}/quotes", json=quote_body(year, next(counter)), headers=headers)
            if response.status_code != 200:
                return f"HTTP {response.status_code}"
            made.append(response.json()["id"])
            return True

        if "a" in args.only:
            await scenario("(a) POST /quotes (12 months, warm)", "quotes", create_quote, N)

        # (e) bare Temporal update round trip: one running workflow per update, each idle
        # (first workflow task done) before the clock starts, like the quotes' workflows.
        wanted = args.conversions + W
        if "e" not in args.only:
            wanted = 0
        run_id = uuid.uuid4().hex[:8]
        ids = [f"bare-{run_id}-{i}" for i in range(wanted)]
        sem = asyncio.Semaphore(C)

        async def start(wid: str):
            async with sem:
                return await temporal.start_workflow(BareUpdateWorkflow.run, id=wid, task_queue=BARE_TASK_QUEUE)

        t0 = time.monotonic()
        handles = await asyncio.gather(*(start(w) for w in ids))
        t_started = time.monotonic() - t0

        async def settled(handle) -> None:
            async with sem:
                while (await handle.describe()).raw_description.workflow_execution_info.history_length < 4:
                    await asyncio.sleep(0.1)

        await asyncio.wait_for(asyncio.gather(*(settled(h) for h in handles)), 300)
        print(f"  (started {wanted} bare workflows in {t_started:.1f} s, all idle after {time.monotonic() - t0:.1f} s)",
              flush=True)
        pending = deque(handles)

        async def bare_update():
            return (await pending.popleft().execute_update(BareUpdateWorkflow.ping)) == "pong"

        if "e" in args.only:
            await scenario("(e) bare Temporal update round trip", "bare_update", bare_update, args.conversions)

        # (b) conversions against (f) their fair baseline: the same database transaction plus
        # one bare update-with-start (bench/_bare.py), at concurrency C and at 1; (g) the
        # same conversions while a burst of catalogue pricing runs. Every quote is converted
        # once; the quotes (a) made come first, the rest are made here.
        convert_keys = [k for k in "bfg" if k in args.only]
        n_one = args.single
        wanted = {
            "b": args.conversions + W + (n_one + 5 if "b" in args.only else 0),
            "f": args.conversions + W + (n_one + 5 if "f" in args.only else 0),
            "g1": args.burst_conversions,
            "gr": args.burst_conversions if "r" in args.only else 0,
            "g": args.conversions + 5,
        }
        wanted = {k: v for k, v in wanted.items() if k[0] in convert_keys}
        short = sum(wanted.values()) - len(made)
        if short > 0:
            t0 = time.monotonic()
            await drive("top-up", "topup", create_quote, short, C, 900)
            print(f"  (created {short} more quotes to convert in {time.monotonic() - t0:.1f} s)", flush=True)
        pool = deque(made)
        queues = {k: deque(pool.popleft() for _ in range(min(n, len(pool)))) for k, n in wanted.items()}

        def converter(queue: deque):
            async def convert():
                response = await http.patch(f"{api}/quotes/{queue.popleft()}", headers=headers)
                return http_ok()(response)
            return convert

        def bare_converter(queue: deque):
            async def convert():
                response = await http.patch(f"http://127.0.0.1:{ports.bare}/bare-convert/{tenant_id}/{queue.popleft()}")
                return http_ok()(response)
            return convert

        if "f" in args.only:
            await scenario("(f) baseline: same DB txn + bare update-with-start", "bare_convert",
                           bare_converter(queues["f"]), min(args.conversions, len(queues["f"]) - W - n_one - 5))
        if "b" in args.only:
            await scenario("(b) PATCH /quotes/{id} (convert)", "convert", converter(queues["b"]),
                           min(args.conversions, len(queues["b"]) - W - n_one - 5))
        if "f" in args.only:
            await scenario("(f1) baseline at concurrency 1", "bare_convert_1", bare_converter(queues["f"]), n_one,
                           warmup=5, concurrency=1)
        if "b" in args.only:
            await scenario("(b1) PATCH /quotes/{id} at concurrency 1", "convert_1", converter(queues["b"]), n_one,
                           warmup=5, concurrency=1)
        if "g" in args.only:
            await burst_scenarios(args, env, pids, scenario, converter, queues, temporal)
        results_by_key = {r.key: r for r in results}
        final_total = (await http.get(f"{api}/policies?size=1", headers=headers)).json()["totalElements"]
        if "policies" in results_by_key:
            results_by_key["policies"].note = f"{seeded_total:,} policies in the DB"
        print(f"  ({final_total:,} policies in the database after the conversions)", flush=True)
    return results


async def wait_until_busy(pid: int, timeout: float = 180.0) -> float:
    """Seconds until the process (the pricing worker) uses more than half a core for a second."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        used = cpu_seconds(pid)
        await asyncio.sleep(1.0)
        if cpu_seconds(pid) - used > 0.5:
            break
    return time.monotonic() - t0


async def burst_scenarios(args, env, pids, scenario, converter, queues, temporal) -> None:
    """(g1) Conversions at concurrency 1 through a whole pricing burst: the catalogues of three
    targets never priced before (`parametric catalogue build --no-wait`), measured from the
    moment the pricing worker is busy until the burst is over: the CLI has returned (every
    catalogue priced) and the pricing and documents workers have been idle for a second (fit
    summaries stored, documents' workflows waiting out RENDER_DELAY; the renders that follow
    are not part of the window). (g) Conversions at concurrency C during a second burst of
    three other targets, for --conversions or --duration, as before."""
    for key, label, pins, concurrency in (
        ("convert_burst_1", "(g1) PATCH /quotes/{id} at conc. 1 during a pricing burst", BURST_PIN_CODES, 1),
        ("convert_burst", "(g) PATCH /quotes/{id} during a pricing burst", BURST_PIN_CODES_C, args.concurrency),
    ):
        whole = concurrency == 1
        queue = queues["g1" if whole else "g"]
        burst = asyncio.ensure_future(run_cli_async(["catalogue", "build", *pins, "--no-wait"], env))
        print(f"  (pricing burst of {', '.join(pins)} under way after {await wait_until_busy(pids['pricing']):.0f} s)",
              flush=True)
        over = asyncio.Event()

        async def watch() -> None:
            await asyncio.shield(burst)
            quiet = {name: pids[name] for name in ("pricing", "documents")}
            while await quiesce(quiet, threshold=0.10, window=1.0, timeout=1.0) >= 0.10:
                pass
            over.set()

        watcher = asyncio.ensure_future(watch()) if whole else None
        before = cpu_seconds(pids["pricing"])
        count = len(queue) if whole else min(args.conversions, len(queue))
        result = await scenario(label, key, converter(queue), count, warmup=0, concurrency=concurrency, idle=False,
                                duration=args.burst_seconds if whole else None, stop=over if whole else None)
        result.note = f"pricing worker busy {100 * (cpu_seconds(pids['pricing']) - before) / result.seconds:.0f} % of a core"
        output = await burst
        if watcher is not None:
            if not over.is_set():
                print(f"    warning: the burst outlasted (g1) ({result.ok + result.errors} conversions, "
                      f"{result.seconds:.0f} s): raise --burst-conversions or --burst-seconds", flush=True)
            watcher.cancel()
            coverages = sum(int(n) for n in re.findall(r": (\d+) coverages", output))
            result.work = await burst_work(temporal, result.started_at, result.ended_at, coverages)
            if "r" in args.only:
                await render_scenario(args, pids, scenario, converter(queues["gr"]))


async def render_scenario(args, pids, scenario, convert) -> None:
    """(r1) Conversions at concurrency 1 while the (g1) burst's documents render (they start
    RENDER_DELAY after each catalogue's pricing, one activity at a time on the documents
    worker): from the moment the documents worker is busy, for --burst-seconds / 6 or
    --burst-conversions."""
    print(f"  (the burst's documents rendering after {await wait_until_busy(pids['documents']):.0f} s)", flush=True)
    before = cpu_seconds(pids["documents"])
    result = await scenario("(r1) PATCH /quotes/{id} at conc. 1 while the burst's documents render", "convert_render_1",
                            convert, args.burst_conversions, warmup=0, concurrency=1, idle=False,
                            duration=args.burst_seconds / 6)
    result.note = f"documents worker busy {100 * (cpu_seconds(pids['documents']) - before) / result.seconds:.0f} % of a core"


def report(args: argparse.Namespace, results: list[Result]) -> bool:
    by = {r.key: r for r in results}
    order = ["quotes", "convert", "bare_convert", "convert_1", "bare_convert_1", "convert_burst_1", "convert_render_1",
             "convert_burst", "policies",
             "bare_http", "bare_update"]
    header = f"{'scenario':<52} {'n':>6} {'err':>4} {'conc':>4} {'req/s':>9} {'p50 ms':>8} {'p95 ms':>8}"
    print("\n" + header)
    print("-" * len(header))
    order = [key for key in order if key in by]
    for key in order:
        r = by[key]
        print(f"{r.label:<52} {r.ok:>6} {r.errors:>4} {r.concurrency:>4} {r.rps:>9.1f} {r.pct(0.5):>8.1f} {r.pct(0.95):>8.1f}"
              + (f"  {r.note}" if r.note else ""))

    procs = ["api", "worker", "pricing", "documents", "temporal", "bare-http", "bare-worker", "bench"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"\nCPU ms per successful request, by process ({cores} cores = {1000 * cores} ms of CPU per wall second; "
          f"bench = this driver):")
    head = f"{'scenario':<52} " + " ".join(f"{p:>11}" for p in procs)
    print(head)
    for key in order:
        r = by[key]
        cells = " ".join(f"{(1000 * r.cpu.get(p, float('nan')) / r.ok) if r.ok else float('nan'):>11.2f}" for p in procs)
        print(f"{r.label:<52} {cells}")

    bare = by.get("bare_http")
    driver = bare.cpu.get("bench", 0.0) / bare.seconds if bare and bare.seconds else 0.0
    if driver > 0.6:
        print(f"\nnote: during (d) this driver itself used {driver:.0%} of a core ({1000 * bare.cpu['bench'] / bare.ok:.2f} ms "
              f"per request) against {1000 * bare.cpu.get('bare-http', 0.0) / bare.ok:.2f} ms in the bare server: the bare "
              f"baseline is bounded by the driver, so the first ratio is, if anything, flattered.")

    ok = True
    print("\ngoals:")

    def goal(name: str, value: float | None, target: float, text: str, higher: bool = True) -> None:
        nonlocal ok
        if value is None:
            print(f"  {name:<58} not measured (--only {args.only})")
            ok = False
            return
        passed = value >= target if higher else value <= target
        ok &= passed
        print(f"  {name:<58} {text}   goal {'>=' if higher else '<='} {target:.0%}   {'PASS' if passed else 'FAIL'}")

    def ratio(num: str, den: str, attr: str = "rps") -> tuple[float | None, str]:
        if num not in by or den not in by:
            return None, ""
        a = by[num].rps if attr == "rps" else by[num].pct(0.5)
        b = by[den].rps if attr == "rps" else by[den].pct(0.5)
        unit = "req/s" if attr == "rps" else "ms p50"
        value = a / b if b else 0.0
        if by[num].errors:
            value = 0.0
        return value, f"{a:>8.1f} / {b:>8.1f} {unit} = {value:>6.1%}"

    value, text = ratio("policies", "bare_http")
    goal("GET /policies req/s / bare Litestar req/s (issue 5)", value, 0.40, text)
    value, text = ratio("convert", "bare_convert")
    goal("conversions req/s / fair baseline (f) req/s (issue 9)", value, 0.70, text)
    value, text = ratio("convert_1", "bare_convert_1", "p50")
    goal("conversion p50 at concurrency 1 / baseline (f1) p50", value, 1.50, text, higher=False)
    value, text = ratio("convert", "bare_update")
    if value is not None:
        print(f"  {'(old yardstick) conversions req/s / bare update req/s':<58} {text}")
    value, text = ratio("convert_burst_1", "convert_1", "p50")
    goal("burst ratio: conc. 1 conversion p50, pricing burst (g1) / quiet (b1)", value, 1.50, text, higher=False)
    value, text = ratio("convert_render_1", "convert_1", "p50")
    if value is not None:
        print(f"  {'conc. 1: conversion p50 while the burst renders (r1) / quiet':<58} {text}")
    value, text = ratio("convert_burst", "convert", "p50")
    if value is not None:
        print(f"  {f'conc. {args.concurrency}: conversion p50 during a pricing burst / quiet':<58} {text}")
    if "convert_1" in by or "convert_burst_1" in by:
        print("\nTemporal server during the conc. 1 scenarios (frontend requests per second, busiest first):")
        for key in ("convert_1", "convert_burst_1", "convert_render_1"):
            if key in by:
                print(f"  {by[key].label:<58} {by[key].server}")
        work = by["convert_burst_1"].work if "convert_burst_1" in by else None
        if work is not None:
            print(f"the burst's own workflows during (g1) ({by['convert_burst_1'].seconds:.1f} s): {work.line()}")
    return ok


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"machine: nproc {affinity} ({cpu}); Python {platform.python_version()} "
            f"({platform.python_implementation()}); {platform.system()} {platform.release()}; load average at start {load}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=3000, help="max requests per HTTP scenario (a, c, d)")
    ap.add_argument("--conversions", type=int, default=200, help="max conversions (b, f, g) and bare updates (e)")
    ap.add_argument("--concurrency", "-c", type=int, default=16, help="concurrent callers")
    ap.add_argument("--duration", type=float, default=20.0, help="max seconds per scenario")
    ap.add_argument("--warmup", type=int, default=20, help="unmeasured calls before each scenario")
    ap.add_argument("--policies", type=int, default=10_000, help="policies seeded in the database (bypasses HTTP)")
    ap.add_argument("--only", default="abcdefg",
                    help="scenarios to run, e.g. 'bg' (default: all of abcdefg; add r for (r1), with g)")
    ap.add_argument("--single", type=int, default=60, help="conversions measured at concurrency 1 (b1, f1)")
    ap.add_argument("--burst-conversions", type=int, default=400,
                    help="at most this many conversions at concurrency 1 through the pricing burst (g1)")
    ap.add_argument("--burst-seconds", type=float, default=180.0, help="at most this long for (g1)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (logs, databases) afterwards")
    ap.add_argument("--profile", type=Path, metavar="DIR",
                    help="record py-spy profiles (collapsed stacks, one file per scenario and process) into DIR "
                         "while measuring; needs py-spy (pip install py-spy) and perturbs the figures")
    ap.add_argument("--profile-gil", action="store_true",
                    help="with --profile: sample only threads holding the GIL (Python CPU, not waits)")
    args = ap.parse_args()
    if args.profile:
        args.profile = args.profile.resolve()

    print(machine())
    print(f"command: {shlex.join([sys.executable if sys.argv[0].endswith('.py') else sys.argv[0], *sys.argv])}", flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="parametric-bench-"))
    (tmp / "temporal").mkdir()
    (tmp / "logs").mkdir()
    while True:  # five distinct free loopback ports, none of the service's defaults
        picked = [free_port() for _ in range(5)]
        if len(set(picked)) == 5 and not set(picked) & {7233, 8000, 8233}:
            break
    ports = Ports(*picked)
    # Configure this process (the seed opens the same SQLite file) and the children alike.
    os.environ.update({
        "PARAMETRIC_VAR_DIR": str(tmp / "var"),
        "API_HOST": "127.0.0.1",
        "API_PORT": str(ports.api),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{ports.api}",
        "TEMPORAL_ADDRESS": f"127.0.0.1:{ports.temporal}",
        "TEMPORAL_NAMESPACE": "default",
        "PICCOLO_CONF": "models.db.piccolo_conf",
        "PYTHONUNBUFFERED": "1",
        # The per-client token bucket (api/ratelimit.py, default 100/s) stays in the request
        # path but never throttles: the bench measures capacity, and uses a single client.
        "RATE_LIMIT_PER_SECOND": "1000000",
        "RATE_LIMIT_BURST": "1000000",
    })
    for name in ("DATABASE_URL", "AUTH_JWKS_URL", "SIGNING_KEY_PATH", "TEMPORAL_TASK_QUEUE"):
        os.environ.pop(name, None)
    env = dict(os.environ)
    procs = Processes(tmp / "logs")

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    code = 1
    try:
        try:
            import uvloop

            runner = uvloop.run
        except ImportError:
            runner = asyncio.run
        results = runner(run(args, procs, tmp, ports, env))
        report(args, results)
        print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
              + (f"; py-spy profiles in {args.profile}" if args.profile else ""))
        code = 0
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the stack", file=sys.stderr)
        code = 130
    except Exception as exc:  # noqa: BLE001
        print(f"\nbench/api.py failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        for name, _, _ in procs.children:
            print(f"--- {name} log (last lines) ---\n{procs.log_tail(name, 15)}", file=sys.stderr)
        code = 1
    finally:
        procs.stop_all()
        if args.keep or code == 1:
            print(f"kept {tmp} (logs in {tmp / 'logs'})", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
