"""Workflow ids: what ops read in the Temporal UI (`<kind>:<tenant>:<id>`).

Names both the Temporal contract (models/temporal/ids.py re-exports them) and the records
(a pricing run records the workflow that priced it) use: here, where both may import them."""

from __future__ import annotations

import uuid


def business_partner_workflow_id(tenant_id: uuid.UUID | str, partner_id: uuid.UUID | str) -> str:
    return f"business-partner:{tenant_id}:{partner_id}"


def quote_workflow_id(tenant_id: uuid.UUID | str, quote_id: uuid.UUID | str) -> str:
    return f"quote:{tenant_id}:{quote_id}"


def policy_workflow_id(tenant_id: uuid.UUID | str, policy_id: uuid.UUID | str) -> str:
    return f"policy:{tenant_id}:{policy_id}"


def coverage_pricing_workflow_id(coverage_id: uuid.UUID | str, version: int) -> str:
    return f"coverage-pricing:{coverage_id}:{version}"


def catalogue_workflow_id(target_id: str) -> str:
    return f"catalogue:{target_id}"


def coverage_documents_workflow_id(coverage_id: uuid.UUID | str, version: int) -> str:
    return f"coverage-documents:{coverage_id}:{version}"


def policy_schedule_workflow_id(tenant_id: uuid.UUID | str, policy_id: uuid.UUID | str, canceled: bool = False) -> str:
    """`policy-schedule:<tenant>:<policy>` renders the schedule at activation; with
    `canceled`, `...:canceled` renders it again once the policy is cancelled (the document
    describes the policy as it is now)."""
    return f"policy-schedule:{tenant_id}:{policy_id}" + (":canceled" if canceled else "")


def settlement_workflow_id(target_id: str, start, end) -> str:
    """One settlement per monitoring target and risk period: all covers over it, all policies."""
    return f"settlement:{target_id}:{start}:{end}"


HELD_ROUND = ":after-hold-"


def webhook_delivery_workflow_id(delivery_id: str, held_times: int = 0) -> str:
    """`webhook:<message id>:<endpoint id>`: one delivery of one message to one endpoint.
    A delivery a payout hold stopped on its way (`held_times` > 0) is sent after the
    release by a run of its own, `webhook:<message id>:<endpoint id>:after-hold-<n>`: a
    closed run's id is never used again."""
    return f"webhook:{delivery_id}" + (f"{HELD_ROUND}{held_times}" if held_times else "")


def webhook_delivery_round(delivery_id: str, workflow_id: str) -> int | None:
    """The `held_times` a delivery run was started for, read from its workflow id (None: not
    a delivery run's id, e.g. an activity run by hand)."""
    base = webhook_delivery_workflow_id(delivery_id)
    if workflow_id == base:
        return 0
    rest = workflow_id.removeprefix(base + HELD_ROUND)
    return int(rest) if rest != workflow_id and rest.isdigit() else None


def claim_report_workflow_id(tenant_id: uuid.UUID | str, event_id: uuid.UUID | str) -> str:
    return f"claim-report:{tenant_id}:{event_id}"
