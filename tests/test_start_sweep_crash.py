"""Starts lost by a crash after their row's commit are made by the start sweep (issue 33,
section 7): a pricing rerun commits its QUEUED `pricing_run` then starts its workflow; a held
observation revision commits its row HELD then starts its workflow. A crash between the two
left the run QUEUED for ever (nothing started it again) and the revision without its
workflow until a decision or the daily observations run (which exists only when providers
are configured).

The crash is real: an API process (`parametric api`) whose Temporal connection goes through
a gate the test closes before the request, so the commit lands and the start hangs; the test
SIGKILLs the process once the row is in the database. Then the start sweep (the
`StartSweepWorkflow` the `start-sweep` Schedule runs every minute, on the session's worker)
starts the workflow, once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import uuid
from decimal import Decimal

import httpx
import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from models.db import observation_revisions as revisions_db
from models.db.tables import PricingRun
from models.temporal.ids import coverage_pricing_workflow_id
from models.temporal.observations import RevisionStatus, revision_workflow_id
from models.temporal.queues import task_queue
from models.temporal.sweeps import START_SWEEP_WORKFLOW, StartSweepInput, StartSweepOutcome
from tests.api.test_coverages import wait_until_priced
from tests.api.test_observation_revisions import row, settled_past_policy
from tests.api.test_pricing_publication import wait_status
from tests.conftest import free_port

QUERY = "targetName=600001&from=2027-11-01&to=2027-11-30&size=100"  # Chennai, a month no other test prices


class Gate:
    """A TCP proxy to Temporal the test closes: once closed, what the client sends is held
    and never forwarded (the connection stays up, so a start hangs instead of failing)."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self._target = (host, int(port))
        self._open = asyncio.Event()
        self._open.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task] = set()

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc) -> None:
        self._server.close()
        for task in self._tasks:
            task.cancel()

    def close(self) -> None:
        self._open.clear()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(*self._target)

        async def pump(reader, writer, gated: bool) -> None:
            try:
                while data := await reader.read(65536):
                    if gated:
                        await self._open.wait()  # held while closed: never forwarded
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                writer.close()

        for task in (asyncio.create_task(pump(client_r, server_w, True)), asyncio.create_task(pump(server_r, client_w, False))):
            self._tasks.add(task)


async def _crash_after_commit(gate: Gate, proc: subprocess.Popen, request, committed) -> None:
    """Close the gate, send `request` (a coroutine factory), and SIGKILL the API process
    once `committed()` finds its row: the commit landed, the start did not."""
    gate.close()
    sent = asyncio.create_task(request())
    for _ in range(600):
        if await committed():
            break
        assert not sent.done() or isinstance(sent.exception(), httpx.TransportError), sent.result().text
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the row was never committed")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    with contextlib.suppress(httpx.TransportError):
        r = await sent
        raise AssertionError(f"the request was answered before the kill: {r.status_code} {r.text}")


async def _sweep(temporal_env, service) -> StartSweepOutcome:
    return await temporal_env.client.execute_workflow(
        START_SWEEP_WORKFLOW, StartSweepInput(base_queue=service.task_queue, grace_seconds=0),
        id=f"start-sweep-test-{uuid.uuid4()}", task_queue=task_queue(service.task_queue, "lifecycle"),
        result_type=StartSweepOutcome,
    )


async def _absent(temporal_env, workflow_id: str) -> None:
    with pytest.raises(RPCError) as err:
        await temporal_env.client.get_workflow_handle(workflow_id).describe()
    assert err.value.status == RPCStatusCode.NOT_FOUND


@contextlib.asynccontextmanager
async def gated_api(service):
    """A real API process of the session's stack (its database, queues and signing keys),
    talking to Temporal through a Gate; yields (base URL, gate, process)."""
    port = free_port()
    gate = Gate(service.temporal_address)
    address = await gate.__aenter__()
    env = {**os.environ, "TEMPORAL_ADDRESS": address, "TEMPORAL_TASK_QUEUE": service.task_queue,
           "API_PORT": str(port), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "api.cli", "api", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(timeout=5) as http:
            for _ in range(240):
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get(f"{base}/health")).status_code == 200:
                        break
                assert proc.poll() is None, "the API process exited"
                await asyncio.sleep(0.25)
        yield base, gate, proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
        await gate.__aexit__(None, None, None)


async def test_a_rerun_whose_api_died_between_its_commit_and_its_start_is_started_by_the_sweep(
    service, temporal_env, tenant, actuary
):
    first = (await tenant.get(f"/internal/coverages?{QUERY}")).json()
    body = await wait_until_priced(tenant, QUERY, len(first["content"]))
    coverage_id = next(c["id"] for c in body["content"] if c["status"] == "ACTIVE")
    before = await PricingRun.count().where(PricingRun.coverage_id == uuid.UUID(coverage_id))

    async with gated_api(service) as (base, gate, proc), httpx.AsyncClient(timeout=60) as http:
        headers = await actuary.headers()

        async def request():
            return await http.post(f"{base}/internal/coverages/{coverage_id}/pricing-runs", headers=headers,
                                   json={"simulations": 2000})

        async def committed() -> bool:
            return await PricingRun.count().where(PricingRun.coverage_id == uuid.UUID(coverage_id)) > before

        await _crash_after_commit(gate, proc, request, committed)

    [queued] = await PricingRun.select(PricingRun.version, PricingRun.status, PricingRun.workflow_input).where(
        PricingRun.coverage_id == uuid.UUID(coverage_id)
    ).order_by(PricingRun.version, ascending=False).limit(1)
    assert queued["status"] == "QUEUED" and queued["workflow_input"] is not None
    workflow_id = coverage_pricing_workflow_id(coverage_id, queued["version"])
    await _absent(temporal_env, workflow_id)  # the orphan the crash left

    assert (await _sweep(temporal_env, service)).pricing_runs >= 1
    started = await temporal_env.client.get_workflow_handle(workflow_id).describe()
    run = await wait_status(actuary, f"/internal/coverages/{coverage_id}/pricing-runs/{queued['version']}", ("CANDIDATE",))
    assert run["simulations"] >= 2000  # priced with the input the API kept (rounded up to whole batches)
    # Again: nothing started twice (the id refuses a second start).
    await _sweep(temporal_env, service)
    again = await temporal_env.client.get_workflow_handle(workflow_id).describe()
    assert again.run_id == started.run_id


async def test_a_held_revision_whose_api_died_before_starting_its_workflow_is_started_by_the_sweep(
    service, temporal_env, tenant, data_staff
):
    policy = await settled_past_policy(tenant.id, Decimal(10))

    async with gated_api(service) as (base, gate, proc), httpx.AsyncClient(timeout=60) as http:
        headers = await data_staff.headers()

        async def request():
            return await http.post(f"{base}/internal/observations", headers=headers, json={
                "observations": [row(policy, policy.start, 20)], "reason": "IMD corrected the 1st"})

        async def committed() -> bool:
            return bool(await _held(policy.target))

        await _crash_after_commit(gate, proc, request, committed)

    [held] = await _held(policy.target)
    workflow_id = revision_workflow_id(held["id"])
    await _absent(temporal_env, workflow_id)  # held, and nothing in Temporal: it would never expire

    assert (await _sweep(temporal_env, service)).held_revisions >= 1
    handle = temporal_env.client.get_workflow_handle(workflow_id)
    started = await handle.describe()
    assert started.status == WorkflowExecutionStatus.RUNNING
    assert (await handle.query("status", result_type=RevisionStatus)).state == "HELD"
    await _sweep(temporal_env, service)  # running: left as it is
    assert (await handle.describe()).run_id == started.run_id


async def _held(target: str) -> list[dict]:
    return [r for r in await revisions_db.held_revisions() if target in json.dumps(r["rows"], default=str)]


async def test_the_start_sweep_is_scheduled_whatever_providers_are_configured(service, temporal_env, settings):
    """The Schedule exists with no provider configured (unlike the daily observations run,
    until now the only other restart of a held revision's workflow), and its run sweeps."""
    from dataclasses import replace

    from models.temporal.sweeps import START_SWEEP_SCHEDULE_ID
    from tests.schedules import remove_schedules, triggered_run
    from workflows.worker import ensure_schedules

    client = temporal_env.client
    await ensure_schedules(client, replace(settings, task_queue=service.task_queue, observation_providers=()))
    try:
        await client.get_schedule_handle(START_SWEEP_SCHEDULE_ID).describe()  # there, with no provider configured
        assert isinstance(await triggered_run(client, START_SWEEP_SCHEDULE_ID, StartSweepOutcome), StartSweepOutcome)
    finally:
        await remove_schedules(client)
