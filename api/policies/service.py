"""The policy transitions of the tenant surface: activate a draft, cancel a policy; each is one
update of the policy's PolicyWorkflow, called by name (docs/quotes-and-policies.md)."""

from __future__ import annotations

import uuid

from temporalio.client import Client

from api.idempotency import TransitionKey
from api.lifecycle import run_update
from api.problems import NotFound
from models.db import policies as policies_db
from models.db.records import PolicyRow
from models.settings import Settings
from models.temporal.ids import policy_workflow_id
from models.temporal.policies import ACTIVATE_UPDATE, CANCEL_UPDATE


async def policy_or_404(tenant_id: str, policy_id: uuid.UUID) -> PolicyRow:
    """The tenant's policy row; another tenant's policy is a 404."""
    row = await policies_db.policy_row(tenant_id, policy_id)
    if row is None:
        raise NotFound(f"policy {policy_id} does not exist")
    return row


async def _transition(
    update: str, verb: str, row: PolicyRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey
) -> None:
    handle = temporal.get_workflow_handle(policy_workflow_id(tenant_id, row.id))
    await run_update(
        handle, update, f"cannot {verb} the policy in state {row.status}", key,
        deadline=settings.request_deadline_seconds,
    )


async def activate_policy(row: PolicyRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey) -> None:
    """CREATED → ACCEPTED (the workflow refuses a lapsed draft or one past its deadline)."""
    await _transition(ACTIVATE_UPDATE, "activate", row, tenant_id, temporal, settings, key)


async def cancel_policy(row: PolicyRow, tenant_id: str, temporal: Client, settings: Settings, key: TransitionKey) -> None:
    """ACCEPTED or ACTIVE → CANCELED: its covers no longer trigger."""
    await _transition(CANCEL_UPDATE, "cancel", row, tenant_id, temporal, settings, key)
