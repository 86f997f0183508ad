"""Quote and policy writes: short, idempotent, run as local activities by the lifecycles.

Each write reports its outcome (`TransitionOutcome`: the row's status afterwards and whether
this write changed it), so a workflow never assumes a write did what it asked. The first
four activities serve workflows started before the outcome-checked lifecycle (their
histories replay against them) and stay registered until those have ended."""

from __future__ import annotations

from temporalio import activity

from models import quote_store as store
from models.commands import (
    ConvertQuoteInput,
    ConvertToPolicyInput,
    PolicyStatusInput,
    PolicyTransitionInput,
    QuoteDraft,
    QuoteTransitionInput,
    QuoteWriteInput,
    TransitionOutcome,
)


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


# --- outcome-checked writes ----------------------------------------------------------------------


@activity.defn
async def record_quote(draft: QuoteDraft) -> TransitionOutcome:
    return await store.record_quote(draft)


@activity.defn
async def convert_to_policy(command: ConvertToPolicyInput) -> TransitionOutcome:
    return await store.convert_to_policy(command)


@activity.defn
async def reject_quote(command: QuoteWriteInput) -> TransitionOutcome:
    return await store.reject_quote(command)


@activity.defn
async def expire_quote(command: QuoteWriteInput) -> TransitionOutcome:
    return await store.expire_quote(command)


@activity.defn
async def set_policy_status(command: PolicyStatusInput) -> TransitionOutcome:
    return await store.set_policy_status(
        command.tenant_id, command.policy_id, command.to_status, command.from_statuses, command.at
    )
