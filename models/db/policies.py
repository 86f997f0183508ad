"""Database operations of policies (tenant-scoped, idempotent writes that report their outcome)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from models.clock import utcnow
from models.db import capacity as capacity_db
from models.db.core import (
    insert_rows,
    scoped_count,
    scoped_select,
    scoped_update,
    write_transaction,
)
from models.db.quotes import _draft_items, _line_item_row, line_item_rows, quote_row
from models.db.records import PolicyListRow, PolicyRow, QuoteRow, record, records
from models.db.tables import (
    Policy,
    PolicyCount,
    PolicyItem,
    Quote,
)
from models.db.webhooks import outbox_row, write_outbox
from models.domain.index_catalog import BY_CODE
from models.domain.lifecycle import line_item_ids, quote_deadline
from models.domain.periods import period_label
from models.domain.quotes import split_sum_insured
from models.domain.statuses import PolicyStatus, QuoteStatus
from models.domain.webhooks import POLICY_EXPIRED
from models.domain.writes import ConvertQuoteInput, ConvertToPolicyInput, TransitionOutcome


async def policy_row(tenant_id: str, policy_id: uuid.UUID) -> PolicyRow | None:
    return record(PolicyRow, await scoped_select(Policy, tenant_id).where(Policy.id == policy_id).first())


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
    if quote is None or quote.status != QuoteStatus.CREATED:
        return False
    try:
        return await _write_conversion(tenant, quote, command.policy_id, command.line_item_ids, utcnow())
    except capacity_db.CapacityExceeded:  # nothing written: refused
        return False


async def convert_to_policy(command: ConvertToPolicyInput) -> TransitionOutcome:
    """Quote CREATED → ACCEPTED and its policy draft (ids derived from the quote), in one
    transaction, refused once the quote's deadline has passed at `command.at`.

    Idempotent: a retried write (e.g. one that committed after its activity timed out) finds
    its own policy and reports success; a conversion to another policy id is refused."""
    tenant = command.tenant_id
    existing = await scoped_select(Policy, tenant, Policy.id).where(Policy.quote_id == command.quote_id).first()
    if existing is not None:
        if existing["id"] == command.policy_id:
            return TransitionOutcome(status=QuoteStatus.ACCEPTED, applied=True, policy_id=command.policy_id)
        return TransitionOutcome(
            status=QuoteStatus.ACCEPTED, applied=False, policy_id=existing["id"], detail=f"converted to policy {existing['id']}"
        )
    quote = await quote_row(tenant, command.quote_id)
    if quote is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the quote does not exist")
    if quote.status != QuoteStatus.CREATED:
        return TransitionOutcome(status=quote.status, applied=False)
    deadline = quote_deadline(quote.valid_until, quote.risk_period_from)
    if command.at >= deadline:
        return TransitionOutcome(status=QuoteStatus.CREATED, applied=False, detail=f"the quote could be converted until {deadline:%Y-%m-%d %H:%M} UTC")
    try:
        written = await _write_conversion(tenant, quote, command.policy_id, None, command.at)
    except capacity_db.CapacityExceeded as refused:  # nothing written; the quote stays open
        return TransitionOutcome(status=QuoteStatus.CREATED, applied=False, detail=str(refused), capacity=refused.refusal)
    if written:
        return TransitionOutcome(status=QuoteStatus.ACCEPTED, applied=True, policy_id=command.policy_id)
    # The quote left CREATED between the reads above and the write: an earlier attempt of
    # this same conversion may have committed meanwhile (its activity timed out first).
    existing = await scoped_select(Policy, tenant, Policy.id).where(Policy.quote_id == command.quote_id).first()
    if existing is not None and existing["id"] == command.policy_id:
        return TransitionOutcome(status=QuoteStatus.ACCEPTED, applied=True, policy_id=command.policy_id)
    row = await quote_row(tenant, command.quote_id)
    return TransitionOutcome(status=row.status, applied=False, policy_id=existing and existing["id"])


async def _write_conversion(
    tenant: str, quote: QuoteRow, policy_id: uuid.UUID, new_item_ids: list[uuid.UUID] | None, now: dt.datetime
) -> bool:
    """The conversion's transaction; False if the quote left CREATED meanwhile. Line-item
    ids default to the ones derived from the policy id (models.domain.lifecycle). The policy
    takes its capacity in the same transaction: CapacityExceeded (raised out of it, nothing
    written) when it does not fit a limit (docs/capacity.md)."""
    quote_id = quote.id
    items = _draft_items(await line_item_rows(tenant, quote_id=quote_id))
    if new_item_ids is None:
        new_item_ids = line_item_ids(policy_id, len(items))
    async with write_transaction():
        updated = await scoped_update(Quote, tenant, {Quote.status: QuoteStatus.ACCEPTED, Quote.state: "accepted", Quote.updated_at: now}).where(
            (Quote.id == quote_id) & (Quote.status == QuoteStatus.CREATED)
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
                    # its share of the line item's sum insured: the items add up to the policy's
                    total_sum_insured_minor=share,
                    total_min_payout_minor=item.min_payout_minor,
                )
                for item, new_id in zip(items, new_item_ids)
                for cover, share in zip(item.covers, split_sum_insured(item.sum_insured_minor, len(item.covers)))
            ]
        )
        # Last: its trigger locks the tenant's counter row (PostgreSQL) only until COMMIT.
        await Policy.insert(
            Policy(
                id=policy_id,
                tenant_id=uuid.UUID(tenant),
                quote_id=quote_id,
                kind=quote.kind,
                name=quote.name,
                status=PolicyStatus.CREATED,
                external_ref=quote.external_ref,
                inception_date=quote.risk_period_from,
                expiry_date=quote.risk_period_to,
                currency=quote.currency,
                total_sum_insured_minor=quote.total_sum_insured_minor,
                gross_premium_minor=quote.gross_premium_minor,
                risk_premium_minor=quote.risk_premium_minor,
                created_at=now,
                updated_at=now,
            )
        )
        # Capacity last, after the counter row's lock (a release takes them in this order too):
        # each limit that applies, with one conditional UPDATE; one without room rolls back all.
        await capacity_db.reserve(tenant, quote.monitoring_target_id, quote.currency, capacity_db.exposures(items),
                                  policy_id=policy_id)
    return True


async def transition_policy(
    tenant_id: str, policy_id: uuid.UUID, to_status: str, from_statuses: list[str], at: dt.datetime
) -> bool:
    return (await set_policy_status(tenant_id, policy_id, to_status, from_statuses, at)).status == to_status


async def set_policy_status(
    tenant_id: str, policy_id: uuid.UUID, to_status: str, from_statuses: list[str], at: dt.datetime
) -> TransitionOutcome:
    """Conditional status change; the outcome says what the row holds afterwards."""
    values: dict[Any, Any] = {Policy.status: to_status, Policy.updated_at: at}
    if to_status == PolicyStatus.ACCEPTED:
        values[Policy.activated_at] = at
        values[Policy.signature_confirmed] = True
    if to_status == PolicyStatus.CANCELED:
        values[Policy.canceled_at] = at  # settlement counts covers in force before this moment
    if to_status in capacity_db.RELEASING_STATUSES:
        # The webhook (expiry: outbox) and the capacity given back are written with the change.
        async with write_transaction():
            changed = await scoped_update(Policy, tenant_id, values).where(
                (Policy.id == policy_id) & Policy.status.is_in(from_statuses)
            ).returning(Policy.id)
            if changed and to_status == PolicyStatus.EXPIRED:
                data = {"policyId": str(policy_id), "status": PolicyStatus.EXPIRED, "expiredAt": at.isoformat()}
                await write_outbox([outbox_row(uuid.UUID(str(tenant_id)), POLICY_EXPIRED, str(policy_id), at, data)])
            if changed and set(from_statuses) <= set(capacity_db.HOLDING_STATUSES):
                await capacity_db.release_policy(tenant_id, policy_id)
    else:
        changed = await scoped_update(Policy, tenant_id, values).where(
            (Policy.id == policy_id) & Policy.status.is_in(from_statuses)
        ).returning(Policy.id)
    row = await scoped_select(Policy, tenant_id, Policy.status).where(Policy.id == policy_id).first()
    if row is None:
        return TransitionOutcome(status="MISSING", applied=False, detail="the policy does not exist")
    return TransitionOutcome(status=row["status"], applied=bool(changed))


async def list_policies(
    tenant_id: str, page: int, size: int, status: str | None, period_from: dt.date | None, period_to: dt.date | None
) -> tuple[list[PolicyListRow], int]:
    """Rows of a page, newest first, and the total; `from`/`to` keep policies whose cover
    period overlaps [from, to]."""
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
    return records(PolicyListRow, rows), total
