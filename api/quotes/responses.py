"""Shaping quotes and policies for the tenant surface (rows in, wire types out)."""

from __future__ import annotations

import uuid

from api.capacity.views import quote_capacity
from api.catalogue.responses import target_out
from models.db.policies import policy_row
from models.db.quotes import line_item_rows, quote_row
from models.db.records import LineItemRow, PolicyListRow, QuoteListRow, QuoteRow
from models.db.tables import (
    MonitoringTarget,
)
from models.domain.index_catalog import BY_CODE
from models.wire.capacity import QuoteCapacity
from models.wire.common import Money
from models.domain.quotes import UncoveredMonth
from models.wire.tenant import (
    IndexDefinitionRef,
    LineItemOut,
    PolicyListItem,
    PolicyOut,
    QuoteListItem,
    QuoteOut,
    QuoteRecord,
    TenantCoverage,
    UncoveredMonthOut,
)

# --- reads for the API -------------------------------------------------------------------------


async def _target(target_id: str) -> dict:
    return await MonitoringTarget.select().where(MonitoringTarget.id == target_id).first()


def _money(minor: int, currency: str) -> Money:
    return Money.of_minor(minor, currency)


def uncovered_out(months: list[UncoveredMonth] | None) -> list[UncoveredMonthOut]:
    """A quote's months without a line item, as the wire says them (null stored: none)."""
    return [
        UncoveredMonthOut(
            month=f"{m.start:%Y-%m}", period_start=m.start, period_end=m.end, reason=m.reason, detail=m.detail
        )
        for m in months or ()
    ]


def line_item_out(row: LineItemRow, target: dict) -> LineItemOut:
    currency = row.currency
    target_wire = target_out(target)
    return LineItemOut(
        id=row.id,
        name=row.name,
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
            for c in row.covers
        ],
        min_payout=_money(row.min_payout_minor, currency),
        payout_per_unit=_money(row.payout_per_unit_minor, currency),
        quantity=row.quantity,
        sum_insured=_money(row.sum_insured_minor, currency),
        total_sum_insured=_money(row.total_sum_insured_minor, currency),
    )


async def quote_out(tenant_id: str, quote_id: uuid.UUID) -> QuoteOut | None:
    quote = await quote_row(tenant_id, quote_id)
    if quote is None:
        return None
    target = await _target(quote.monitoring_target_id)
    items = await line_item_rows(tenant_id, quote_id=quote_id)
    return QuoteOut(
        id=quote.id,
        inception_date=quote.risk_period_from,
        expiry_date=quote.risk_period_to,
        external_ref=quote.external_ref,
        name=quote.name,
        status=quote.status,
        total_sum_insured=_money(quote.total_sum_insured_minor, quote.currency),
        gross_premium_amount=_money(quote.gross_premium_minor, quote.currency),
        line_items=[line_item_out(r, target) for r in items],
        uncovered_months=uncovered_out(quote.uncovered_months),
        capacity=await quote_capacity(tenant_id, quote),
    )


async def policy_out(tenant_id: str, policy_id: uuid.UUID) -> PolicyOut | None:
    policy = await policy_row(tenant_id, policy_id)
    if policy is None:
        return None
    quote = await quote_row(tenant_id, policy.quote_id)
    target = await _target(quote.monitoring_target_id)
    items = await line_item_rows(tenant_id, policy_id=policy_id)
    return PolicyOut(
        id=policy.id,
        inception_date=policy.inception_date,
        expiry_date=policy.expiry_date,
        external_ref=policy.external_ref,
        name=policy.name,
        status=policy.status,
        total_sum_insured=_money(policy.total_sum_insured_minor, policy.currency),
        gross_premium_amount=_money(policy.gross_premium_minor, policy.currency),
        line_items=[line_item_out(r, target) for r in items],
        # the months its quote left uncovered: the policy covers the same months
        uncovered_months=uncovered_out(quote.uncovered_months),
    )


def quote_record(row: QuoteRow, capacity: QuoteCapacity | None = None) -> QuoteRecord:
    return QuoteRecord(
        id=row.id,
        status=row.status,
        monitoring_target_id=row.monitoring_target_id,
        risk_period_from=row.risk_period_from,
        risk_period_to=row.risk_period_to,
        sum_insured_for_line_item=_money(row.sum_insured_minor, row.currency),
        capacity=capacity,
        uncovered_months=uncovered_out(row.uncovered_months),
    )


def quote_list_item(row: QuoteListRow) -> QuoteListItem:
    return QuoteListItem(
        id=row.id,
        status=row.status,
        monitoring_target_id=row.monitoring_target_id,
        risk_period_from=row.risk_period_from,
        risk_period_to=row.risk_period_to,
        uncovered_months=uncovered_out(row.uncovered_months),
    )


def policy_list_item(row: PolicyListRow) -> PolicyListItem:
    return PolicyListItem(
        id=row.id,
        status=row.status,
        inception_date=row.inception_date,
        expiry_date=row.expiry_date,
        total_sum_insured=_money(row.total_sum_insured_minor, row.currency),
    )
