"""Many processes, nothing lost (issue 25): two API processes and two worker processes
(each serving every task queue) against one Temporal server and one PostgreSQL, all real
processes. A mixed load runs through them: quotes, conversions and activations over HTTP
(sent to either API, retried on the other with the same Idempotency-Key when one fails),
observations from a data staff member, a month end of 200 policies settled, and the
webhooks it sends to a real receiver. Mid-load one API process and one worker process are
SIGKILLed and the database is restarted. Then the books are checked and the figures
printed: lost 0, duplicated 0, every policy in the state its workflow says, and work done
by both APIs and both workers.

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
        "policies": {str(r["id"]): [str(r["quote_id"]), r["status"]]
                     for r in await q("SELECT id, quote_id, status FROM policy WHERE tenant_id = {}", tenant)},
        "policies_per_quote": max([r["n"] for r in await q(
            "SELECT COUNT(*) AS n FROM policy WHERE tenant_id = {} GROUP BY quote_id", tenant)] or [0]),
        "events": [[str(r["policy_id"]), str(r["coverage_id"]), r["kind"], r["payout_minor"], r["settlement_key"]]
                   for r in await q("SELECT policy_id, coverage_id, kind, payout_minor, settlement_key "
                                    "FROM parametric_event WHERE tenant_id = {}", tenant)],
        "payouts": [[r["settlement_key"], r["amount_minor"]]
                    for r in await q("SELECT settlement_key, amount_minor FROM payout WHERE tenant_id = {}", tenant)],
        "messages": [str(r["id"]) for r in await q("SELECT id FROM webhook_message WHERE tenant_id = {}", tenant)],
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


async def _wait(check, seconds: float, what: str, every: float = 0.5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = await check()
        if value:
            return value
        await asyncio.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


async def test_two_apis_and_two_workers_lose_and_duplicate_nothing_through_kills_and_a_database_restart(tmp_path, capsys):
    from temporalio.testing import WorkflowEnvironment

    from models.temporal.converter import data_converter
    from models.temporal.search_attributes import search_attribute_keys
    from models.temporal.settlement import data_changed_start
    from tests.api.test_webhooks import Receiver

    bindir = _pg_bin()
    assert bindir is not None, "the PostgreSQL run installs PostgreSQL's binaries"
    cluster = PrivateCluster(bindir)
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
        for i in range(2):
            procs.start(f"worker{i}", [sys.executable, "-m", "workflows.worker", "--pricing-processes", "1"], env)
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        receiver = Receiver()
        async with httpx.AsyncClient(timeout=120) as http, Server(receiver.app, free_port()) as hook_server:

            async def up() -> bool:
                ok = 0
                for base in bases:
                    try:
                        ok += (await http.get(f"{base}/health")).status_code == 200
                    except httpx.TransportError:
                        pass
                return ok == 2 and all("worker polling" in procs.log(f"worker{i}") for i in range(2))

            await _wait(up, 120, "two APIs and two workers")
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

            async def in_flight() -> str | None:
                """What the month end is doing now: a settle_period running, or deliveries
                of its webhooks running; None between them."""
                s, e = seeded["start"], seeded["end"]
                for target in seeded["targets"]:
                    described = await temporal.client.get_workflow_handle(f"settlement:{target}:{s}:{e}").describe()
                    pending = [a.activity_type.name for a in described.raw_description.pending_activities]
                    if "settle_period" in pending or "dispatch_webhooks" in pending:
                        return f"{pending[0]} of {target} running"
                running = 0
                async for _ in temporal.client.list_workflows(
                        'WorkflowType="WebhookDeliveryWorkflow" AND ExecutionStatus="Running"', limit=1):
                    running += 1
                return "webhook deliveries running" if running else None

            async def chaos() -> None:
                await _wait(lambda: asyncio.sleep(0, len(flows) >= QUOTE_FLOWS // 3), 300, "a third of the flows")
                await month_end()  # the month end starts now, so that the kills land inside it
                landed = await _wait(in_flight, 60, "the month end's work in flight", every=0.05)
                procs.kill("api0")
                procs.kill("worker0")
                figures["the kills landed"] = f"{landed}, {len(flows)} of {QUOTE_FLOWS} quote flows done"
                await asyncio.to_thread(cluster.stop)
                await asyncio.sleep(3)
                await asyncio.to_thread(cluster.start)
                figures["killed"] = "api0, worker0 (SIGKILL); PostgreSQL stopped 3 s and started again"

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
        duplicated = {
            "policies of one quote": max(0, final["policies_per_quote"] - 1),
            "quotes of one Idempotency-Key": len(final["quotes"]) - len({f["quote"] for f in flows.values()}),
            "settlements of one cover and policy": sum(n - 1 for n in settled_pairs.values() if n > 1),
            "payouts of one settlement key": len(final["payouts"]) - len({k for k, _ in final["payouts"]}),
            "observation rows of one day": sum(n - 1 for _, n in final["observations"] if n > 1),
            "deliveries of one message": len(final["deliveries"]) - len({m for m, _ in final["deliveries"]}),
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
                        identities[attributes.identity.split("@")[0]] += 1
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
        assert len([p for p, n in identities.items() if n]) >= 2, f"both workers worked: {identities}"
        assert len(flows) == QUOTE_FLOWS
    except BaseException:
        for name in procs.running:
            print(f"--- {name} log (tail) ---\n{procs.log(name)[-3000:]}")
        raise
    finally:
        procs.stop_all()
        await temporal.shutdown()
        cluster.remove()
