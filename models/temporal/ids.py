"""Workflow ids: what ops read in the Temporal UI (`<kind>:<tenant>:<id>`). Defined in
models/workflow_ids.py, which the records may import too; re-exported here for the contract."""

from __future__ import annotations

from models.workflow_ids import (  # noqa: F401 - re-exported
    business_partner_workflow_id,
    quote_workflow_id,
    policy_workflow_id,
    coverage_pricing_workflow_id,
    catalogue_workflow_id,
    coverage_documents_workflow_id,
    policy_schedule_workflow_id,
    settlement_workflow_id,
    webhook_delivery_workflow_id,
    webhook_delivery_round,
    claim_report_workflow_id,
)
