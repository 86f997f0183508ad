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


def policy_schedule_workflow_id(tenant_id: uuid.UUID | str, policy_id: uuid.UUID | str) -> str:
    return f"policy-schedule:{tenant_id}:{policy_id}"


def settlement_workflow_id(target_id: str, start, end) -> str:
    """One settlement per monitoring target and risk period: all covers over it, all policies."""
    return f"settlement:{target_id}:{start}:{end}"


def webhook_delivery_workflow_id(delivery_id: str) -> str:
    """`webhook:<message id>:<endpoint id>`: one delivery of one message to one endpoint."""
    return f"webhook:{delivery_id}"


def claim_report_workflow_id(tenant_id: uuid.UUID | str, event_id: uuid.UUID | str) -> str:
    return f"claim-report:{tenant_id}:{event_id}"
