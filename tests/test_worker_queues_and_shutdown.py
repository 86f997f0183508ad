"""Work on the right queue, and workers that drain (issue 25, finding 5), with real worker
processes (`python -m workflows.worker`, as `make dev` runs them) where a process is the
point:

- a settlement's `settle_period` runs on the settlement task queue (`<base>-settlement`),
  not on the lifecycle queue beside the writes API requests wait on;
- a fast quote's Monte Carlo runs in the pricing pool's process, not in a thread of the
  worker's main process (which ran it beside its event loop, outside the pool's slots);
- SIGTERM to a worker's process group (what a process manager sends) lets the activity in
  flight finish: the fast quote's pricing completes on its first attempt and the worker
  exits 0, instead of the activity being cancelled and left for another worker.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import httpx

from bench._settlement_seed import free_targets, months_back, seed
from models.clock import utcnow
from models.temporal.ids import quote_workflow_id, settlement_workflow_id
from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.api.test_fast_quotes import new_fast_quote, wait_for_state
from tests.conftest import Server, Tenant, free_port, worker_process
from tests.test_settlement_faults import _start, _wait_settled
from tests.test_worker_process import _children

QUERY = "targetName=400001&from=2027-07-01&to=2027-07-31&size=100"
SLOW_SIMULATIONS = 1 << 24  # about 16.8 million paths: several seconds of pricing, even on a quiet machine


async def test_a_settlement_runs_settle_period_on_the_settlement_queue(temporal_env, database):
    from workflows.worker import Workers

    [target] = await free_targets(1)
    [month] = months_back(utcnow().date(), 1)
    await seed(4, [target], [month], {target: [Decimal(400)]})
    queue = f"settle-queue-{uuid.uuid4()}"
    async with Workers(temporal_env.client, queue, queues=("lifecycle", "webhooks", "settlement")):
        await _start(temporal_env.client, queue, target, month)
        await _wait_settled(target, timeout=120)
        handle = temporal_env.client.get_workflow_handle(settlement_workflow_id(target, *month))
        scheduled = [
            e.activity_task_scheduled_event_attributes
            for e in (await handle.fetch_history()).events
            if e.HasField("activity_task_scheduled_event_attributes")
        ]
        await handle.terminate("test over")
    queues = {a.activity_type.name: a.task_queue.name for a in scheduled}
    assert queues["settle_period"] == f"{queue}-settlement", queues


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (/proc/<pid>/stat, clock ticks)."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _slow_fast_quote(temporal_env, settings, tenant, monkeypatch, check) -> None:
    """A pricing worker process (pool of one) on a private queue; the lifecycle and documents
    workers and the API in this process; a fast quote priced with many paths. `check(proc,
    client, quote_id)` runs once the quote is `running`."""
    from api.app import create_app
    from workflows.worker import Workers

    first = (await tenant.get(f"/internal/coverages?{QUERY}")).json()
    body = await wait_until_priced(tenant, QUERY, len(first["content"]))
    coverage_ids = [c["id"] for c in body["content"] if c["status"] == "ACTIVE"][:2]
    queue = f"drain-{uuid.uuid4()}"
    address = temporal_env.client.service_client.config.target_host
    app_settings = replace(settings, temporal_address=address, task_queue=queue, simulations=SLOW_SIMULATIONS)
    monkeypatch.setenv("WORKER_SHUTDOWN_SECONDS", "180")  # however slow the machine, the pricing ends in it
    proc = await worker_process(address, queue, "--queue", "pricing", "--pricing-processes", "1")
    try:
        async with Workers(temporal_env.client, queue, queues=("lifecycle", "documents")):
            async with Server(create_app(app_settings, temporal_env.client), free_port()) as server:
                async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as http:
                    client = Tenant(tenant.credentials, http)
                    partner = (await client.post("/internal/business-partners", json=PARTNER)).json()["id"]
                    r = await client.post("/internal/fast-quotes", json=new_fast_quote(partner, coverage_ids))
                    assert r.status_code == 201, r.text
                    quote_id = r.json()["id"]
                    running = await wait_for_state(client, quote_id, ("running", "completed", "error"), timeout=60)
                    assert running["state"] == "running", "the test needs the pricing under way"
                    await check(proc, client, quote_id)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await proc.wait()


async def test_a_fast_quotes_monte_carlo_runs_in_the_pricing_pools_process(temporal_env, settings, tenant, monkeypatch):
    async def check(proc, client, quote_id) -> None:
        pool = _children(proc.pid)
        main_before = _cpu_seconds(proc.pid)
        pool_before = sum(_cpu_seconds(pid) for pid in pool)
        # One second of the pricing (it takes several on this machine; a faster one finished
        # a 2 s window before it ended, so the window is short and the quote must still be
        # running at its end for the figures to be the pricing's).
        await asyncio.sleep(1.0)
        main = _cpu_seconds(proc.pid) - main_before
        in_pool = sum(_cpu_seconds(pid) for pid in pool) - pool_before
        assert (await client.get(f"/internal/quotes/{quote_id}")).json()["state"] == "running"
        # Old code: the simulation ran on a thread of the main process (pool idle).
        assert in_pool > 0.3, (main, in_pool)
        assert main < 0.25 * in_pool, f"the worker's main process spent {main:.2f} s of CPU, its pool {in_pool:.2f} s"

    await _slow_fast_quote(temporal_env, settings, tenant, monkeypatch, check)


async def test_sigterm_lets_the_activity_in_flight_finish(temporal_env, settings, tenant, monkeypatch):
    async def check(proc, client, quote_id) -> None:
        os.killpg(proc.pid, signal.SIGTERM)  # the whole group, as a process manager stops it
        assert await asyncio.wait_for(proc.wait(), 240) == 0
        # No other pricing worker polls this queue: only a finished first attempt completes it.
        done = await wait_for_state(client, quote_id, ("completed", "error"), timeout=120)
        assert done["state"] == "completed", done
        history = await temporal_env.client.get_workflow_handle(
            quote_workflow_id(client.id, uuid.UUID(quote_id))
        ).fetch_history()
        pricing = {
            e.event_id
            for e in history.events
            if e.HasField("activity_task_scheduled_event_attributes")
            and e.activity_task_scheduled_event_attributes.activity_type.name == "price_fast_quote"
        }
        started = [
            e.activity_task_started_event_attributes.attempt
            for e in history.events
            if e.HasField("activity_task_started_event_attributes")
            and e.activity_task_started_event_attributes.scheduled_event_id in pricing
        ]
        completed = [
            e
            for e in history.events
            if e.HasField("activity_task_completed_event_attributes")
            and e.activity_task_completed_event_attributes.scheduled_event_id in pricing
        ]
        assert started == [1] and len(completed) == 1, (started, completed)

    await _slow_fast_quote(temporal_env, settings, tenant, monkeypatch, check)

