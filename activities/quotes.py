"""Quote and policy writes: short, idempotent, run as local activities by the lifecycles."""

from __future__ import annotations

from temporalio import activity

from models import quote_store as store
from models.commands import ConvertQuoteInput, PolicyTransitionInput, QuoteDraft, QuoteTransitionInput


@activity.defn
async def persist_quote(draft: QuoteDraft) -> None:
    await store.insert_quote(draft)


@activity.defn
async def convert_quote(command: ConvertQuoteInput) -> bool:
    return await store.convert_quote(command)


@activity.defn
async def transition_quote(command: QuoteTransitionInput) -> bool:
    return await store.transition_quote(command.tenant_id, command.quote_id, command.to_status, command.from_statuses)


@activity.defn
async def transition_policy(command: PolicyTransitionInput) -> bool:
    return await store.transition_policy(
        command.tenant_id, command.policy_id, command.to_status, command.from_statuses, command.at
    )
