"""Many processes, nothing lost (issue 25; issue 33): two API processes and two worker
processes **per task queue** (lifecycle, pricing, documents, webhooks, settlement: ten, each
`python -m workflows.worker --queue Q`) against one Temporal server and one PostgreSQL, all
real processes. A mixed load runs through them: quotes, conversions and activations over
HTTP (sent to either API, retried on the other with the same Idempotency-Key when one
fails), observations from a data staff member, a month end of 200 policies settled, and the
webhooks it sends to a slow real receiver.

The kills land on the process that holds the work, checked through Temporal: while a
month end's `settle_period` runs, the settlement worker whose identity the pending activity
names (`last_worker_identity`; each process's identity is `<pid>@<host>`) and the lifecycle
worker that completed the settlement workflow's last task (its sticky owner) are SIGKILLed,
with one API process, and PostgreSQL is restarted; then, while a webhook delivery is in
flight, the webhooks worker that holds it. Afterwards each piece of killed work must have
been finished by the other worker of its queue: the activity's final attempt (> 1) by the
other process, the settlement workflow's later tasks by the other lifecycle worker.

Then the books: lost 0; duplicated 0, counting only what the database does not already
forbid (a policy per quote, a payout per settlement key and a delivery per message are
unique keys, so counting them could never fail): quotes per externalRef, observation rows
per day, SETTLEMENT events per cover and policy (their key carries the revision), webhook
messages per event in the outbox, and messages the receiver got more than once under
different `webhook-id`s (0: Standard Webhooks' at-least-once allows the same id twice, which
is reported, not refused); every policy in the state its workflow says; both APIs answered.

PostgreSQL only (the suite's PostgreSQL run, `make test-postgres`): the test makes a
cluster of its own (tests/test_database_down.py's PrivateCluster) so that it can restart
it. Its own Temporal dev server, var/ directory and task queue."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx
import pytest
from litestar import Litestar, Request, Response, post

from tests.conftest import Server, free_port, temporal_binary
from tests.test_database_down import PrivateCluster, _pg_bin

pytestmark = pytest.mark.skipif(
    not (os.environ.get("TEST_DATABASE_URL") or "").startswith("postgres"),
    reason="the PostgreSQL run's test (make test-postgres): it restarts a PostgreSQL of its own",
)

QUOTE_FLOWS = 24  # quote → conversion → activation, each over HTTP
SEEDED_POLICIES = 200  # the month end: policies in force over last month at two targets
OBSERVATION_BATCHES = 6
PIN, TARGET = "560001", "IN-12.875N-077.625E"
QUEUES = ("lifecycle", "pricing", "documents", "webhooks", "settlement")
DELIVERY_SECONDS = 1.5  # the receiver's answer time
REPO = Path(__file__).resolve().parents[1]

SEED = """
import asyncio, datetime as dt, json, sys, uuid
from decimal import Decimal
from bench._settlement_seed import free_targets, months_back, seed
from models.db.core import close_pool, open_pool
from models.db.tables import LineItem, Policy, PolicyItem

async def main():
    await open_pool()
    tenant = uuid.UUID(sys.argv[1])
    months = months_back(dt.date.today(), 1)
    targets = await free_targets(2)
    # a wet month at the first target (its excess covers pay), a dry one at the second (deficit)
    out = await seed(int(sys.argv[2]), targets, months, {targets[0]: [Decimal(420)], targets[1]: [Decimal(2)]})
    for table in (Policy, LineItem, PolicyItem):
        await table.update({table.tenant_id: tenant}).where(table.tenant_id == out["tenant"])
    await close_pool()
    print(json.dumps({"targets": targets, "start": str(months[0][0]), "end": str(months[0][1]),
                      "policies": [str(p) for p in out["policies"]]}))

asyncio.run(main())
"""

BOOKS = """
import asyncio, json, sys, uuid
from models.db.core import close_pool, open_pool
from models.db.tables import Policy

async def main():
    await open_pool()
    tenant = uuid.UUID(sys.argv[1])
    q = lambda sql, *a: Policy.raw(sql, *a)
    out = {
        "quotes": [str(r["id"]) for r in await q("SELECT id FROM quote WHERE tenant_id = {}", tenant)],
        "quote_refs": [r["external_ref"] for r in await q("SELECT external_ref FROM quote WHERE tenant_id = {}", tenant)],
        "policies": {str(r["id"]): [str(r["quote_id"]), r["status"]]
                     for r in await q("SELECT id, quote_id, status FROM policy WHERE tenant_id = {}", tenant)},
        "events": [[str(r["policy_id"]), str(r["coverage_id"]), r["kind"], r["payout_minor"], r["settlement_key"]]
                   for r in await q("SELECT policy_id, coverage_id, kind, payout_minor, settlement_key "
                                    "FROM parametric_event WHERE tenant_id = {}", tenant)],
        "payouts": [[r["settlement_key"], r["amount_minor"]]
                    for r in await q("SELECT settlement_key, amount_minor FROM payout WHERE tenant_id = {}", tenant)],
        "messages": [str(r["id"]) for r in await q("SELECT id FROM webhook_message WHERE tenant_id = {}", tenant)],
        "message_payloads": [r["payload"] if isinstance(r["payload"], str) else json.dumps(r["payload"]) for r in await q(
            "SELECT payload FROM webhook_message WHERE tenant_id = {}", tenant)],
        "deliveries": [[r["message_id"], r["status"]] for r in await q(
            "SELECT message_id, status FROM webhook_delivery WHERE tenant_id = {}", tenant)],
        "observations": [[r["observed_on"].isoformat(), r["n"]] for r in await q(
            "SELECT observed_on, COUNT(*) AS n FROM observation WHERE monitoring_target_id = {} AND source = 'mp-test' "
            "GROUP BY observed_on", sys.argv[2])],
        "settlements": [[r["monitoring_target_id"], r["state"], r["policies"]] for r in await q(
            "SELECT monitoring_target_id, state, policies FROM settlement WHERE monitoring_target_id IN ({}, {})",
            sys.argv[3], sys.argv[4])],
    }
    await close_pool()
    print(json.dumps(out))

asyncio.run(main())
"""


def _python(env: dict[str, str], code: str, *args: str, timeout: float = 300) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _cli(env: dict[str, str], *args: str) -> str:
    return _python(env, "from api.cli import main; main()", *args)


class Processes:
    """The stack's processes, each in a session of its own (SIGKILL takes its children too)."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.running: dict[str, subprocess.Popen] = {}

    def start(self, name: str, args: list[str], env: dict[str, str]) -> None:
        log = (self.logs / f"{name}.log").open("wb")
        self.running[name] = subprocess.Popen(args, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                              start_new_session=True)

    def kill(self, name: str) -> None:
        os.killpg(self.running[name].pid, signal.SIGKILL)
        self.running[name].wait(30)

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def stop_all(self) -> None:
        for process in self.running.values():
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        for process in self.running.values():
            try:
                process.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


class Client:
    """A tenant's (or staff member's) calls, to either API process: a call that fails (the
    process is gone, the database is restarting: 5xx, 429, an in-flight 409) is sent again,
    to the other process first, with the same Idempotency-Key."""

    def __init__(self, http: httpx.AsyncClient, bases: list[str], credentials: dict) -> None:
        self.http, self.bases, self.credentials = http, bases, credentials
        self.token: str | None = None
        self.answered: Counter[str] = Counter()  # 2xx answers per API process
        self.turn = 0

    async def _token(self, base: str) -> str:
        c = self.credentials
        r = await self.http.post(f"{base}/auth/{c['tenant_id']}/oauth2/v2.0/token", data={
            "client_id": c["client_id"], "client_secret": c["client_secret"], "scope": c["scope"],
            "grant_type": "client_credentials"})
        r.raise_for_status()
        return r.json()["access_token"]

    async def call(self, method: str, path: str, key: str | None = None, **kw) -> httpx.Response:
        last = None
        for attempt in range(240):
            base = self.bases[(self.turn + attempt) % len(self.bases)]
            try:
                if self.token is None:
                    self.token = await self._token(base)
                headers = {"Authorization": f"Bearer {self.token}", "x-tenant-id": self.credentials["tenant_id"]}
                if key:
                    headers["Idempotency-Key"] = key
                r = await self.http.request(method, f"{base}{path}", headers=headers, **kw)
            except httpx.TransportError as exc:
                last = repr(exc)
                await asyncio.sleep(0.25)
                continue
            in_flight = r.status_code == 409 and "in flight" in r.text
            if r.status_code in (429, 500, 502, 503, 504) or in_flight:
                last = f"{r.status_code} {r.text[:200]}"
                await asyncio.sleep(min(float(r.headers.get("retry-after", "0.5") or 0.5), 2.0))
                continue
            self.turn += 1
            if r.status_code < 300:
                self.answered[base] += 1
            return r
        raise AssertionError(f"{method} {path}: no answer after retries; last {last}")


class ManyClientsCluster(PrivateCluster):
    """PrivateCluster with room for twelve service processes, each with its own pool
    (asyncpg's default: 10 connections; PostgreSQL's default max_connections is 100)."""

    def start(self) -> None:
        conf = self.dir / "data" / "postgresql.conf"
        if "max_connections = 300" not in conf.read_text():
            with conf.open("a") as out:
                out.write("\nmax_connections = 300\n")
        super().start()


class SlowReceiver:
    """A tenant's endpoint that takes DELIVERY_SECONDS to answer (so a delivery is in flight
    long enough to kill its worker); it notes each request as it arrives."""

    def __init__(self) -> None:
        self.received: list[tuple[dict, bytes]] = []

        @post("/hook")
        async def hook(request: Request) -> Response:
            self.received.append((dict(request.headers), await request.body()))
            await asyncio.sleep(DELIVERY_SECONDS)
            return Response(None, status_code=200)

        self.app = Litestar([hook])


def _event_of(body: bytes | str) -> str:
    """What a webhook reports, without when it was written: its type and data."""
    payload = json.loads(body)
    return json.dumps({"type": payload.get("type"), "data": payload.get("data")}, sort_keys=True)


async def _wait(check, seconds: float, what: str, every: float = 0.5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = await check()
        if value:
            return value
        await asyncio.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


async def test_two_apis_and_two_workers_per_queue_lose_and_duplicate_nothing_when_the_holders_are_killed(tmp_path, capsys):
    from temporalio.testing import WorkflowEnvironment

    from models.temporal.converter import data_converter
    from models.temporal.search_attributes import search_attribute_keys
    from models.temporal.settlement import data_changed_start

    bindir = _pg_bin()
    assert bindir is not None, "the PostgreSQL run installs PostgreSQL's binaries"
    cluster = ManyClientsCluster(bindir)
    cluster.init()
    temporal = await WorkflowEnvironment.start_local(
        data_converter=data_converter, search_attributes=search_attribute_keys(),
        dev_server_existing_path=temporal_binary(),
        dev_server_extra_args=["--http-port", str(free_port()), "--metrics-port", str(free_port()),
                               "--dynamic-config-value", "matching.enableFairness=true"],
    )
    (tmp_path / "logs").mkdir()
    procs = Processes(tmp_path / "logs")
    queue = f"mp-{uuid.uuid4().hex[:8]}"
    ports = [free_port(), free_port()]
    env = {
        **os.environ, "DATABASE_URL": cluster.url, "PARAMETRIC_VAR_DIR": str(tmp_path / "var"),
        "TEMPORAL_ADDRESS": temporal.client.service_client.config.target_host, "TEMPORAL_TASK_QUEUE": queue,
        # One public address for both APIs, as behind a load balancer (the tokens' issuer).
        "PUBLIC_BASE_URL": "http://parametric.test", "WEBHOOK_ALLOW_LOOPBACK": "1",
        "SECRETS_KEY": base64.b64encode(os.urandom(32)).decode(),
        "RATE_LIMIT_PER_SECOND": "1000", "RATE_LIMIT_BURST": "2000", "TOKEN_RATE_PER_SECOND": "1000",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("TEST_DATABASE_URL", None)
    figures: dict[str, object] = {}
    try:
        _cli(env, "migrate")
        tenant = json.loads(_cli(env, "tenants", "create", "mp-insurer", "--internal"))
        data = json.loads(_cli(env, "staff", "create", "mp-dana", "--role", "data", "--email", "mp-dana@platform.example"))
        for i, port in enumerate(ports):
            procs.start(f"api{i}", [sys.executable, "-m", "api.cli", "api", "--port", str(port)], {**env, "API_PORT": str(port)})
        for q in QUEUES:  # two worker processes per queue
            for i in range(2):
                procs.start(f"{q}{i}", [sys.executable, "-m", "workflows.worker", "--queue", q, "--pricing-processes", "1"], env)
        workers = [f"{q}{i}" for q in QUEUES for i in range(2)]
        # Temporal names a worker `<pid>@<host>` (the SDK's default identity): which process is which
        by_pid = {str(procs.running[name].pid): name for name in workers}

        def process_of(identity: str) -> str:
            return by_pid.get(identity.split("@")[0], f"unknown ({identity})")

        bases = [f"http://127.0.0.1:{p}" for p in ports]
        receiver = SlowReceiver()
        async with httpx.AsyncClient(timeout=120) as http, Server(receiver.app, free_port()) as hook_server:

            async def up() -> bool:
                ok = 0
                for base in bases:
                    try:
                        ok += (await http.get(f"{base}/health")).status_code == 200
                    except httpx.TransportError:
                        pass
                return ok == 2 and all("worker polling" in procs.log(name) for name in workers)

            await _wait(up, 240, "two APIs and ten workers")
            insurer = Client(http, bases, tenant)
            staff = Client(http, bases, data)
            r = await insurer.call("POST", "/internal/webhook-endpoints", json={"url": f"{hook_server.base_url}/hook"})
            assert r.status_code == 201, r.text

            async def priced() -> bool:  # the target's catalogue priced before the load (a warm quote)
                r = await insurer.call("GET", f"/internal/coverages?targetName={PIN}&size=100")
                return bool(r.json()["content"]) and all(c["status"] == "ACTIVE" for c in r.json()["content"])

            await _wait(priced, 180, "the catalogue of the quotes' target")
            seeded = json.loads(_python(env, SEED, tenant["tenant_id"], str(SEEDED_POLICIES)))

            today = dt.date.today()
            start = dt.date(today.year + (today.month == 12), today.month % 12 + 1, 1)
            end = dt.date(start.year + (start.month >= 11), (start.month + 1) % 12 + 1, 1) - dt.timedelta(days=1)
            flows: dict[int, dict] = {}

            async def flow(i: int) -> None:
                body = {"monitoringTargetId": TARGET, "riskPeriodFrom": start.isoformat(), "riskPeriodTo": end.isoformat(),
                        "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}, "externalRef": f"mp-{i}"}
                q = await insurer.call("POST", "/quotes", key=f"mp-quote-{i}", json=body)
                assert q.status_code == 200, q.text
                c = await insurer.call("PATCH", f"/quotes/{q.json()['id']}", key=f"mp-convert-{i}")
                assert c.status_code == 200, c.text
                a = await insurer.call("PATCH", f"/policies/{c.json()['id']}", key=f"mp-activate-{i}")
                assert a.status_code == 200, a.text
                flows[i] = {"quote": q.json()["id"], "policy": c.json()["id"], "status": a.json()["status"]}

            days = [today.replace(day=1) + dt.timedelta(days=d) for d in range(max(1, today.day - 1))]

            async def observations(k: int) -> None:
                mine = days[k::OBSERVATION_BATCHES]
                if not mine:
                    return
                rows = [{"monitoringTargetId": TARGET, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm",
                         "day": d.isoformat(), "value": 3.5, "source": "mp-test"} for d in mine]
                r = await staff.call("POST", "/internal/observations", json={"observations": rows})
                assert r.status_code == 200, r.text

            async def month_end() -> None:
                s, e = dt.date.fromisoformat(seeded["start"]), dt.date.fromisoformat(seeded["end"])
                for target in seeded["targets"]:
                    await temporal.client.start_workflow(**data_changed_start(target, s, e, queue))

            kills: dict[str, dict] = {}

            async def settle_holders() -> dict | None:
                """A month end's settle_period running now: the settlement worker that holds it
                and the lifecycle worker that ran the settlement workflow's last task."""
                from temporalio.api.enums.v1 import PendingActivityState

                s, e = seeded["start"], seeded["end"]
                for target in seeded["targets"]:
                    handle = temporal.client.get_workflow_handle(f"settlement:{target}:{s}:{e}")
                    described = await handle.describe()
                    for a in described.raw_description.pending_activities:
                        if (a.activity_type.name == "settle_period" and a.attempt == 1 and a.last_worker_identity
                                and a.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED):
                            tasks = [ev.workflow_task_completed_event_attributes.identity
                                     async for ev in handle.fetch_history_events()
                                     if ev.HasField("workflow_task_completed_event_attributes")]
                            return {"workflow": handle.id, "activity": a.activity_id,
                                    "settlement": process_of(a.last_worker_identity), "lifecycle": process_of(tasks[-1])}
                return None

            async def delivery_holder() -> dict | None:
                """A webhook delivery in flight now, and the webhooks worker that holds it."""
                from temporalio.api.enums.v1 import PendingActivityState

                async for info in temporal.client.list_workflows(
                        'WorkflowType="WebhookDeliveryWorkflow" AND ExecutionStatus="Running"'):
                    described = await temporal.client.get_workflow_handle(info.id, run_id=info.run_id).describe()
                    for a in described.raw_description.pending_activities:
                        if (a.activity_type.name == "deliver_webhook" and a.attempt == 1 and a.last_worker_identity
                                and a.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED):
                            return {"workflow": info.id, "run": info.run_id, "activity": a.activity_id,
                                    "webhooks": process_of(a.last_worker_identity)}
                return None

            async def chaos() -> None:
                await _wait(lambda: asyncio.sleep(0, len(flows) >= QUOTE_FLOWS // 3), 300, "a third of the flows")
                await month_end()  # the month end starts now, so that the kills land inside it
                held = await _wait(settle_holders, 120, "a settle_period running", every=0.05)
                assert held["settlement"].startswith("settlement") and held["lifecycle"].startswith("lifecycle"), held
                procs.kill(held["settlement"])
                procs.kill(held["lifecycle"])
                procs.kill("api0")
                kills["month end"] = held
                figures["killed while settling"] = (f"{held['settlement']} (held settle_period of {held['workflow']}), "
                                                    f"{held['lifecycle']} (ran its last task), api0; "
                                                    f"{len(flows)} of {QUOTE_FLOWS} quote flows done")
                await asyncio.to_thread(cluster.stop)
                await asyncio.sleep(3)
                await asyncio.to_thread(cluster.start)
                figures["database"] = "PostgreSQL stopped 3 s and started again"
                delivering = await _wait(delivery_holder, 240, "a webhook delivery in flight", every=0.05)
                assert delivering["webhooks"].startswith("webhooks"), delivering
                procs.kill(delivering["webhooks"])
                kills["delivery"] = delivering
                figures["killed while delivering"] = f"{delivering['webhooks']} (held deliver_webhook of {delivering['workflow']})"

            began = time.monotonic()
            work = [asyncio.create_task(flow(i)) for i in range(QUOTE_FLOWS)]
            work += [asyncio.create_task(observations(k)) for k in range(OBSERVATION_BATCHES)]
            await asyncio.gather(chaos(), *work)
            figures["load seconds"] = round(time.monotonic() - began, 1)

            async def books() -> dict:
                return json.loads(await asyncio.to_thread(
                    _python, env, BOOKS, tenant["tenant_id"], TARGET, *seeded["targets"]))

            async def settled_and_sent() -> dict | None:
                b = await books()
                states = [s for s in b["settlements"] if s[1] == "SETTLED"]
                paying = {e[4] for e in b["events"] if e[3] != 0}
                ids = {h["webhook-id"] for h, _ in receiver.received}
                if len(states) >= 4 and paying and set(b["messages"]) <= ids:
                    return b
                return None

            final = await _wait(settled_and_sent, 300, "the month end settled and its webhooks delivered")
            ids = Counter(h["webhook-id"] for h, _ in receiver.received)
            ids_per_event: dict[str, set[str]] = {}
            for headers, body in receiver.received:
                ids_per_event.setdefault(_event_of(body), set()).add(headers["webhook-id"])

        # --- the killed work was finished by the other worker of its queue --------------------
        async def final_attempt(workflow_id: str, activity_id: str, run_id: str | None = None) -> tuple[str, int]:
            """Who ran an activity's final attempt, and which attempt it was (its started event
            is written when it closes, with the last attempt's worker)."""
            handle = temporal.client.get_workflow_handle(workflow_id, run_id=run_id)
            scheduled = None
            async for ev in handle.fetch_history_events():
                if ev.HasField("activity_task_scheduled_event_attributes") and \
                        ev.activity_task_scheduled_event_attributes.activity_id == activity_id:
                    scheduled = ev.event_id
                elif ev.HasField("activity_task_started_event_attributes") and \
                        ev.activity_task_started_event_attributes.scheduled_event_id == scheduled:
                    started = ev.activity_task_started_event_attributes
                    return process_of(started.identity), started.attempt
            raise AssertionError(f"{activity_id} of {workflow_id} never started")

        month_end_kill, delivery_kill = kills["month end"], kills["delivery"]
        finished_by = {
            "settle_period": await final_attempt(month_end_kill["workflow"], month_end_kill["activity"]),
            "deliver_webhook": await final_attempt(delivery_kill["workflow"], delivery_kill["activity"], delivery_kill["run"]),
        }
        handle = temporal.client.get_workflow_handle(month_end_kill["workflow"])
        task_workers = [process_of(ev.workflow_task_completed_event_attributes.identity)
                        async for ev in handle.fetch_history_events()
                        if ev.HasField("workflow_task_completed_event_attributes")]
        survivors = {k: v[:-1] + str(1 - int(v[-1])) for k, v in
                     (("settlement", month_end_kill["settlement"]), ("lifecycle", month_end_kill["lifecycle"]),
                      ("webhooks", delivery_kill["webhooks"]))}
        figures["killed work finished by"] = {**{k: f"{w} (attempt {n})" for k, (w, n) in finished_by.items()},
                                              "settlement workflow tasks after the kill": survivors["lifecycle"]}
        if finished_by["settle_period"] == (month_end_kill["settlement"], 1):
            # The holder was read, then killed: its attempt can complete in between (seen once in a
            # full PostgreSQL run). Then no other worker took anything over, and there is no
            # takeover to check; the books below are checked all the same.
            figures["killed work finished by"]["settle_period"] += ", before its kill landed"
        else:
            assert finished_by["settle_period"] == (survivors["settlement"], finished_by["settle_period"][1])
            assert finished_by["settle_period"][1] >= 2, finished_by
        assert finished_by["deliver_webhook"][0] == survivors["webhooks"] and finished_by["deliver_webhook"][1] >= 2, finished_by
        assert task_workers[-1] == survivors["lifecycle"], task_workers

        # --- the books ---------------------------------------------------------------------
        policies = final["policies"]
        api_policies = {f["policy"]: f for f in flows.values()}
        seeded_ids = set(seeded["policies"])
        settled_pairs = Counter((e[0], e[1]) for e in final["events"] if e[2] == "SETTLEMENT")
        lost = {
            "quotes acknowledged, not stored": sum(1 for f in flows.values() if f["quote"] not in final["quotes"]),
            "conversions acknowledged, no policy": sum(1 for p in api_policies if p not in policies),
            "activations acknowledged, policy not accepted": sum(
                1 for p in api_policies if policies.get(p, [None, None])[1] not in ("ACCEPTED", "ACTIVE")),
            "observation rows acknowledged, not stored": len(days) - len(final["observations"]),
            "seeded covers not settled": 2 * len(seeded_ids) - sum(
                1 for (p, _c) in settled_pairs if p in seeded_ids),
            "paying events without a payout": len({e[4] for e in final["events"] if e[3] != 0}
                                                  - {k for k, _ in final["payouts"]}),
            "webhook messages not delivered": len(set(final["messages"]) - set(ids)),
        }
        # Only what the database does not already forbid (module docstring).
        refs = Counter(r for r in final["quote_refs"] if r and r.startswith("mp-"))
        outbox = Counter(_event_of(p) for p in final["message_payloads"])
        duplicated = {
            "quotes of one externalRef (one Idempotency-Key)": sum(n - 1 for n in refs.values() if n > 1),
            "observation rows of one day": sum(n - 1 for _, n in final["observations"] if n > 1),
            "SETTLEMENT events of one cover and policy": sum(n - 1 for n in settled_pairs.values() if n > 1),
            "outbox messages of one event": sum(n - 1 for n in outbox.values() if n > 1),
            "events received under more than one webhook-id": sum(1 for i in ids_per_event.values() if len(i) > 1),
        }
        # Every API-made policy is in the state its workflow says.
        mismatched = []
        for policy_id in api_policies:
            handle = temporal.client.get_workflow_handle(f"policy:{tenant['tenant_id']}:{policy_id}")
            said = (await handle.query("status"))["status"]
            if said != policies[policy_id][1]:
                mismatched.append((policy_id, said, policies[policy_id][1]))
        # Work spread: who completed the policies' and the settlements' tasks.
        identities: Counter[str] = Counter()
        sample = list(api_policies)[:8]
        handles = [temporal.client.get_workflow_handle(f"policy:{tenant['tenant_id']}:{p}") for p in sample]
        handles += [temporal.client.get_workflow_handle(f"settlement:{t}:{seeded['start']}:{seeded['end']}")
                    for t in seeded["targets"]]
        for handle in handles:
            async for event in handle.fetch_history_events():
                for attributes in (event.workflow_task_completed_event_attributes,
                                   event.activity_task_started_event_attributes):
                    if attributes.identity:
                        identities[process_of(attributes.identity)] += 1
        figures.update({
            "quote flows": len(flows), "seeded policies settled": len({p for p, _ in settled_pairs if p in seeded_ids}),
            "events": len(final["events"]), "payouts": len(final["payouts"]),
            "webhook messages": len(final["messages"]), "deliveries received": sum(ids.values()),
            "received twice (at least once: receivers dedupe)": sum(n - 1 for n in ids.values() if n > 1),
            "lost": sum(lost.values()), "duplicated": sum(duplicated.values()),
            "policies not in their workflow's state": len(mismatched),
            "2xx answers per API": dict(insurer.answered + staff.answered),
            "tasks per worker process (sampled histories)": dict(identities),
        })
        with capsys.disabled():  # the figures show in `make test`'s output, passing or not
            print("\nmany processes, one PostgreSQL restart:")
            for name, value in figures.items():
                print(f"  {name}: {value}")
            for name, value in {**lost, **duplicated}.items():
                print(f"  {name}: {value}")
        assert sum(lost.values()) == 0, lost
        assert sum(duplicated.values()) == 0, duplicated
        assert not mismatched, mismatched
        assert len(insurer.answered + staff.answered) == 2, "both API processes answered"
        assert len({p for p in identities if p.startswith("lifecycle")}) == 2, f"both lifecycle workers worked: {identities}"
        assert len(flows) == QUOTE_FLOWS
    except BaseException:
        for name in procs.running:
            print(f"--- {name} log (tail) ---\n{procs.log(name)[-3000:]}")
        raise
    finally:
        procs.stop_all()
        await temporal.shutdown()
        cluster.remove()
