"""A worker process killed (SIGKILL, for real) while a fast quote's pricing activity runs loses
nothing (issue 12): the quote stays `running`, and once a new worker process polls the pricing
queue the activity runs again (after its heartbeat timeout) and the quote completes with its
report and document.

The pricing worker is `python -m workflows.worker --queue pricing`, a separate process as
`make dev` runs it; the lifecycle and documents workers and the API run in the test process
on a private task queue. The quote is priced with many paths so that the kill lands while the
activity is simulating (it has marked the quote `running` as it started)."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from dataclasses import replace

import httpx

from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.api.test_fast_quotes import new_fast_quote, wait_for_state
from tests.conftest import Server, Tenant, free_port, worker_process

QUERY = "targetName=400001&from=2027-07-01&to=2027-07-31&size=100"
SLOW_SIMULATIONS = 1 << 23  # about 8.4 million paths: seconds of pricing


def _kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the worker and its pool (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def test_a_worker_killed_during_pricing_loses_nothing(temporal_env, settings, tenant):
    from api.app import create_app
    from models.temporal.ids import quote_workflow_id
    from workflows.worker import Workers

    first = (await tenant.get(f"/internal/coverages?{QUERY}")).json()
    body = await wait_until_priced(tenant, QUERY, len(first["content"]))
    coverage_ids = [c["id"] for c in body["content"] if c["status"] == "ACTIVE"][:2]

    queue = f"killed-{uuid.uuid4()}"
    address = temporal_env.client.service_client.config.target_host
    app_settings = replace(settings, temporal_address=address, task_queue=queue, simulations=SLOW_SIMULATIONS)
    doomed = await worker_process(address, queue, "--queue", "pricing", "--pricing-processes", "1")
    successor = None
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
                    assert running["state"] == "running", "the kill must land while the activity runs"
                    _kill(doomed)
                    await doomed.wait()
                    await asyncio.sleep(2)
                    assert (await client.get(f"/internal/quotes/{quote_id}")).json()["state"] == "running"

                    successor = await worker_process(address, queue, "--queue", "pricing", "--pricing-processes", "1")
                    done = await wait_for_state(client, quote_id, ("completed", "error"), timeout=240)
                    assert done["state"] == "completed", done
                    assert done["pricingReport"]["expectedPayout"]
                    assert done["pricingReport"]["simulations"] >= SLOW_SIMULATIONS
                    document = await client.get(f"/internal/files/{done['quoteDocumentFileId']}")
                    assert document.status_code == 200 and document.content.startswith(b"%PDF")

                    # The history shows the pricing activity's second attempt, on the new worker.
                    handle = temporal_env.client.get_workflow_handle(quote_workflow_id(tenant.id, uuid.UUID(quote_id)))
                    attempts = [
                        e.activity_task_started_event_attributes.attempt
                        for e in (await handle.fetch_history()).events
                        if e.HasField("activity_task_started_event_attributes")
                    ]
                    assert max(attempts) >= 2, attempts
    finally:
        _kill(doomed)
        if successor is not None:
            _kill(successor)
            await successor.wait()
