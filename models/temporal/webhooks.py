"""Workflow and activity inputs of webhook delivery (fields only ever added, with defaults)."""

from __future__ import annotations

import msgspec

WEBHOOK_DELIVERY_WORKFLOW = "WebhookDeliveryWorkflow"
WEBHOOK_DISPATCH_WORKFLOW = "WebhookDispatchWorkflow"
DISPATCH_SCHEDULE_ID = "webhook-dispatch"


class DispatchInput(msgspec.Struct, frozen=True):
    task_queue: str  # the webhooks queue the delivery workflows run on
    limit: int = 1000
    # Deliveries another pass committed and did not start are started once this old (a
    # pass under way starts its own within seconds; starting them twice is harmless, but
    # needless).
    orphaned_after_seconds: int = 30


class DeliveryOutcome(msgspec.Struct, frozen=True):
    delivered: bool
    status_code: int | None = None
    detail: str = ""


class FinishDeliveryInput(msgspec.Struct, frozen=True):
    delivery_id: str
    delivered: bool
    reason: str = ""
