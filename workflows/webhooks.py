"""Webhook delivery: one workflow per message and endpoint (`webhook:<message>:<endpoint>`),
on the webhooks task queue, so a slow or failing receiver never holds up settlement or the
lifecycle. The delivery activity is retried with exponential backoff for DELIVERY_WINDOW;
then the delivery is FAILED and the endpoint's failure count grows (disabled at
DISABLE_AFTER in a row). `WebhookDispatchWorkflow` turns the outbox into deliveries: run by
the `webhook-dispatch` Schedule every minute and after each settlement."""

from __future__ import annotations

import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.webhooks import deliver_webhook, dispatch_webhooks, finish_webhook_delivery
    from models.domain.webhooks import DELIVERY_WINDOW, FIRST_RETRY, LONGEST_RETRY
    from models.temporal.webhooks import (
        WEBHOOK_DELIVERY_WORKFLOW,
        WEBHOOK_DISPATCH_WORKFLOW,
        DeliveryOutcome,
        DispatchInput,
        FinishDeliveryInput,
    )

DELIVERY_RETRY = RetryPolicy(initial_interval=FIRST_RETRY, backoff_coefficient=2.0, maximum_interval=LONGEST_RETRY)
SHORT = dict(start_to_close_timeout=dt.timedelta(seconds=30), retry_policy=RetryPolicy(maximum_interval=dt.timedelta(seconds=30)))


@workflow.defn(name=WEBHOOK_DELIVERY_WORKFLOW)
class WebhookDeliveryWorkflow:
    @workflow.run
    async def run(self, delivery_id: str) -> str:
        try:
            outcome: DeliveryOutcome = await workflow.execute_activity(
                deliver_webhook,
                delivery_id,
                start_to_close_timeout=dt.timedelta(seconds=30),
                schedule_to_close_timeout=DELIVERY_WINDOW,
                retry_policy=DELIVERY_RETRY,
            )
            delivered, reason = outcome.delivered, outcome.detail
        except ActivityError as err:
            delivered, reason = False, str(err.cause or err)
        disabled = await workflow.execute_activity(
            finish_webhook_delivery, FinishDeliveryInput(delivery_id, delivered, reason), **SHORT
        )
        if delivered:
            return "DELIVERED"
        return "FAILED: " + reason + (" (endpoint disabled)" if disabled else "")


@workflow.defn(name=WEBHOOK_DISPATCH_WORKFLOW)
class WebhookDispatchWorkflow:
    @workflow.run
    async def run(self, request: DispatchInput) -> int:
        return await workflow.execute_activity(
            dispatch_webhooks,
            request,
            start_to_close_timeout=dt.timedelta(minutes=10),
            heartbeat_timeout=dt.timedelta(minutes=1),
            retry_policy=RetryPolicy(maximum_interval=dt.timedelta(minutes=1)),
        )
