"""Exactly once through real faults (issue 13): a settlement of 5,000 policies whose
worker process is killed with SIGKILL mid-activity, and one whose Temporal dev server
is killed and restarted mid-activity, each end with exactly one event per (policy, cover),
one payout per paying event and one webhook message per kind: nothing lost, nothing twice.

The policies are seeded in the database (bench/_settlement_seed.py: what conversion and
activation write) over last month, with final rainfall that pays every excess cover its
line item's whole sum insured; the settlement workflow is started as a policy starts it.
Four in five policies were activated mid-month (four pages of the policy-by-policy path,
a transaction each); the others are in force all through the month, at five quantities,
settled set-based in one last transaction: the fault lands between two of them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import uuid
from decimal import Decimal
from pathlib import Path

from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from bench._settlement_seed import free_targets, months_back, seed
from models.clock import utcnow
from models.db.tables import ParametricEvent, Payout, Settlement, WebhookMessage
from models.temporal.converter import data_converter
from models.temporal.ids import settlement_workflow_id
from models.temporal.search_attributes import SEARCH_ATTRIBUTES
from models.temporal.settlement import SETTLEMENT_WORKFLOW, SettlementInput
from tests.conftest import free_port, temporal_binary, worker_process
from workflows.worker import Workers

POLICIES = 5000


async def _seeded():
    [target] = await free_targets(1)
    [month] = months_back(utcnow().date(), 1)
    seeded = await seed(POLICIES, [target], [month], {target: [Decimal(600)]}, quantities=5, late_percent=80)
    return target, month, seeded


async def _counts(policy_ids) -> tuple[int, int, int]:
    ids = list(policy_ids)
    events = payouts = 0
    for i in range(0, len(ids), 500):
        events += await ParametricEvent.count().where(ParametricEvent.policy_id.is_in(ids[i : i + 500]))
        payouts += await Payout.count().where(Payout.policy_id.is_in(ids[i : i + 500]))
    return events, payouts, 0


async def _start(client: Client, queue: str, target: str, month) -> None:
    await client.start_workflow(
        SETTLEMENT_WORKFLOW,
        SettlementInput(target_id=target, start=month[0], end=month[1]),
        id=settlement_workflow_id(target, month[0], month[1]),
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )


async def _wait_settled(target: str, timeout: float) -> None:
    for _ in range(int(timeout * 10)):
        rows = await Settlement.select(Settlement.state).where(Settlement.monitoring_target_id == target)
        if rows and all(r["state"] == "SETTLED" for r in rows) and len(rows) == 2:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not settled in {timeout} s: {rows}")


async def _wait_mid_activity(policy_ids, timeout: float = 120) -> int:
    """Until some but not all events are written: the activity is between transactions."""
    for _ in range(int(timeout * 20)):
        events, _, _ = await _counts(policy_ids)
        if 0 < events < 2 * POLICIES:
            return events
        assert events < 2 * POLICIES, "the settlement finished before the fault could land"
        await asyncio.sleep(0.05)
    raise AssertionError("no event written")


async def _assert_exactly_once(seeded, tenant_messages: bool = True) -> None:
    ids = seeded["policies"]
    events, payouts, _ = await _counts(ids)
    assert events == 2 * POLICIES  # one per (policy, cover): the excess pays, the deficit does not
    assert payouts == POLICIES
    paid = 0
    for i in range(0, len(ids), 500):
        rows = await Payout.select(Payout.amount_minor).where(Payout.policy_id.is_in(ids[i : i + 500]))
        paid += sum(r["amount_minor"] for r in rows)
    assert paid == POLICIES * 25_000_000  # each line item's whole sum insured, once
    messages = await WebhookMessage.count().where(WebhookMessage.tenant_id == seeded["tenant"])
    assert messages == 2 * POLICIES  # event validated + payout recorded, once each


def _kill_group(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def test_a_worker_killed_mid_settlement_loses_and_duplicates_nothing(temporal_env, database):
    target, month, seeded = await _seeded()
    queue = f"settle-killed-{uuid.uuid4()}"
    address = temporal_env.client.service_client.config.target_host
    doomed = await worker_process(address, queue, "--queue", "lifecycle", "--queue", "settlement")
    successor = None
    try:
        await _start(temporal_env.client, queue, target, month)
        written = await _wait_mid_activity(seeded["policies"])
        _kill_group(doomed)
        await doomed.wait()
        events, _, _ = await _counts(seeded["policies"])
        assert events < 2 * POLICIES, "the kill must land before the last page"
        successor = await worker_process(address, queue, "--queue", "lifecycle", "--queue", "settlement")
        await _wait_settled(target, timeout=240)
        await _assert_exactly_once(seeded)
        handle = temporal_env.client.get_workflow_handle(settlement_workflow_id(target, *month))
        attempts = [
            e.activity_task_started_event_attributes.attempt
            for e in (await handle.fetch_history()).events
            if e.HasField("activity_task_started_event_attributes")
        ]
        assert max(attempts) >= 2, attempts  # the settle activity ran again on the new worker
        assert written > 0
        await handle.terminate("test over")
    finally:
        _kill_group(doomed)
        if successor is not None:
            _kill_group(successor)
            await successor.wait()


def _dev_server(db_file: Path, port: int) -> subprocess.Popen:
    cmd = [temporal_binary(), "server", "start-dev", "--ip", "127.0.0.1", "--port", str(port),
           "--http-port", str(free_port()), "--metrics-port", str(free_port()), "--headless",
           "--db-filename", str(db_file), "--log-level", "error"]
    for name, kind in SEARCH_ATTRIBUTES.items():
        cmd += ["--search-attribute", f"{name}={kind}"]
    return subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _connect(address: str) -> Client:
    for _ in range(300):
        try:
            return await Client.connect(address, data_converter=data_converter)
        except Exception:
            await asyncio.sleep(0.1)
    raise AssertionError("the dev server did not come up")


async def test_the_temporal_server_restarted_mid_settlement_loses_and_duplicates_nothing(database, tmp_path):
    target, month, seeded = await _seeded()
    port = free_port()
    address = f"127.0.0.1:{port}"
    server = _dev_server(tmp_path / "temporal.db", port)
    try:
        client = await _connect(address)
        queue = f"settle-restart-{uuid.uuid4()}"
        async with Workers(client, queue, queues=("lifecycle", "settlement")):
            await _start(client, queue, target, month)
            await _wait_mid_activity(seeded["policies"])
            _kill_group(server)
            server.wait()
            await asyncio.sleep(1)
            server = _dev_server(tmp_path / "temporal.db", port)  # the same database file
            await _connect(address)
            await _wait_settled(target, timeout=240)
            await _assert_exactly_once(seeded)
            await client.get_workflow_handle(settlement_workflow_id(target, *month)).terminate("test over")
    finally:
        _kill_group(server)
        server.wait()
