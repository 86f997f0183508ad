"""Webhook dispatch through a crash between its commit and its starts (issue 25, finding
1b; docs/webhooks.md, "Dispatch").

Dispatch commits the deliveries it makes (and marks their messages dispatched), then starts
one delivery workflow each. A dispatcher that died in between left deliveries that never
started, and no pass looked for them again: the messages were lost. Every dispatch pass (the
`webhook-dispatch` Schedule's each minute, and the one after each settlement) now starts the
PENDING deliveries not started, too. Shown with the commit made and nothing started, and
with a real worker process SIGKILLed while it starts a month end's deliveries."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import signal
import uuid

from temporalio.client import ScheduleOverlapPolicy
from temporalio.service import RPCError

from models.db import webhooks as webhooks_db
from models.db.core import write_transaction
from models.db.tables import WebhookDelivery
from models.domain.webhooks import POLICY_EXPIRED
from models.temporal.ids import webhook_delivery_workflow_id
from models.temporal.queues import task_queue
from models.temporal.webhooks import DISPATCH_SCHEDULE_ID, WEBHOOK_DISPATCH_WORKFLOW, DispatchInput
from tests.api.test_webhooks import Receiver
from tests.conftest import Server, free_port, worker_process


async def _messages(tenant_id: uuid.UUID, n: int) -> list[str]:
    """`n` messages in the outbox, as a settlement writes them."""
    now = dt.datetime.now(dt.timezone.utc)
    rows = [
        webhooks_db.outbox_row(tenant_id, POLICY_EXPIRED, f"test-{uuid.uuid4()}", now, {"policyId": str(uuid.uuid4())})
        for _ in range(n)
    ]
    async with write_transaction():
        await webhooks_db.write_outbox(rows)
    return [r.id for r in rows]


async def _received_all(receiver: Receiver, ids: list[str], timeout: float, every=None) -> set[str]:
    """The message ids the receiver got, once it has all of `ids` (or the timeout passed);
    `every`: called every 5 s meanwhile."""
    loop = asyncio.get_running_loop()
    deadline = next_call = loop.time() + timeout
    if every is not None:
        next_call = loop.time()
    while True:
        got = {h["webhook-id"] for h, _ in receiver.received}
        if got >= set(ids) or loop.time() > deadline:
            return got
        if every is not None and loop.time() >= next_call:
            await every()
            next_call = loop.time() + 5
        await asyncio.sleep(0.2)


async def _deliveries(endpoint_id) -> list[dict]:
    return await WebhookDelivery.select(WebhookDelivery.id, WebhookDelivery.status).where(
        WebhookDelivery.endpoint_id == endpoint_id
    )


async def test_deliveries_committed_but_never_started_are_started_by_the_next_pass(service, temporal_env):
    tenant_id = uuid.uuid4()
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        endpoint = await webhooks_db.create_endpoint(str(tenant_id), f"{server.base_url}/hook", ["*"], "claims desk")
        ids = await _messages(tenant_id, 3)
        # A dispatch pass commits the deliveries ... and its process dies before starting them.
        await webhooks_db.dispatch_pending(1000)
        assert len(await _deliveries(endpoint["id"])) == 3
        await asyncio.sleep(1)
        assert receiver.received == []
        # The next pass (the Schedule's, a minute later: the deliveries are older than it
        # waits for, here none) finds the messages dispatched, and the deliveries not started.
        hooks = task_queue(service.task_queue, "webhooks")
        await temporal_env.client.execute_workflow(
            WEBHOOK_DISPATCH_WORKFLOW, DispatchInput(task_queue=hooks, orphaned_after_seconds=0),
            id=f"dispatch-{uuid.uuid4()}", task_queue=hooks, execution_timeout=dt.timedelta(seconds=60),
        )
        got = await _received_all(receiver, ids, timeout=60)
    assert got == set(ids)
    assert {d["status"] for d in await _deliveries(endpoint["id"])} == {"DELIVERED"}


MONTH_END = 300  # messages: their workflows take seconds to start, so the kill lands among them


def _kill_group(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def _dispatch_now(client) -> None:
    """The `webhook-dispatch` Schedule's next run, now (once the worker has created it: it
    does so after it starts polling)."""
    for _ in range(100):
        try:
            await client.get_schedule_handle(DISPATCH_SCHEDULE_ID).trigger(overlap=ScheduleOverlapPolicy.ALLOW_ALL)
            return
        except RPCError:
            await asyncio.sleep(0.1)
    raise AssertionError("the worker did not create the webhook-dispatch Schedule")


async def test_a_worker_killed_between_the_commit_and_the_starts_loses_no_message(temporal_env, database):
    client = temporal_env.client
    address = client.service_client.config.target_host
    queue = f"dispatch-killed-{uuid.uuid4()}"
    tenant_id = uuid.uuid4()
    receiver = Receiver()
    doomed = successor = None
    async with Server(receiver.app, free_port()) as server:
        endpoint = await webhooks_db.create_endpoint(str(tenant_id), f"{server.base_url}/hook", ["*"], "month end")
        ids = await _messages(tenant_id, MONTH_END)
        try:
            # A webhooks worker as `parametric worker --queue webhooks` runs it: it creates the
            # Schedules, whose dispatch pass it runs.
            doomed = await worker_process(address, queue, "--queue", "webhooks")
            await _dispatch_now(client)
            for _ in range(6000):  # until the pass has committed the deliveries
                if len(await _deliveries(endpoint["id"])) == MONTH_END:
                    break
                await asyncio.sleep(0.005)
            _kill_group(doomed)
            await doomed.wait()
            committed = await _deliveries(endpoint["id"])
            assert len(committed) == MONTH_END
            not_started = 0
            for d in committed:
                try:
                    await client.get_workflow_handle(webhook_delivery_workflow_id(d["id"])).describe()
                except RPCError:
                    not_started += 1
            assert 0 < not_started, "the kill must land between the commit and the last start"

            successor = await worker_process(address, queue, "--queue", "webhooks")
            # The Schedule's next passes (every 5 s here, not every minute): they start the
            # deliveries not started once those are 30 s old (a pass under way is left to start
            # its own).
            got = await _received_all(receiver, ids, timeout=240, every=lambda: _dispatch_now(client))
        finally:
            for proc in (doomed, successor):
                if proc is not None:
                    _kill_group(proc)
                    await proc.wait()
            for schedule_id in ("webhook-dispatch", "settlement-notices"):
                try:
                    await client.get_schedule_handle(schedule_id).delete()
                except RPCError:
                    pass
    print(f"\n{MONTH_END} messages; {not_started} deliveries committed but not started when the worker was killed; "
          f"received {len(got & set(ids))} of {MONTH_END}")
    assert got == set(ids), f"lost {len(set(ids) - got)} of {MONTH_END} messages"
