"""The internal shapes of fast quotes and policies (views of the one domain's rows)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from api.capacity.views import quote_capacity
from api.catalogue.responses import coverage_full
from models.db import catalogue as catalogue_db
from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.db.core import scoped_select
from models.db.records import QuoteRow
from models.db.tables import BusinessPartner, MonitoringTarget, Policy, PolicyItem, Tenant
from models.domain.lifecycle import last_acceptance_day
from models.domain.periods import day_end, day_start
from models.domain.money import Money, from_minor
from models.domain.quotes import split_sum_insured
from models.domain.statuses import QuoteStatus
from models.wire.common import iso_millis
from models.wire.internal import InternalPolicy, InternalPolicyItem, InternalQuote

DONE = (QuoteStatus.CREATED, QuoteStatus.ACCEPTED, QuoteStatus.REJECTED, QuoteStatus.EXPIRED)
# A policy's sums (docs/internal-quotes.md): a line item's covers pay at most its sum insured
# together; each policy item's totalSumInsured is its share of it, so the items add up to the
# policy's totalSumInsured, the most the policy can pay.
SUM_INSURED_BASIS = "PER_LINE_ITEM"


async def _item_shares(tenant_id: str, policy_id: uuid.UUID) -> dict[uuid.UUID, int]:
    """Each cover's share of its line item's sum insured (minor units), by coverage id."""
    shares = {}
    for item in await quotes_db.line_item_rows(tenant_id, policy_id=policy_id):
        for cover, share in zip(item.covers, split_sum_insured(item.sum_insured_minor, len(item.covers))):
            shares[cover.coverage_id] = share
    return shares


def _money(minor: int, currency: str) -> Money:
    return Money(amount=from_minor(minor, currency), currency=currency)


async def quote_out(row: QuoteRow) -> InternalQuote:
    items = await quotes_db.line_item_rows(str(row.tenant_id), quote_id=row.id)
    # a tenant-surface quote is priced when it is made (its package: issue 26); a fast quote once its job completed
    priced = row.status in DONE and (row.pricing_report is not None or row.kind != "FAST")
    policy_id = None
    if row.status == QuoteStatus.ACCEPTED:
        found = await scoped_select(Policy, str(row.tenant_id), Policy.id).where(Policy.quote_id == row.id).first()
        policy_id = found and found["id"]
    return InternalQuote(
        id=row.id,
        name=row.name,
        state=row.state,
        customer_id=row.customer_id,
        coverage_ids=[c.coverage_id for item in items for c in item.covers],
        sum_insured=_money(row.sum_insured_minor, row.currency),
        total_sum_insured=_money(row.total_sum_insured_minor, row.currency),
        monitoring_target_id=row.monitoring_target_id,
        risk_period_from=row.risk_period_from and row.risk_period_from.isoformat(),
        risk_period_to=row.risk_period_to and row.risk_period_to.isoformat(),
        # the last UTC day acceptance is open (models/domain/lifecycle.py), as the service enforces
        valid_until=row.valid_until and last_acceptance_day(row.valid_until, row.risk_period_from).isoformat(),
        created_at=iso_millis(row.created_at),
        updated_at=iso_millis(row.updated_at),
        gross_premium=_money(row.gross_premium_minor, row.currency) if priced else None,
        risk_premium=_money(row.risk_premium_minor, row.currency) if priced else None,
        quote_document_file_id=row.document_file_id if priced else None,
        pricing_report=row.pricing_report if priced else None,
        error=row.error if row.status == QuoteStatus.ERROR else None,
        policy_id=policy_id,
        external_policy_id=row.external_ref,
        capacity=await quote_capacity(str(row.tenant_id), row),
    )


async def _policy_holder(tenant_id: str, quote: QuoteRow | None) -> str:
    """The policy's `customer`, its policy holder: a fast quote's customer (a POLICY_HOLDER
    partner, by name), else the tenant itself, as the policy schedule names it (a tenant-surface
    quote has no customer; `customer` was "")."""
    if quote is not None and quote.customer_id:
        partner = await BusinessPartner.select(BusinessPartner.name).where(
            (BusinessPartner.id == quote.customer_id) & (BusinessPartner.tenant_id == uuid.UUID(tenant_id))
        ).first()
        return partner["name"] if partner else str(quote.customer_id)
    tenant = await Tenant.select(Tenant.name).where(Tenant.id == uuid.UUID(tenant_id)).first()
    return tenant["name"] if tenant else ""


async def policy_out(tenant_id: str, policy_id: uuid.UUID, risk_carrier: str) -> InternalPolicy | None:
    policy = await policies_db.policy_row(tenant_id, policy_id)
    if policy is None:
        return None
    quote = await quotes_db.quote_row(tenant_id, policy.quote_id)  # None: a policy made without one (the demo's)
    customer = await _policy_holder(tenant_id, quote)
    rows = await scoped_select(PolicyItem, tenant_id).where(PolicyItem.policy_id == policy_id)
    shares = await _item_shares(tenant_id, policy_id)
    coverages = {r["coverage_id"]: await catalogue_db.coverage_row(r["coverage_id"]) for r in rows}
    names = {t["id"]: t["name"] for t in await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.name).where(
        MonitoringTarget.id.is_in(sorted({c.monitoring_target_id for c in coverages.values()}) or [""]))}
    # in the order of their risk periods (by name, December 2026 followed February 2027)
    rows = sorted(rows, key=lambda r: (coverages[r["coverage_id"]].risk_period_start, r["name"]))
    items = []
    for r in rows:
        coverage = coverages[r["coverage_id"]]
        items.append(
            InternalPolicyItem(
                id=r["id"],
                name=r["name"],
                description=r["description"],
                quantity=Decimal(r["quantity"]),
                sum_insured=_money(r["sum_insured_minor"], r["currency"]),
                # its share of its line item's sum insured (policies written before issue 26
                # stored the line item's whole sum per cover: the share is derived, not read)
                total_sum_insured=_money(shares.get(r["coverage_id"], r["total_sum_insured_minor"]), r["currency"]),
                total_min_payout=_money(r["total_min_payout_minor"], r["currency"]),
                coverage=coverage_full(coverage, names.get(coverage.monitoring_target_id, coverage.monitoring_target_id)),
            )
        )
    currency = policy.currency
    accepted = policy.activated_at is not None
    rate = None
    if policy.total_sum_insured_minor:
        rate = (Decimal(policy.gross_premium_minor) / Decimal(policy.total_sum_insured_minor)).quantize(Decimal("0.00000001"))
    return InternalPolicy(
        id=policy.id,
        name=policy.name,
        issuer=risk_carrier,
        customer=customer,
        inception_date=iso_millis(day_start(policy.inception_date)),
        expiry_date=iso_millis(day_end(policy.expiry_date)),
        status=policy.status,
        state=policy.status,
        total_sum_insured=_money(policy.total_sum_insured_minor, currency),
        risk_premium=_money(policy.risk_premium_minor, currency),
        gross_premium=_money(policy.gross_premium_minor, currency),
        gross_premium_rate_pct=rate,
        commission=None,
        policy_items=items,
        sum_insured_basis=SUM_INSURED_BASIS,
        exclusions=None,
        external_policy_id=policy.external_ref,
        quote_id=policy.quote_id,
        policy_schedule_document_id=policy.schedule_file_id if accepted else None,
        activated_at=iso_millis(policy.activated_at) if accepted else None,
        signature_confirmed=bool(policy.signature_confirmed) if accepted else None,
    )
