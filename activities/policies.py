"""Policy writes: the conversion of a quote into a policy draft and the policy's status
changes, short and idempotent, run as local activities by the policy lifecycle.

`convert_quote` and `transition_policy` serve workflows started before the outcome-checked
lifecycle (docs/workflow-versioning.md)."""

from __future__ import annotations

from temporalio import activity

from models.db import policies as policies_db
from models.temporal.lifecycle import TransitionOutcome
from models.temporal.policies import (
    ConvertToPolicyInput,
    PolicyStatusInput,
    PolicyTransitionInput,
)
from models.temporal.quotes import (
    ConvertQuoteInput,
)


@activity.defn
async def convert_quote(command: ConvertQuoteInput) -> bool:
    return await policies_db.convert_quote(command)


@activity.defn
async def transition_policy(command: PolicyTransitionInput) -> bool:
    return await policies_db.transition_policy(
        command.tenant_id, command.policy_id, command.to_status, command.from_statuses, command.at
    )


@activity.defn
async def convert_to_policy(command: ConvertToPolicyInput) -> TransitionOutcome:
    return await policies_db.convert_to_policy(command)


@activity.defn
async def set_policy_status(command: PolicyStatusInput) -> TransitionOutcome:
    return await policies_db.set_policy_status(
        command.tenant_id, command.policy_id, command.to_status, command.from_statuses, command.at
    )
