"""Database operations of quotes and policies (tenant-scoped, idempotent writes)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import msgspec

from models.clock import utcnow
from models.commands import (
    ConvertQuoteInput,
    ConvertToPolicyInput,
    CoverSnapshot,
    LineItemDraft,
    QuoteDraft,
    QuoteWriteInput,
    TransitionOutcome,
)
from models.coverages import target_out
from models.db import insert_rows, json_value, scoped_count, scoped_objects, scoped_select, scoped_update, write_transaction
from models.index_catalog import BY_CODE
from models.lifecycle import line_item_ids, quote_deadline
from models.money import from_minor
from models.tables import LineItem, MonitoringTarget, Policy, PolicyCount, PolicyItem, Quote
from models.timefmt import period_label
from models.wire import (
    IndexDefinitionRef,
    LineItemOut,
    Money,
    PolicyListItem,
    QuoteListItem,
    QuoteOut,
    QuoteRecord,
    TenantCoverage,
)

# Tenant-surface status ↔ internal-surface state of a quote.
QUOTE_STATE = {"CREATED": "completed", "ACCEPTED": "accepted", "REJECTED": "rejected", "EXPIRED": "expired"}


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
                status="CREATED",
                state="completed",
                external_ref=draft.external_ref,
                monitoring_target_id=draft.monitoring_target_id,
                risk_period_from=draft.risk_period_from,
                risk_period_to=draft.risk_period_to,
                currency=draft.currency,
                sum_insured_minor=draft.sum_insured_minor,
                total_sum_insured_minor=draft.total_sum_insured_minor,
                gross_premium_minor=draft.gross_premium_minor,
                risk_premium_minor=draft.risk_premium_minor,
                valid_until=draft.valid_until,
                created_at=now,
                updated_at=now,
            )
        )
        await insert_rows([_line_item_row(draft.tenant_id, i, quote_id=draft.id) for i in draft.line_items])


def _covers(value: Any) -> list[CoverSnapshot]:
    return msgspec.convert(json_value(value), list[CoverSnapshot])


def _draft_items(rows: list[dict]) -> list[LineItemDraft]:
    return [
        LineItemDraft(
            id=r["id"],
            position=r["position"],
            start=r["period_start"],
            end=r["period_end"],
            currency=r["currency"],
            quantity=r["quantity"],
            sum_insured_minor=r["sum_insured_minor"],
            total_sum_insured_minor=r["total_sum_insured_minor"],
            min_payout_minor=r["min_payout_minor"],
            payout_per_unit_minor=r["payout_per_unit_minor"],
            premium_minor=r["premium_minor"],
            covers=_covers(r["covers"]),
        )
        for r in rows
    ]


async def quote_row(tenant_id: str, quote_id: uuid.UUID) -> dict | None:
    return await scoped_select(Quote, tenant_id).where(Quote.id == quote_id).first()


async def policy_row(tenant_id: str, policy_id: uuid.UUID) -> dict | None:
    return await scoped_select(Policy, tenant_id).where(Policy.id == policy_id).first()


async def line_item_rows(tenant_id: str, *, quote_id=None, policy_id=None) -> list[dict]:
    query = scoped_select(LineItem, tenant_id)
    query = query.where(LineItem.quote_id == quote_id) if quote_id else query.where(LineItem.policy_id == policy_id)
    return await query.order_by(LineItem.position)


async def convert_quote(command: ConvertQuoteInput) -> bool:
    """Quote CREATED → ACCEPTED and its policy draft, in one transaction (the conversion of
    quote workflows started before deterministic policy ids: ids given by the caller).

    Returns False when the quote is no longer CREATED and has no policy (refused). The
    policy's unique quote_id makes a second conversion impossible even under a race."""
    tenant = command.tenant_id
    existing = await scoped_select(Policy, tenant, Policy.id).where(Policy.quote_id == command.quote_id).first()
    if existing is not None:
        return existing["id"] == command.policy_id
    quote = await quote_row(tenant, command.quote_id)
    if quote is None or quote["status"] != "CREATED":
        return False
    return await _write_conversion(tenant, quote, command.policy_id, command.line_item_ids, utcnow())


async def convert_to_policy(command: ConvertToPolicyInput) -> TransitionOutcome:
    """Quote CREATED → ACCEPTED and its policy draft (ids derived from the quote), in one
    transaction, refused once the quote's deadline has passed at `command.at`.

    Idempotent: a retried write (e.g. one that committed after its activity timed out) finds
    its own policy and reports success; a conversion to another policy id is refused."""
    tenant = command.tenant_id
    existing = await scoped_select(Policy, tenant, Policy.id).where(Policy.quote_id == command.quote_id).first()
    if existing is not None:
        if existing["id"] == command.policy_id:
            return TransitionOutcome(status="ACCEPTED", applied=True, policy_id=command.policy_id)
        return TransitionOutcome(
            status="ACCEPTED", applied=False, policy_id=existing["id"], detail=f"converted to policy {existing['id']}"
        )
    quote = await quote_row(tenant, command.quote_id)
    if quote is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    if quote["status"] != "CREATED":
        return TransitionOutcome(status=quote["status"], applied=False)
    deadline = quote_deadline(quote["valid_until"], quote["risk_period_from"])
    if command.at >= deadline:
        return TransitionOutcome(status="CREATED", applied=False, detail=f"the quote could be converted until {deadline:%Y-%m-%d %H:%M} UTC")
    if await _write_conversion(tenant, quote, command.policy_id, None, command.at):
        return TransitionOutcome(status="ACCEPTED", applied=True, policy_id=command.policy_id)
    # The quote left CREATED between the reads above and the write: an earlier attempt of
    # this same conversion may have committed meanwhile (its activity timed out first).
    existing = await scoped_select(Policy, tenant, Policy.id).where(Policy.quote_id == command.quote_id).first()
    if existing is not None and existing["id"] == command.policy_id:
        return TransitionOutcome(status="ACCEPTED", applied=True, policy_id=command.policy_id)
    row = await quote_row(tenant, command.quote_id)
    return TransitionOutcome(status=row["status"], applied=False, policy_id=existing and existing["id"])


async def _write_conversion(
    tenant: str, quote: dict, policy_id: uuid.UUID, new_item_ids: list[uuid.UUID] | None, now: dt.datetime
) -> bool:
    """The conversion's transaction; False if the quote left CREATED meanwhile. Line-item
    ids default to the ones derived from the policy id (models.lifecycle)."""
    quote_id = quote["id"]
    items = _draft_items(await line_item_rows(tenant, quote_id=quote_id))
    if new_item_ids is None:
        new_item_ids = line_item_ids(policy_id, len(items))
    async with write_transaction():
        updated = await scoped_update(Quote, tenant, {Quote.status: "ACCEPTED", Quote.state: "accepted", Quote.updated_at: now}).where(
            (Quote.id == quote_id) & (Quote.status == "CREATED")
        ).returning(Quote.id)
        if not updated:
            return False
        await insert_rows(
            [
                _line_item_row(tenant, item, policy_id=policy_id, new_id=new_id)
                for item, new_id in zip(items, new_item_ids)
            ]
        )
        await insert_rows(
            [
                PolicyItem(
                    id=uuid.uuid5(new_id, str(cover.coverage_id)),
                    tenant_id=uuid.UUID(tenant),
                    policy_id=policy_id,
                    coverage_id=cover.coverage_id,
                    name=f"{BY_CODE[cover.index_code].name} {period_label(item.start, item.end)}",
                    description=None,
                    quantity=item.quantity,
                    currency=item.currency,
                    sum_insured_minor=cover.limit_minor,
                    total_sum_insured_minor=item.sum_insured_minor,
                    total_min_payout_minor=item.min_payout_minor,
                )
                for item, new_id in zip(items, new_item_ids)
                for cover in item.covers
            ]
        )
        # Last: its trigger locks the tenant's counter row (PostgreSQL) only until COMMIT.
        await Policy.insert(
            Policy(
                id=policy_id,
                tenant_id=uuid.UUID(tenant),
                quote_id=quote_id,
                kind=quote["kind"],
                name=quote["name"],
                status="CREATED",
                external_ref=quote["external_ref"],
                inception_date=quote["risk_period_from"],
                expiry_date=quote["risk_period_to"],
                currency=quote["currency"],
                total_sum_insured_minor=quote["total_sum_insured_minor"],
                gross_premium_minor=quote["gross_premium_minor"],
                risk_premium_minor=quote["risk_premium_minor"],
                created_at=now,
                updated_at=now,
            )
        )
    return True


async def transition_quote(tenant_id: str, quote_id: uuid.UUID, to_status: str, from_statuses: list[str]) -> bool:
    """Conditional status change; True if the quote is now in `to_status`."""
    await scoped_update(
        Quote, tenant_id, {Quote.status: to_status, Quote.state: QUOTE_STATE.get(to_status, to_status.lower()), Quote.updated_at: utcnow()}
    ).where((Quote.id == quote_id) & Quote.status.is_in(from_statuses))
    row = await quote_row(tenant_id, quote_id)
    return row is not None and row["status"] == to_status


async def transition_policy(
    tenant_id: str, policy_id: uuid.UUID, to_status: str, from_statuses: list[str], at: dt.datetime
) -> bool:
    return (await set_policy_status(tenant_id, policy_id, to_status, from_statuses, at)).status == to_status


async def set_policy_status(
    tenant_id: str, policy_id: uuid.UUID, to_status: str, from_statuses: list[str], at: dt.datetime
) -> TransitionOutcome:
    """Conditional status change; the outcome says what the row holds afterwards."""
    values: dict[Any, Any] = {Policy.status: to_status, Policy.updated_at: at}
    if to_status == "ACCEPTED":
        values[Policy.activated_at] = at
        values[Policy.signature_confirmed] = True
    changed = await scoped_update(Policy, tenant_id, values).where(
        (Policy.id == policy_id) & Policy.status.is_in(from_statuses)
    ).returning(Policy.id)
    row = await scoped_select(Policy, tenant_id, Policy.status).where(Policy.id == policy_id).first()
    if row is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the policy does not exist")
    return TransitionOutcome(status=row["status"], applied=bool(changed))


async def reject_quote(command: QuoteWriteInput) -> TransitionOutcome:
    """CREATED → REJECTED, refused once the quote's deadline has passed at `command.at`."""
    quote = await quote_row(command.tenant_id, command.quote_id)
    if quote is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    deadline = quote_deadline(quote["valid_until"], quote["risk_period_from"])
    if quote["status"] == "CREATED" and command.at >= deadline:
        return TransitionOutcome(status="CREATED", applied=False, detail="the quote has expired")
    return await _quote_status(command, "REJECTED")


async def expire_quote(command: QuoteWriteInput) -> TransitionOutcome:
    """CREATED → EXPIRED (a quote converted or rejected meanwhile stays as it is)."""
    return await _quote_status(command, "EXPIRED")


async def _quote_status(command: QuoteWriteInput, to_status: str) -> TransitionOutcome:
    changed = await scoped_update(
        Quote, command.tenant_id, {Quote.status: to_status, Quote.state: QUOTE_STATE[to_status], Quote.updated_at: command.at}
    ).where((Quote.id == command.quote_id) & (Quote.status == "CREATED")).returning(Quote.id)
    row = await quote_row(command.tenant_id, command.quote_id)
    if row is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    policy = None
    if row["status"] == "ACCEPTED":
        found = await scoped_select(Policy, command.tenant_id, Policy.id).where(Policy.quote_id == command.quote_id).first()
        policy = found and found["id"]
    return TransitionOutcome(status=row["status"], applied=bool(changed), policy_id=policy)


async def record_quote(draft: QuoteDraft) -> TransitionOutcome:
    """Write a quote once; a retried start finds it and reports its current status."""
    await insert_quote(draft)
    row = await quote_row(draft.tenant_id, draft.id)
    policy = None
    if row["status"] == "ACCEPTED":
        found = await scoped_select(Policy, draft.tenant_id, Policy.id).where(Policy.quote_id == draft.id).first()
        policy = found and found["id"]
    return TransitionOutcome(status=row["status"], applied=True, policy_id=policy)


# --- reads for the API -------------------------------------------------------------------------


async def _target(target_id: str) -> dict:
    return await MonitoringTarget.select().where(MonitoringTarget.id == target_id).first()


def _money(minor: int, currency: str) -> Money:
    return Money(amount=from_minor(minor, currency), currency=currency)


def line_item_out(row: dict, target: dict) -> LineItemOut:
    currency = row["currency"]
    target_wire = target_out(target)
    return LineItemOut(
        id=row["id"],
        name=row["name"],
        coverages=[
            TenantCoverage(
                id=c.coverage_id,
                gross_written_premium_pct=c.gross_premium_pct,
                index_definition=IndexDefinitionRef(id=c.index_definition_id, description=BY_CODE[c.index_code].description),
                monitoring_target=target_wire,
                risk_period_start=c.start,
                risk_period_end=c.end,
                trigger_unit=BY_CODE[c.index_code].unit,
                trigger_value=c.trigger,
            )
            for c in _covers(row["covers"])
        ],
        min_payout=_money(row["min_payout_minor"], currency),
        payout_per_unit=_money(row["payout_per_unit_minor"], currency),
        quantity=row["quantity"],
        sum_insured=_money(row["sum_insured_minor"], currency),
        total_sum_insured=_money(row["total_sum_insured_minor"], currency),
    )


async def quote_out(tenant_id: str, quote_id: uuid.UUID) -> QuoteOut | None:
    quote = await quote_row(tenant_id, quote_id)
    if quote is None:
        return None
    target = await _target(quote["monitoring_target_id"])
    items = await line_item_rows(tenant_id, quote_id=quote_id)
    return QuoteOut(
        id=quote["id"],
        inception_date=quote["risk_period_from"],
        expiry_date=quote["risk_period_to"],
        external_ref=quote["external_ref"],
        name=quote["name"],
        status=quote["status"],
        total_sum_insured=_money(quote["total_sum_insured_minor"], quote["currency"]),
        gross_premium_amount=_money(quote["gross_premium_minor"], quote["currency"]),
        line_items=[line_item_out(r, target) for r in items],
    )


async def policy_out(tenant_id: str, policy_id: uuid.UUID) -> QuoteOut | None:
    policy = await policy_row(tenant_id, policy_id)
    if policy is None:
        return None
    quote = await quote_row(tenant_id, policy["quote_id"])
    target = await _target(quote["monitoring_target_id"])
    items = await line_item_rows(tenant_id, policy_id=policy_id)
    return QuoteOut(
        id=policy["id"],
        inception_date=policy["inception_date"],
        expiry_date=policy["expiry_date"],
        external_ref=policy["external_ref"],
        name=policy["name"],
        status=policy["status"],
        total_sum_insured=_money(policy["total_sum_insured_minor"], policy["currency"]),
        gross_premium_amount=_money(policy["gross_premium_minor"], policy["currency"]),
        line_items=[line_item_out(r, target) for r in items],
    )


def quote_record(row: dict) -> QuoteRecord:
    return QuoteRecord(
        id=row["id"],
        status=row["status"],
        monitoring_target_id=row["monitoring_target_id"],
        risk_period_from=row["risk_period_from"],
        risk_period_to=row["risk_period_to"],
        sum_insured_for_line_item=_money(row["sum_insured_minor"], row["currency"]),
    )


async def list_quotes(tenant_id: str, page: int, size: int) -> tuple[list[QuoteListItem], int]:
    where = Quote.kind == "TENANT"
    rows = await scoped_select(
        Quote, tenant_id, Quote.id, Quote.status, Quote.monitoring_target_id, Quote.risk_period_from, Quote.risk_period_to
    ).where(where).order_by(Quote.created_at, ascending=False).order_by(Quote.id).limit(size).offset(page * size)
    total = await scoped_count(Quote, tenant_id).where(where)
    return [
        QuoteListItem(
            id=r["id"],
            status=r["status"],
            monitoring_target_id=r["monitoring_target_id"],
            risk_period_from=r["risk_period_from"],
            risk_period_to=r["risk_period_to"],
        )
        for r in rows
    ], total


async def list_policies(
    tenant_id: str, page: int, size: int, status: str | None, period_from: dt.date | None, period_to: dt.date | None
) -> tuple[list[PolicyListItem], int]:
    """Newest first; `from`/`to` keep policies whose cover period overlaps [from, to]."""
    conditions = []
    if status:
        conditions.append(Policy.status == status)
    if period_from:
        conditions.append(Policy.expiry_date >= period_from)
    if period_to:
        conditions.append(Policy.inception_date <= period_to)
    query = scoped_select(
        Policy, tenant_id, Policy.id, Policy.status, Policy.inception_date, Policy.expiry_date,
        Policy.total_sum_insured_minor, Policy.currency,
    )
    for condition in conditions:
        query = query.where(condition)
    rows = await query.order_by(Policy.created_at, ascending=False).order_by(Policy.id).limit(size).offset(page * size)
    if period_from or period_to:
        count = scoped_count(Policy, tenant_id)
        for condition in conditions:
            count = count.where(condition)
        total = await count
    else:  # the trigger-kept counters answer without counting rows
        counters = scoped_select(PolicyCount, tenant_id, PolicyCount.n)
        if status:
            counters = counters.where(PolicyCount.status == status)
        total = sum(row["n"] for row in await counters)
    return [
        PolicyListItem(
            id=r["id"],
            status=r["status"],
            inception_date=r["inception_date"],
            expiry_date=r["expiry_date"],
            total_sum_insured=_money(r["total_sum_insured_minor"], r["currency"]),
        )
        for r in rows
    ], total
