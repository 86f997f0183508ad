"""A receiver that keeps failing, on the time-skipping server: each message is retried with
backoff over the whole delivery window (24 h, skipped), then FAILED; after DISABLE_AFTER
failed messages in a row the endpoint is disabled and says why. A receiver that recovers
within the window gets the message, once per attempt until it accepts."""

from __future__ import annotations

import datetime as dt
import uuid

from models.db import webhooks as webhooks_db
from models.db.core import write_transaction
from models.db.tables import WebhookDelivery
from models.domain.webhooks import DELIVERY_WINDOW, DISABLE_AFTER, POLICY_EXPIRED
from models.temporal.ids import webhook_delivery_workflow_id
from models.temporal.queues import task_queue
from models.temporal.webhooks import WEBHOOK_DISPATCH_WORKFLOW, DispatchInput
from tests.api.test_webhooks import Receiver
from tests.conftest import Server, free_port
from tests.test_lifecycles_time_skipping import advance, result_of, skipping_env, worker  # noqa: F401 - fixtures


async def _messages(tenant_id: uuid.UUID, n: int) -> list[str]:
    now = dt.datetime.now(dt.timezone.utc)
    rows = [
        webhooks_db.outbox_row(tenant_id, POLICY_EXPIRED, f"test-{uuid.uuid4()}", now, {"policyId": str(uuid.uuid4())})
        for _ in range(n)
    ]
    async with write_transaction():
        await webhooks_db.write_outbox(rows)
    return [r.id for r in rows]


async def test_a_failing_receiver_is_retried_over_the_window_then_disabled(skipping_env, worker):
    env = skipping_env
    receiver = Receiver(status=500)
    tenant_id = uuid.uuid4()
    async with Server(receiver.app, free_port()) as server:
        endpoint = await webhooks_db.create_endpoint(str(tenant_id), f"{server.base_url}/hook", ["*"], "flaky")
        ids = await _messages(tenant_id, DISABLE_AFTER)
        queue = task_queue(worker, "webhooks")
        started = await env.client.execute_workflow(
            WEBHOOK_DISPATCH_WORKFLOW, DispatchInput(task_queue=queue), id=f"dispatch-{uuid.uuid4()}", task_queue=queue,
            result_type=int,
        )
        assert started == DISABLE_AFTER
        # The test server skips activity retry backoff only while something waits on time.
        await advance(env, worker, DELIVERY_WINDOW + dt.timedelta(hours=1))
        outcomes = [await result_of(env, webhook_delivery_workflow_id(f"{m}:{endpoint['id']}")) for m in ids]
    assert all(o.startswith("FAILED: ") and "HTTP 500" in o for o in outcomes)
    assert sum(o.endswith("(endpoint disabled)") for o in outcomes) == 1  # the fifth failure disables it
    rows = await WebhookDelivery.select().where(WebhookDelivery.endpoint_id == endpoint["id"])
    assert {r["status"] for r in rows} == {"FAILED"}
    # Backoff from 5 s doubling to 1 h over 24 h: about 34 attempts each, none lost.
    assert all(25 <= r["attempts"] <= 40 for r in rows), [r["attempts"] for r in rows]
    assert len(receiver.received) == sum(r["attempts"] for r in rows)
    after = await webhooks_db.endpoint_of(str(tenant_id), endpoint["id"])
    assert after["status"] == "DISABLED" and "HTTP 500" in after["disabled_reason"]
    assert f"{DISABLE_AFTER} messages in a row" in after["disabled_reason"]


async def test_a_receiver_that_recovers_gets_the_message(skipping_env, worker):
    env = skipping_env
    receiver = Receiver(status=503)
    tenant_id = uuid.uuid4()
    async with Server(receiver.app, free_port()) as server:
        endpoint = await webhooks_db.create_endpoint(str(tenant_id), f"{server.base_url}/hook", ["*"], "")
        [message] = await _messages(tenant_id, 1)
        queue = task_queue(worker, "webhooks")
        await env.client.execute_workflow(
            WEBHOOK_DISPATCH_WORKFLOW, DispatchInput(task_queue=queue), id=f"dispatch-{uuid.uuid4()}", task_queue=queue
        )
        while len(receiver.received) < 3:
            await env.sleep(dt.timedelta(seconds=30))
        receiver.status = 204
        assert await result_of(env, webhook_delivery_workflow_id(f"{message}:{endpoint['id']}")) == "DELIVERED"
    row = await WebhookDelivery.select().where(WebhookDelivery.id == f"{message}:{endpoint['id']}").first()
    assert row["status"] == "DELIVERED" and row["attempts"] == len(receiver.received) >= 4
    assert {h["webhook-id"] for h, _ in receiver.received} == {message}  # the same id on every attempt
    assert (await webhooks_db.endpoint_of(str(tenant_id), endpoint["id"]))["failed_deliveries"] == 0


async def test_failures_finishing_at_once_are_all_counted(database):
    """DISABLE_AFTER deliveries failing at the same moment (their workflows' last activities
    run together) each count: the endpoint is disabled once, by the last of them. On
    PostgreSQL, a read-then-write of the count lost increments and never disabled it."""
    import asyncio

    from models.db.core import insert_rows

    tenant_id = uuid.uuid4()
    endpoint = await webhooks_db.create_endpoint(str(tenant_id), "http://127.0.0.1:9/hook", ["*"], "down")
    now = dt.datetime.now(dt.timezone.utc)
    ids = [f"msg_{uuid.uuid4().hex}:{endpoint['id']}" for _ in range(DISABLE_AFTER)]
    async with write_transaction():
        await insert_rows([
            WebhookDelivery(id=i, tenant_id=tenant_id, message_id=i.split(":")[0], endpoint_id=endpoint["id"],
                            created_at=now, updated_at=now)
            for i in ids
        ])
    disabled = await asyncio.gather(*(webhooks_db.finish_delivery(i, False, "HTTP 500") for i in ids))
    assert sum(disabled) == 1
    after = await webhooks_db.endpoint_of(str(tenant_id), endpoint["id"])
    assert after["failed_deliveries"] == DISABLE_AFTER and after["status"] == "DISABLED"
