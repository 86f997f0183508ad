"""Quote writes: short, idempotent, run as local activities by the quote lifecycle.

Each write reports its outcome (`TransitionOutcome`), so a workflow never assumes a write did
what it asked. `persist_quote` and `transition_quote` serve quote workflows started before
lifecycle 2 (docs/workflow-versioning.md)."""

from __future__ import annotations

from temporalio import activity

from models.db import quotes as quotes_db
from models.temporal.lifecycle import TransitionOutcome
from models.temporal.quotes import (
    QuoteDraft,
    QuoteTransitionInput,
    QuoteWriteInput,
)


@activity.defn
async def persist_quote(draft: QuoteDraft) -> None:
    await quotes_db.insert_quote(draft)


@activity.defn
async def transition_quote(command: QuoteTransitionInput) -> bool:
    return await quotes_db.transition_quote(command.tenant_id, command.quote_id, command.to_status, command.from_statuses)


# --- outcome-checked writes ----------------------------------------------------------------------


@activity.defn
async def record_quote(draft: QuoteDraft) -> TransitionOutcome:
    return await quotes_db.record_quote(draft)


@activity.defn
async def reject_quote(command: QuoteWriteInput) -> TransitionOutcome:
    return await quotes_db.reject_quote(command)


@activity.defn
async def expire_quote(command: QuoteWriteInput) -> TransitionOutcome:
    return await quotes_db.expire_quote(command)
