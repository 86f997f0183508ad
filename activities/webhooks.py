"""Webhook activities: dispatch the outbox into deliveries, and deliver one signed message
(Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` v1 HMAC-SHA256
over `id.timestamp.body`, signed with the `standardwebhooks` package)."""

from __future__ import annotations

import json

import httpx
from standardwebhooks import Webhook
from temporalio import activity
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError

from models.clock import utcnow
from models.db import webhooks as webhooks_db
from models.db.core import json_value
from models.domain.webhooks import TIMEOUT_SECONDS
from models.temporal.ids import webhook_delivery_workflow_id
from models.temporal.webhooks import WEBHOOK_DELIVERY_WORKFLOW, DeliveryOutcome, DispatchInput, FinishDeliveryInput


@activity.defn
async def dispatch_webhooks(request: DispatchInput) -> int:
    """Undispatched outbox messages → one delivery workflow per (message, endpoint)."""
    client = activity.client()
    started = 0
    while True:
        ids = await webhooks_db.dispatch_pending(request.limit)
        for delivery_id in ids:
            await client.start_workflow(
                WEBHOOK_DELIVERY_WORKFLOW,
                delivery_id,
                id=webhook_delivery_workflow_id(delivery_id),
                task_queue=request.task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                static_summary=f"Webhook {delivery_id.split(':')[0]}",
            )
            started += 1
        activity.heartbeat(started)
        if not ids:
            return started


@activity.defn
async def deliver_webhook(delivery_id: str) -> DeliveryOutcome:
    """POST the message, signed, to the endpoint; a 2xx answer delivers it. Anything else
    raises (retried with backoff by the workflow's policy); a disabled or deleted endpoint
    ends the delivery without sending."""
    job = await webhooks_db.delivery_job(delivery_id)
    if job is None:
        return DeliveryOutcome(delivered=False, detail="the message or the endpoint is gone")
    delivery, message, endpoint = job
    if delivery["status"] == "DELIVERED":
        return DeliveryOutcome(delivered=True, status_code=delivery["last_status_code"], detail="delivered before")
    if endpoint["status"] != "ENABLED":
        return DeliveryOutcome(delivered=False, detail=f"endpoint disabled: {endpoint['disabled_reason']}")
    body = json.dumps(json_value(message["payload"]), separators=(",", ":"), sort_keys=True)
    now = utcnow()
    headers = {
        "content-type": "application/json",
        "webhook-id": message["id"],
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(endpoint["secret"]).sign(message["id"], now, body),
        "user-agent": "parametric-insurance-webhooks/1",
    }
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False) as http:
            response = await http.post(endpoint["url"], content=body.encode(), headers=headers)
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
        await webhooks_db.record_attempt(delivery_id, None, error, delivered=False)
        raise ApplicationError(f"{endpoint['url']}: {error}", type="WebhookNotDelivered") from None
    if 200 <= response.status_code < 300:
        await webhooks_db.record_attempt(delivery_id, response.status_code, "", delivered=True)
        return DeliveryOutcome(delivered=True, status_code=response.status_code)
    error = f"HTTP {response.status_code}: {response.text[:200]}"
    await webhooks_db.record_attempt(delivery_id, response.status_code, error, delivered=False)
    raise ApplicationError(f"{endpoint['url']} answered {error}", type="WebhookNotDelivered")


@activity.defn
async def finish_webhook_delivery(request: FinishDeliveryInput) -> bool:
    """The delivery's outcome; True if its endpoint was disabled by this failure."""
    return await webhooks_db.finish_delivery(request.delivery_id, request.delivered, request.reason)
