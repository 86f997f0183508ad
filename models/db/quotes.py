"""Database operations of quotes (tenant-scoped, idempotent writes)."""

from __future__ import annotations

import uuid

import msgspec

from models.clock import utcnow
from models.db.core import (
    insert_rows,
    scoped_count,
    scoped_objects,
    scoped_select,
    scoped_update,
    write_transaction,
)
from models.db.records import LineItemRow, QuoteListRow, QuoteRow, record, records
from models.db.tables import (
    LineItem,
    Policy,
    Quote,
)
from models.domain.lifecycle import quote_deadline
from models.domain.periods import period_label
from models.domain.statuses import INTERNAL_QUOTE_STATE, QuoteStatus
from models.domain.quotes import LineItemDraft, QuoteDraft
from models.domain.writes import FastQuoteCompletion, FastQuoteStatusInput, QuoteWriteInput, TransitionOutcome

# Tenant-surface status ↔ internal-surface state of a quote.
QUOTE_STATE = INTERNAL_QUOTE_STATE


def _line_item_row(tenant_id: str, item: LineItemDraft, *, quote_id=None, policy_id=None, new_id=None) -> LineItem:
    return LineItem(
        id=new_id or item.id,
        tenant_id=uuid.UUID(tenant_id),
        quote_id=quote_id,
        policy_id=policy_id,
        position=item.position,
        name=period_label(item.start, item.end),
        period_start=item.start,
        period_end=item.end,
        currency=item.currency,
        quantity=item.quantity,
        sum_insured_minor=item.sum_insured_minor,
        total_sum_insured_minor=item.total_sum_insured_minor,
        min_payout_minor=item.min_payout_minor,
        payout_per_unit_minor=item.payout_per_unit_minor,
        premium_minor=item.premium_minor,
        covers=msgspec.to_builtins(item.covers),
    )


async def insert_quote(draft: QuoteDraft) -> None:
    """Write a quote and its line items once (a retried activity finds them written)."""
    if await scoped_objects(Quote, draft.tenant_id).where(Quote.id == draft.id).first():
        return
    now = utcnow()
    async with write_transaction():
        await Quote.insert(
            Quote(
                id=draft.id,
                tenant_id=uuid.UUID(draft.tenant_id),
                kind=draft.kind,
                name=draft.name,
                # a fast quote is PENDING until its job completes (workflows/quotes.py)
                status=QuoteStatus.PENDING if draft.kind == "FAST" else QuoteStatus.CREATED,
                state="created" if draft.kind == "FAST" else "completed",
                external_ref=draft.external_ref,
                customer_id=draft.customer_id,
                monitoring_target_id=draft.monitoring_target_id,
                risk_period_from=draft.risk_period_from,
                risk_period_to=draft.risk_period_to,
                currency=draft.currency,
                sum_insured_minor=draft.sum_insured_minor,
                total_sum_insured_minor=draft.total_sum_insured_minor,
                gross_premium_minor=draft.gross_premium_minor,
                risk_premium_minor=draft.risk_premium_minor,
                valid_until=draft.valid_until,
                pricing_report=draft.pricing_report,
                uncovered_months=msgspec.to_builtins(draft.uncovered_months) if draft.uncovered_months else None,
                created_at=now,
                updated_at=now,
            )
        )
        await insert_rows([_line_item_row(draft.tenant_id, i, quote_id=draft.id) for i in draft.line_items])


def line_item_drafts(rows: list[LineItemRow]) -> list[LineItemDraft]:
    """Line item rows as the domain's drafts (the quote's package, a conversion's copy)."""
    return _draft_items(rows)


async def set_line_item_prices(tenant_id: str, quote_id: uuid.UUID, items: list[LineItemDraft]) -> None:
    """A fast quote's line items with its package's prices (each cover's part, each line
    item's premium), written while its job runs: a retried pricing writes the same values, and
    a quote that left its job is left as it is."""
    async with write_transaction():
        quote = await scoped_select(Quote, tenant_id, Quote.status).where(Quote.id == quote_id).first()
        if quote is None or quote["status"] not in (QuoteStatus.QUEUED, QuoteStatus.RUNNING):
            return
        for item in items:
            await scoped_update(
                LineItem, tenant_id, {LineItem.premium_minor: item.premium_minor, LineItem.covers: msgspec.to_builtins(item.covers)}
            ).where((LineItem.id == item.id) & (LineItem.quote_id == quote_id))


def _draft_items(rows: list[LineItemRow]) -> list[LineItemDraft]:
    return [
        LineItemDraft(
            id=r.id,
            position=r.position,
            start=r.period_start,
            end=r.period_end,
            currency=r.currency,
            quantity=r.quantity,
            sum_insured_minor=r.sum_insured_minor,
            total_sum_insured_minor=r.total_sum_insured_minor,
            min_payout_minor=r.min_payout_minor,
            payout_per_unit_minor=r.payout_per_unit_minor,
            premium_minor=r.premium_minor,
            covers=r.covers,
        )
        for r in rows
    ]


async def quote_row(tenant_id: str, quote_id: uuid.UUID) -> QuoteRow | None:
    return record(QuoteRow, await scoped_select(Quote, tenant_id).where(Quote.id == quote_id).first())


async def line_item_rows(tenant_id: str, *, quote_id=None, policy_id=None) -> list[LineItemRow]:
    query = scoped_select(LineItem, tenant_id)
    query = query.where(LineItem.quote_id == quote_id) if quote_id else query.where(LineItem.policy_id == policy_id)
    return records(LineItemRow, await query.order_by(LineItem.position))


async def transition_quote(tenant_id: str, quote_id: uuid.UUID, to_status: str, from_statuses: list[str]) -> bool:
    """Conditional status change; True if the quote is now in `to_status`."""
    await scoped_update(
        Quote, tenant_id, {Quote.status: to_status, Quote.state: QUOTE_STATE.get(to_status, to_status.lower()), Quote.updated_at: utcnow()}
    ).where((Quote.id == quote_id) & Quote.status.is_in(from_statuses))
    row = await quote_row(tenant_id, quote_id)
    return row is not None and row.status == to_status


# A quote may be rejected at any state before it is accepted: CREATED, or a fast quote still in
# its job (PENDING, QUEUED, RUNNING: issue 29; its workflow then cancels the job).
REJECTABLE = (QuoteStatus.CREATED, QuoteStatus.PENDING, QuoteStatus.QUEUED, QuoteStatus.RUNNING)


async def reject_quote(command: QuoteWriteInput) -> TransitionOutcome:
    """CREATED (or a fast quote's job state) → REJECTED, refused once a completed quote's
    deadline has passed at `command.at`. The job's own writes (completion, error, running) are
    conditional on the job's states, so none of them overwrites REJECTED."""
    quote = await quote_row(command.tenant_id, command.quote_id)
    if quote is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    deadline = quote_deadline(quote.valid_until, quote.risk_period_from)
    if quote.status == QuoteStatus.CREATED and command.at >= deadline:
        return TransitionOutcome(status=QuoteStatus.CREATED, applied=False, detail="the quote has expired")
    return await _quote_status(command, QuoteStatus.REJECTED, REJECTABLE)


async def expire_quote(command: QuoteWriteInput) -> TransitionOutcome:
    """CREATED → EXPIRED (a quote converted or rejected meanwhile stays as it is)."""
    return await _quote_status(command, QuoteStatus.EXPIRED)


async def _quote_status(
    command: QuoteWriteInput, to_status: str, from_statuses: tuple[str, ...] = (QuoteStatus.CREATED,)
) -> TransitionOutcome:
    changed = await scoped_update(
        Quote, command.tenant_id, {Quote.status: to_status, Quote.state: QUOTE_STATE[to_status], Quote.updated_at: command.at}
    ).where((Quote.id == command.quote_id) & Quote.status.is_in(list(from_statuses))).returning(Quote.id)
    row = await quote_row(command.tenant_id, command.quote_id)
    if row is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    policy = None
    if row.status == QuoteStatus.ACCEPTED:
        found = await scoped_select(Policy, command.tenant_id, Policy.id).where(Policy.quote_id == command.quote_id).first()
        policy = found and found["id"]
    return TransitionOutcome(status=row.status, applied=bool(changed), policy_id=policy)


async def record_quote(draft: QuoteDraft) -> TransitionOutcome:
    """Write a quote once; a retried start finds it and reports its current status."""
    await insert_quote(draft)
    row = await quote_row(draft.tenant_id, draft.id)
    policy = None
    if row.status == QuoteStatus.ACCEPTED:
        found = await scoped_select(Policy, draft.tenant_id, Policy.id).where(Policy.quote_id == draft.id).first()
        policy = found and found["id"]
    return TransitionOutcome(status=row.status, applied=True, policy_id=policy)


async def list_quotes(tenant_id: str, page: int, size: int) -> tuple[list[QuoteListRow], int]:
    """Rows of a page of the tenant-surface quotes, newest first, and the total."""
    where = Quote.kind == "TENANT"
    rows = await scoped_select(
        Quote, tenant_id, Quote.id, Quote.status, Quote.monitoring_target_id, Quote.risk_period_from, Quote.risk_period_to,
        Quote.uncovered_months,
    ).where(where).order_by(Quote.created_at, ascending=False).order_by(Quote.id).limit(size).offset(page * size)
    total = await scoped_count(Quote, tenant_id).where(where)
    return records(QuoteListRow, rows), total


async def set_job_status(command: FastQuoteStatusInput) -> TransitionOutcome:
    """A fast quote's job moves (PENDING → QUEUED → RUNNING → ERROR), each conditional on the
    statuses it may come from, so a late retry never moves a quote backwards."""
    values = {Quote.status: command.to_status, Quote.state: QUOTE_STATE[command.to_status], Quote.updated_at: command.at}
    if command.error is not None:
        values[Quote.error] = command.error
    await scoped_update(Quote, command.tenant_id, values).where(
        (Quote.id == command.quote_id) & Quote.status.is_in(command.from_statuses)
    )
    row = await quote_row(command.tenant_id, command.quote_id)
    if row is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    return TransitionOutcome(status=row.status, applied=row.status == command.to_status)


async def complete_fast_quote(command: FastQuoteCompletion) -> TransitionOutcome:
    """QUEUED/RUNNING → CREATED (state `completed`) with the job's figures and document."""
    await scoped_update(
        Quote,
        command.tenant_id,
        {
            Quote.status: QuoteStatus.CREATED,
            Quote.state: QUOTE_STATE[QuoteStatus.CREATED],
            Quote.gross_premium_minor: command.gross_premium_minor,
            Quote.risk_premium_minor: command.risk_premium_minor,
            Quote.pricing_report: command.report,
            Quote.document_file_id: command.document_file_id,
            Quote.updated_at: command.at,
        },
    ).where((Quote.id == command.quote_id) & Quote.status.is_in([QuoteStatus.QUEUED, QuoteStatus.RUNNING]))
    row = await quote_row(command.tenant_id, command.quote_id)
    if row is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    return TransitionOutcome(status=row.status, applied=row.status == QuoteStatus.CREATED)
