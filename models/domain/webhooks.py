"""What the service tells tenants' webhook endpoints, and when (docs/webhooks.md). Pure."""

from __future__ import annotations

import datetime as dt
import uuid

EVENT_VALIDATED = "parametric_event.validated"  # a settlement that pays
PAYOUT_RECORDED = "payout.recorded"
ADJUSTMENT_RECORDED = "adjustment.recorded"  # a revision of final data changed a payout
POLICY_EXPIRED = "policy.expired"  # after its last settlement
COVERAGE_FLAGGED = "coverage.flagged"  # data missing past its window: ops act, payouts wait
EVENT_TYPES = (EVENT_VALIDATED, PAYOUT_RECORDED, ADJUSTMENT_RECORDED, POLICY_EXPIRED, COVERAGE_FLAGGED)
# The messages that instruct a payment: not sent while the policy's payouts are on hold (the
# validated event itself is a fact and goes out).
HELD_EVENT_TYPES = (PAYOUT_RECORDED, ADJUSTMENT_RECORDED)

# Delivery: retried with exponential backoff (5 s doubling to 1 h between attempts) for
# DELIVERY_WINDOW; a message still not accepted then is FAILED. An endpoint whose last
# DISABLE_AFTER messages all failed is disabled (ops see why; re-enabling is an API call).
DELIVERY_WINDOW = dt.timedelta(hours=24)
FIRST_RETRY = dt.timedelta(seconds=5)
LONGEST_RETRY = dt.timedelta(hours=1)
DISABLE_AFTER = 5
TIMEOUT_SECONDS = 10.0
MESSAGE_NAMESPACE = uuid.UUID("5b0d7c1e-8f0a-4c3e-9a61-2d4e6f8a0b13")


def message_id(event_type: str, key: str) -> str:
    """A stable message id (the `webhook-id` header) from what it reports: a retried write
    produces the same message, and receivers dedupe on it."""
    return f"msg_{uuid.uuid5(MESSAGE_NAMESPACE, f'{event_type}:{key}').hex}"


def envelope(event_type: str, at: dt.datetime, data: dict) -> dict:
    """The JSON body of every webhook: {type, timestamp, data}."""
    return {"type": event_type, "timestamp": at.isoformat(), "data": data}


def subscribed(event_types: list[str], event_type: str) -> bool:
    return "*" in event_types or event_type in event_types
