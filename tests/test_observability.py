"""Operating it (issue 28): logs, metrics and traces of a real run.

A real API process and a real worker process (`parametric api`, `python -m
workflows.worker`) on the suite's Temporal server and database, on a task queue of their
own, serve real requests: tokens (a client secret in a form, a wrong one too), the travel
surface with the API key, a quote, its conversion, its activation, a webhook endpoint with
its secret and its rotation, and the metrics as operations staff. Then:

- logs: every line of both processes is JSON; the request lines carry the request id, the
  tenant, the client and the path's ids; the worker's lines carry workflow id, run id,
  activity type, attempt and the quote's and policy's ids; no line holds the client
  secret, the API key, a bearer token or a webhook secret;
- metrics: `GET /metrics` (operations staff; a tenant gets 403) has the request counters
  and latency histograms by route and status; the worker's port has the SDK's task
  latency, slot and poll metrics and the domain counters of the quote and the policy;
- traces (another process, in-memory exporter): one trace from `POST /quotes` through the
  Temporal client's update-with-start into the QuoteWorkflow, its `record_quote` activity
  and the SQL that writes the quote.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port

REPO = Path(__file__).resolve().parents[1]
# Targets no other test prices: a catalogue's workflow outlives the stack that ran it, on the
# task queue of that stack, so a target shared with the suite's stack would wait on it.
TARGET = "IN-26.875N-075.875E"  # Jaipur, for the processes' run
TRACE_TARGET = "IN-26.875N-080.875E"  # Lucknow, for the traced process
YEAR = dt.date.today().year + 1
QUOTE = {"monitoringTargetId": TARGET, "riskPeriodFrom": f"{YEAR}-03-01", "riskPeriodTo": f"{YEAR}-03-31",
         "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}, "externalRef": "obs-1"}


def _token_form(credentials: dict, secret: str | None = None) -> dict:
    return {"client_id": credentials["client_id"], "client_secret": secret or credentials["client_secret"],
            "scope": credentials["scope"], "grant_type": "client_credentials"}


class Stack:
    """An API process and a worker process, their output in files."""

    def __init__(self, tmp: Path, temporal_address: str) -> None:
        self.tmp = tmp
        self.api_port, self.metrics_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.api_port}"
        (tmp / "keys").mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ, "TEMPORAL_ADDRESS": temporal_address, "TEMPORAL_TASK_QUEUE": f"obs-{uuid.uuid4().hex[:8]}",
            "API_PORT": str(self.api_port), "PUBLIC_BASE_URL": self.base, "SIGNING_KEY_PATH": str(tmp / "keys" / "k.pem"),
            "LOG_FORMAT": "json", "PRICING_SIMULATIONS": "4096", "RATE_LIMIT_SCOPE": uuid.uuid4().hex,
            "PYTHONUNBUFFERED": "1",
        }
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self) -> None:
        # No webhooks queue: its worker would take over the suite's dispatch Schedules.
        queues = ["--queue", "lifecycle", "--queue", "pricing", "--queue", "documents", "--queue", "settlement"]
        commands = {
            "api": [sys.executable, "-m", "api.cli", "api", "--port", str(self.api_port)],
            "worker": [sys.executable, "-m", "workflows.worker", *queues, "--pricing-processes", "1",
                       "--metrics-port", str(self.metrics_port)],
        }
        for name, args in commands.items():
            out = (self.tmp / f"{name}.log").open("wb")
            self.procs[name] = subprocess.Popen(args, env=self.env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                                start_new_session=True)

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")

    def lines(self, name: str) -> list[dict]:
        return [json.loads(line) for line in self.log(name).splitlines() if line.strip()]

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(40)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="module")
async def run(tmp_path_factory, settings, database, temporal_env):
    """The full run: what was sent (the secrets among it) and the stack that served it."""
    from api.auth.tenants import create_staff, create_tenant

    from models.clock import utcnow
    from models.db.tables import Settlement, WebhookDelivery

    tenant = (await create_tenant(f"obs-{uuid.uuid4().hex[:6]}", True, settings.scope)).to_dict()
    # What the runbook's alerts are about, of a target and an endpoint of their own: a
    # settlement FLAGGED over a period that ended 20 days ago, its row written again just now
    # (a look at it, as every week: still FLAGGED), and a delivery given up an hour ago.
    flagged = uuid.uuid4()
    await Settlement.insert(Settlement(coverage_id=flagged, monitoring_target_id="IN-obs-flagged", state="FLAGGED",
                                       period_start=dt.date.today() - dt.timedelta(days=50),
                                       period_end=dt.date.today() - dt.timedelta(days=20), updated_at=utcnow()))
    given_up = f"obs-{uuid.uuid4().hex}:{uuid.uuid4()}"
    await WebhookDelivery.insert(WebhookDelivery(id=given_up, tenant_id=uuid.UUID(tenant["tenant_id"]),
                                                 message_id=given_up.split(":")[0], endpoint_id=uuid.uuid4(),
                                                 status="FAILED", attempts=34, created_at=utcnow() - dt.timedelta(hours=25),
                                                 updated_at=utcnow() - dt.timedelta(hours=1)))
    staff = (await create_staff(olga := f"obs-olga-{uuid.uuid4().hex[:6]}", ["operations"], settings.scope,
                                email=f"{olga}@staff.example")).to_dict()
    stack = Stack(tmp_path_factory.mktemp("observability"), temporal_env.client.service_client.config.target_host)
    stack.start()
    sent: dict = {"tenant": tenant, "staff": staff, "secrets": {}}
    try:
        async with httpx.AsyncClient(base_url=stack.base, timeout=600) as http:
            for _ in range(600):
                try:
                    if (await http.get("/health")).status_code == 200 and "worker polling" in stack.log("worker"):
                        break
                except httpx.HTTPError:
                    pass
                assert all(p.poll() is None for p in stack.procs.values()), stack.log("api")[-2000:] + stack.log("worker")[-2000:]
                await asyncio.sleep(0.2)
            token_url = f"/auth/{tenant['tenant_id']}/oauth2/v2.0/token"
            refused = await http.post(token_url, data=_token_form(tenant, "not-" + tenant["client_secret"]))
            assert refused.status_code == 401, refused.text
            r = await http.post(token_url, data=_token_form(tenant))
            assert r.status_code == 200, r.text
            token = r.json()["access_token"]
            headers = {"Authorization": f"Bearer {token}", "x-tenant-id": tenant["tenant_id"]}
            travel = await http.get(f"/travel/{tenant['tenant_id']}/quotes/{uuid.uuid4()}",
                                    headers={"Authorization": f"Bearer {tenant['api_key']}"})
            assert travel.status_code == 404, travel.text  # authenticated by the key, then not found
            quote = await http.post("/quotes", json=QUOTE, headers={**headers, "x-request-id": "obs-quote-1"})
            assert quote.status_code == 200, quote.text
            assert quote.headers["x-request-id"] == "obs-quote-1"
            policy = await http.patch(f"/quotes/{quote.json()['id']}", headers=headers)
            assert policy.status_code == 200, policy.text
            active = await http.patch(f"/policies/{policy.json()['id']}", headers=headers)
            assert active.status_code == 200, active.text
            hook = await http.post("/internal/webhook-endpoints", json={"url": f"http://127.0.0.1:{free_port()}/hook"},
                                   headers=headers)
            assert hook.status_code == 201, hook.text
            rotated = await http.post(f"/internal/webhook-endpoints/{hook.json()['id']}/rotate-secret", headers=headers)
            assert rotated.status_code == 200, rotated.text
            person = uuid.uuid4().hex[:8]
            partner = await http.post("/internal/business-partners", headers=headers, json={
                "@type": "NewBusinessPartner", "name": f"Obs Farms {person}", "role": "POLICY_HOLDER",
                "contactName": f"Meera Obs{person}", "contactEmailAddress": f"meera.{person}@farm.example",
                "contactPhoneNumber": "+91 80 4321 8765",
                "address": {"@type": "NewAddress", "countryCode": "IN", "houseNumber": "7", "street": f"Obs Lane {person}",
                            "country": "India", "county": "", "postcode": "560001", "state": "Karnataka",
                            "district": "Bengaluru Urban", "city": "Bengaluru", "stateCode": "KA"},
                "taxStatus": "REGISTERED"})
            assert partner.status_code == 201, partner.text
            assert (await http.get(partner.headers["location"], headers=headers)).status_code == 200
            staff_token = (await http.post(f"/auth/{staff['tenant_id']}/oauth2/v2.0/token", data=_token_form(staff))).json()
            staff_headers = {"Authorization": f"Bearer {staff_token['access_token']}", "x-tenant-id": staff["tenant_id"]}
            sent.update(
                quote_id=quote.json()["id"], policy_id=policy.json()["id"],
                api_metrics=await http.get("/metrics", headers=staff_headers),
                tenant_metrics=await http.get("/metrics", headers=headers),
            )
            sent["secrets"] = {
                "client secret": tenant["client_secret"], "API key": tenant["api_key"], "bearer token": token,
                "staff secret": staff["client_secret"], "staff token": staff_token["access_token"],
                "webhook secret": hook.json()["secret"], "rotated webhook secret": rotated.json()["secret"],
                # personal data: a business partner's contact
                "contact name": f"Meera Obs{person}", "contact e-mail": f"meera.{person}@farm.example",
                "contact phone": "+91 80 4321 8765", "street": f"Obs Lane {person}",
            }
        async with httpx.AsyncClient(timeout=30) as scraper:
            sent["worker_metrics"] = (await scraper.get(f"http://127.0.0.1:{stack.metrics_port}/metrics")).text
    finally:
        stack.stop()
        await Settlement.delete().where(Settlement.coverage_id == flagged)
        await WebhookDelivery.delete().where(WebhookDelivery.id == given_up)
    yield sent, stack


def test_every_line_is_json_and_no_line_holds_a_secret(run):
    sent, stack = run
    for name in ("api", "worker"):
        text = stack.log(name)
        assert "worker polling" in stack.log("worker")
        for line in text.splitlines():
            if line.strip():
                assert isinstance(json.loads(line), dict), line  # one JSON object a line, nothing else
        for what, secret in sent["secrets"].items():
            assert secret and secret not in text, f"the {what} is in the {name}'s log"
            # nor its first half (a secret cut or wrapped would still leak)
            assert secret[: len(secret) // 2] not in text, f"part of the {what} is in the {name}'s log"


def test_request_lines_carry_request_tenant_client_and_path_ids(run):
    sent, stack = run
    tenant = sent["tenant"]
    requests = [line for line in stack.lines("api") if line["event"] == "request"]
    quote = next(line for line in requests if line["route"] == "/quotes" and line["method"] == "POST")
    assert quote["request_id"] == "obs-quote-1" and quote["status"] == 200 and quote["process"] == "api"
    assert quote["tenant_id"] == tenant["tenant_id"] and quote["client_id"] == tenant["client_id"]
    assert quote["duration_ms"] > 0 and quote["timestamp"].startswith(str(dt.date.today().year))
    conversion = next(line for line in requests if line["method"] == "PATCH" and line["path"].startswith("/quotes/"))
    assert conversion["quote_id"] == sent["quote_id"] and conversion["tenant_id"] == tenant["tenant_id"]
    activation = next(line for line in requests if line["method"] == "PATCH" and line["path"].startswith("/policies/"))
    assert activation["policy_id"] == sent["policy_id"]
    refused = [line for line in requests if line["route"] == "/auth/{tenant_id}/oauth2/v2.0/token" and line["status"] == 401]
    assert refused and refused[0]["tenant_id"] == tenant["tenant_id"]  # the path's tenant, never the form
    assert len({line["request_id"] for line in requests}) == len(requests)


def test_worker_lines_carry_workflow_run_activity_attempt_and_domain_ids(run):
    sent, stack = run
    done = [line for line in stack.lines("worker") if line["event"] == "activity completed"]
    written = next(line for line in done if line["activity_type"] == "record_quote")
    assert written["quote_id"] == sent["quote_id"] and written["tenant_id"] == sent["tenant"]["tenant_id"]
    assert written["workflow_id"] == f"quote:{sent['tenant']['tenant_id']}:{sent['quote_id']}"
    assert written["workflow_type"] == "QuoteWorkflow" and written["attempt"] == 1
    assert re.fullmatch(r"[0-9a-f-]{36}", written["run_id"]) and written["process"].startswith("worker-lifecycle")
    converted = next(line for line in done if line["activity_type"] == "convert_to_policy")
    assert converted["policy_id"] == sent["policy_id"] and converted["quote_id"] == sent["quote_id"]
    assert any(line["activity_type"] == "set_policy_status" and line["policy_id"] == sent["policy_id"] for line in done)
    # the business partner (personal data in its input: no line holds it, test above) was written here
    assert any(line["activity_type"] == "save_business_partner" for line in done)


def _samples(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(name)]


def test_api_metrics_count_and_time_requests_by_route_and_status_for_operations_staff(run):
    sent, _ = run
    assert sent["tenant_metrics"].status_code == 403  # an operations endpoint
    r = sent["api_metrics"]
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    quotes = _samples(text, 'parametric_api_requests_total{app_name="parametric-api",method="POST",path="/quotes",status_code="200"}')
    assert quotes and float(quotes[0].split()[-1]) >= 1
    assert _samples(text, 'parametric_api_requests_total{app_name="parametric-api",method="POST",path="/auth/{tenant_id}/oauth2/v2.0/token",status_code="401"}')
    timed = [line for line in _samples(text, "parametric_api_request_duration_seconds_bucket")
             if 'method="PATCH"' in line and 'path="/quotes/{quote_id}"' in line and 'status_code="200"' in line]
    assert timed, _samples(text, "parametric_api_request_duration_seconds_count")
    assert sent["quote_id"] not in text  # routes, never ids: a series per route
    # what needs a person now, read from the database at the scrape
    gauges = {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
              if line.startswith("parametric_") and not line.startswith("parametric_api_")}
    assert gauges["parametric_settlements_flagged"] >= 1
    # counted from the period's end, which a look at the settlement never moves (its row's
    # updated_at, written again at each weekly look, would say "just now")
    assert gauges["parametric_settlement_flagged_period_ended_seconds"] >= 19 * 86400
    assert gauges["parametric_webhook_deliveries_failed_last_day"] >= 1
    assert abs(gauges["parametric_operations_state_read_timestamp_seconds"] - time.time()) < 600
    for name in ("parametric_observation_revisions_held", "parametric_observation_revision_held_oldest_seconds",
                 "parametric_pricing_candidates", "parametric_pricing_candidate_lapse_soonest_seconds",
                 "parametric_webhook_deliveries_pending", "parametric_webhook_delivery_pending_oldest_seconds"):
        assert name in gauges, name


def test_worker_port_serves_sdk_metrics_and_domain_counters(run):
    sent, _ = run
    text = sent["worker_metrics"]
    for name in ("temporal_workflow_task_execution_latency", "temporal_activity_execution_latency",
                 "temporal_worker_task_slots_available", "temporal_num_pollers", "temporal_request"):
        assert _samples(text, name), f"{name} missing from the worker's metrics"
    priced = _samples(text, "parametric_quotes_priced_total{")
    assert any('kind="TENANT"' in line and float(line.split()[-1]) >= 1 for line in priced), priced
    assert any(float(line.split()[-1]) >= 1 for line in _samples(text, "parametric_policies_converted_total")), text[-3000:]
    assert any(float(line.split()[-1]) >= 1 for line in _samples(text, "parametric_policies_bound_total"))


def _sample_names(text: str) -> set[str]:
    return {re.split(r"[{ ]", line, 1)[0] for line in text.splitlines() if line and not line.startswith("#")}


def _anchors(doc: Path) -> set[str]:
    """The GitHub anchors of a Markdown file's headings."""
    return {re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in doc.read_text().splitlines() if line.startswith("#")}


def test_every_alert_watches_a_metric_the_service_serves_and_the_runbook_says_what_to_do(run):
    """deploy/prometheus/alerts.yml against what the run's API and worker served: a rule on
    a misspelt or renamed metric would never fire. Metrics a healthy run does not show (a
    failure counter, webhook deliveries: this run has no webhooks worker) are checked against
    what declares them: the domain's counters, the Temporal SDK's own metric names."""
    import yaml

    from workflows.observability import DomainMetrics

    sent, _ = run
    served = _sample_names(sent["api_metrics"].text) | _sample_names(sent["worker_metrics"])

    class Names:  # a meter that keeps the names the counters are created with
        names: set[str] = set()

        def create_counter(self, name: str, *_: str) -> None:
            self.names.add(f"{name}_total")

    DomainMetrics(Names())
    import temporalio.bridge

    sdk_names = b"".join(p.read_bytes() for p in Path(temporalio.bridge.__file__).parent.glob("temporal_sdk_bridge*"))

    def declared(name: str) -> bool:
        if name in served or name in Names.names:
            return True
        core = name.removeprefix("temporal_").removesuffix("_total").removesuffix("_bucket")
        return name.startswith("temporal_") and core.encode() in sdk_names

    rules = [r for g in yaml.safe_load((REPO / "deploy" / "prometheus" / "alerts.yml").read_text())["groups"]
             for r in g["rules"]]
    runbook = (REPO / "docs" / "runbook.md").read_text()
    section = runbook.split("## Metrics and alerts", 1)[1].split("\n## ", 1)[0]
    for rule in rules:
        name, expr = rule["alert"], rule["expr"]
        assert rule["labels"]["severity"] in ("page", "ticket") and rule["annotations"]["summary"], name
        metrics = set(re.findall(r"\b((?:parametric|temporal)_[a-z0-9_]+)", expr))
        assert metrics or "up{" in expr, name
        undeclared = sorted(m for m in metrics if not declared(m))
        assert not undeclared, f"{name} watches {undeclared}, which nothing serves: {sorted(served)}"
        doc, _, anchor = rule["annotations"]["runbook"].partition("#")
        assert anchor in _anchors(REPO / doc), f"{name}: no section #{anchor} in {doc}"
        assert f"`{name}`" in section, f"the runbook's alerts table lacks {name}"
    by_name = {r["alert"]: r for r in rules}
    # the three: a settlement FLAGGED for more than a day, webhook failures, pricing backlog
    assert "parametric_settlements_flagged" in by_name["SettlementFlagged"]["expr"]
    assert by_name["SettlementFlagged"]["for"] == "1d"
    assert "parametric_webhook_deliveries_total" in by_name["WebhookDeliveryFailures"]["expr"]
    assert "-pricing" in by_name["PricingQueueBacklog"]["expr"]
    # every gauge the API serves has its alert
    gauges = {m for m in served if m.startswith("parametric_") and not m.startswith("parametric_api_")}
    watched = {m for r in rules for m in re.findall(r"\b(parametric_[a-z0-9_]+)", r["expr"])}
    assert {"parametric_settlements_flagged", "parametric_observation_revision_held_oldest_seconds",
            "parametric_pricing_candidate_lapse_soonest_seconds", "parametric_webhook_delivery_pending_oldest_seconds",
            "parametric_webhook_deliveries_failed_last_day", "parametric_operations_state_read_timestamp_seconds"} <= watched
    assert gauges & watched


def test_the_readme_commands_find_what_the_run_wrote(run):
    """README, "Logs, metrics and traces": the fields its jq commands select on are in the
    run's log lines, and each metric its greps look for is one the run's API or worker
    served (one grep a source: the API's with olga's token, then a worker's port)."""
    sent, stack = run
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Logs, metrics and traces", 1)[1].split("\n## ", 1)[0]
    lines = stack.lines("api") + stack.lines("worker")
    for field in re.findall(r"\.([a-z_]+) (?:==|>)", section):
        assert any(field in line for line in lines), f"no log line has {field}"
    greps = re.findall(r"curl -s (\S+) .*?grep -E '\^(\w*)\(([^']+)\)'", section)  # ^prefix(a|b)
    assert [url.split("/")[-1] for url, _, _ in greps] == ["metrics", "metrics"], greps
    for (url, prefix, alternatives), text in zip(greps, (sent["api_metrics"].text, sent["worker_metrics"])):
        for alternative in alternatives.split("|"):
            assert prefix + alternative in _sample_names(text), f"{url}: {prefix + alternative} not served"
    for words in ("WORKER_METRICS_PORT", "OTEL_EXPORTER_OTLP_ENDPOINT", "parametric check-deployment", "var/log/"):
        assert words in " ".join(section.split()), words


def test_prometheus_scrapes_what_the_alerts_and_the_production_profile_name():
    import yaml

    config = yaml.safe_load((REPO / "deploy" / "prometheus" / "prometheus.yml").read_text())
    assert config["rule_files"] == ["alerts.yml"]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    alerts = (REPO / "deploy" / "prometheus" / "alerts.yml").read_text()
    for job in re.findall(r'job="([^"]+)"', alerts):
        assert job in jobs, job
    api = jobs["parametric-api"]
    assert api["metrics_path"] == "/metrics" and "token_url" in api["oauth2"] and "x-tenant-id" in api["http_headers"]
    compose = yaml.safe_load((REPO / "temporal-dev.yml").read_text())["services"]
    workers = {name: s for name, s in compose.items() if name.startswith("worker-")}
    discovered = jobs["parametric-worker"]["dns_sd_configs"][0]
    assert sorted(discovered["names"]) == sorted(workers)
    for service in workers.values():
        assert str(discovered["port"]) == service["environment"]["WORKER_METRICS_PORT"]
    assert [t.split(":")[0] for t in api["static_configs"][0]["targets"]] == ["api"] and "api" in compose


TRACE = r"""
import asyncio, json, sys, uuid
from dataclasses import replace

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

import socket

import httpx
import uvicorn
from api.app import create_app
from api.auth.tenants import create_tenant
from models.db.core import close_pool, open_pool
from models.settings import load_settings
from models.temporal.client import connect
from workflows.worker import Workers


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def main():
    settings = replace(load_settings(), task_queue=f"trace-{uuid.uuid4().hex[:8]}")
    await open_pool()
    client = await connect(settings, retries=3)  # tracing is on: the interceptor comes with it
    tenant = (await create_tenant(f"trace-{uuid.uuid4().hex[:6]}", True, settings.scope)).to_dict()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(replace(settings, api_port=port), client), host="127.0.0.1",
                                           port=port, log_level="warning", lifespan="on"))
    async with Workers(client, settings.task_queue, pricing_processes=0):
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.02)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=600) as http:
                token = (await http.post(f"/auth/{tenant['tenant_id']}/oauth2/v2.0/token", data={
                    "client_id": tenant["client_id"], "client_secret": tenant["client_secret"],
                    "scope": tenant["scope"], "grant_type": "client_credentials"})).json()["access_token"]
                exporter.clear()
                r = await http.post("/quotes", json=json.loads(sys.argv[1]),
                                    headers={"Authorization": f"Bearer {token}", "x-tenant-id": tenant["tenant_id"]})
                assert r.status_code == 200, r.text
        finally:
            server.should_exit = True
            await serving
    await close_pool()
    spans = [{"name": s.name, "trace": format(s.context.trace_id, "032x"), "id": format(s.context.span_id, "016x"),
              "parent": format(s.parent.span_id, "016x") if s.parent else None, "kind": s.kind.name,
              "attributes": {k: str(v) for k, v in (s.attributes or {}).items()}} for s in exporter.get_finished_spans()]
    print(json.dumps({"quote_id": r.json()["id"], "spans": spans}))

asyncio.run(main())
"""


async def test_one_trace_from_post_quotes_to_the_quotes_sql_write(database, temporal_env):
    env = {**os.environ, "TEMPORAL_ADDRESS": temporal_env.client.service_client.config.target_host,
           "PRICING_SIMULATIONS": "4096", "LOG_LEVEL": "WARNING", "RATE_LIMIT_SCOPE": uuid.uuid4().hex}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", TRACE, json.dumps({**QUOTE, "monitoringTargetId": TRACE_TARGET, "externalRef": "obs-trace"}), env=env, cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 600)
    assert proc.returncode == 0, err.decode()[-4000:]
    result = json.loads(out.decode().strip().splitlines()[-1])
    spans = result["spans"]
    server = [s for s in spans if s["kind"] == "SERVER" and s["name"] == "POST /quotes"]
    assert len(server) == 1, [s["name"] for s in spans]
    assert server[0]["parent"] is None and server[0]["attributes"]["http.status_code"] == "200"
    trace_id = server[0]["trace"]
    in_trace = {s["id"]: s for s in spans if s["trace"] == trace_id}

    def chain(span: dict) -> list[str]:
        names = []
        while span is not None:
            names.append(span["name"])
            span = in_trace.get(span["parent"])
        return names

    writes = [s for s in in_trace.values() if s["name"] == "INSERT quote"]
    assert len(writes) == 1, sorted({s["name"] for s in in_trace.values()})
    # SQL ← the activity ← its scheduling in the workflow ← the update-with-start ← the request
    assert chain(writes[0]) == ["INSERT quote", "RunActivity:record_quote", "StartActivity:record_quote",
                                "StartUpdateWithStartWorkflow:QuoteWorkflow", "POST /quotes"], chain(writes[0])
    # the workflow's run is in the same trace, under the same update-with-start
    run = [s for s in in_trace.values() if s["name"] == "RunWorkflow:QuoteWorkflow"]
    assert len(run) == 1 and chain(run[0])[1:] == ["StartUpdateWithStartWorkflow:QuoteWorkflow", "POST /quotes"]
    assert run[0]["attributes"]["temporalWorkflowID"].endswith(result["quote_id"])
    assert all(s["trace"] == trace_id for s in spans if "QuoteWorkflow" in s["name"] or "record_quote" in s["name"])
    assert "?" in writes[0]["attributes"]["db.statement"] or "$" in writes[0]["attributes"]["db.statement"]
    assert result["quote_id"] not in writes[0]["attributes"]["db.statement"]  # the statement, never its values
