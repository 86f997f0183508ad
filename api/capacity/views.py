"""Capacity limits on the wire: their views, a quote's fit, and the 409 of a bind that does
not fit (docs/capacity.md)."""

from __future__ import annotations

import uuid

from api.problems import Conflict
from models.db import capacity as capacity_db
from models.db.quotes import line_item_rows
from models.db.records import QuoteRow
from models.domain.actors import shown_actor
from models.domain.capacity import CapacityRefusal, LimitKey
from models.domain.money import from_minor
from models.domain.statuses import QuoteStatus
from models.wire.capacity import CapacityLimitKey, CapacityLimitView, QuoteCapacity
from models.wire.common import Money


def _money(minor: int, currency: str) -> Money:
    return Money(amount=from_minor(minor, currency), currency=currency)


def key_view(limit_id: uuid.UUID, key: LimitKey, limit_minor: int, currency: str,
             tenant_name: str | None = None) -> CapacityLimitKey:
    return CapacityLimitKey(
        id=limit_id, monitoring_target_id=key.monitoring_target_id, month=key.month, tenant_id=key.tenant_id,
        description=key.label(tenant_name), limit=_money(limit_minor, currency),
    )


def limit_view(record: capacity_db.LimitRecord) -> CapacityLimitView:
    key = record.key
    return CapacityLimitView(
        id=record.id, monitoring_target_id=key.monitoring_target_id, month=key.month, tenant_id=key.tenant_id,
        description=key.label(record.tenant_name), limit=_money(record.limit_minor, record.currency),
        used=_money(record.used_minor, record.currency), remaining=_money(record.remaining_minor, record.currency),
        created_by=shown_actor(record.created_by) or "", created_at=record.created_at, updated_at=record.updated_at,
    )


async def quote_capacity(tenant_id: str, row: QuoteRow) -> QuoteCapacity | None:
    """Whether an open quote fits the limits now; None once it can no longer be bound."""
    if row.status != QuoteStatus.CREATED:
        return None
    items = capacity_db.exposures(await line_item_rows(tenant_id, quote_id=row.id))
    fit = await capacity_db.fit(tenant_id, row.monitoring_target_id, row.currency, items)
    if fit.limit is None:
        return QuoteCapacity(fits=True)
    limit = fit.limit
    # A limit shared by all tenants: what it has left would show what the others bind.
    own_book = limit.key.tenant_id is not None
    return QuoteCapacity(
        fits=fit.fits,
        limit=key_view(limit.id, limit.key, limit.limit_minor, limit.currency, limit.tenant_name),
        remaining=_money(limit.remaining_minor, limit.currency) if own_book else None,
        required=_money(fit.required_minor, limit.currency),
        used=_money(fit.own_used_minor, limit.currency),
    )


class CapacityExceeded(Conflict):
    """409 `capacity-exceeded`: the bind would take more of a limit than it has left; the
    problem names the limit (`limit`: its id and key), `required` and `used` (what the tenant's
    own policies take of it), and `remaining` only on a limit on the tenant's own book (never
    what a limit shared by all tenants has left: that would show what the others bind)."""

    slug, title = "capacity-exceeded", "Capacity limit exceeded"

    def __init__(self, refusal: CapacityRefusal):
        currency = refusal.currency
        extensions = {
            "limit": key_view(refusal.limit_id, refusal.key, refusal.limit_minor, currency, refusal.tenant_name),
            "required": _money(refusal.required_minor, currency),
        }
        if refusal.tenants_own:
            extensions["remaining"] = _money(refusal.remaining_minor, currency)
        if refusal.own_used_minor is not None:
            extensions["used"] = _money(refusal.own_used_minor, currency)
        super().__init__(refusal.message(), extensions=extensions)
        self.refusal = refusal
