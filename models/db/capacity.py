"""Capacity limits and what the book uses of them (docs/capacity.md; the arithmetic in
models/domain/capacity.py).

`used_minor` of a limit is kept in the transactions that change the book:
- a limit set now starts with what the policies in draft or in force already take of it;
- a conversion (the binding write: tenant, internal and travel alike) takes its share of every
  limit that applies, each with one conditional UPDATE (`used + x <= limit`), in the
  conversion's own transaction: one that does not fit raises `CapacityExceeded`, which rolls
  the whole conversion back;
- a cancellation, expiry or lapse gives the share back, in the transaction of that status write.

Exact under concurrency: on SQLite write transactions take turns (models/db/core.py
write_transaction); on PostgreSQL the conditional UPDATE locks the limit's row and re-checks
its condition on the row a concurrent bind committed, and the binds take the limits in one
order (by id), so they never deadlock. A limit set while binds run must not miss one: its
transaction locks the table against them (SHARE ROW EXCLUSIVE) while it counts, and every
bind or release first takes the table in ROW EXCLUSIVE mode (no wait unless a limit is being
set), so each policy is counted either by the new limit's count or by its own write, never
by both or neither.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from models.clock import utcnow
from models.db.core import is_sqlite, scoped_select, write_transaction
from models.db.tables import CapacityLimit, LineItem, Policy, Quote, Tenant
from models.domain.capacity import (
    CapacityRefusal,
    Exposure,
    LimitKey,
    month_bounds,
    months_of,
    required,
)
from models.domain.statuses import PolicyStatus

# A policy takes capacity from its conversion (draft) until it is cancelled, expires or lapses.
HOLDING_STATUSES = (PolicyStatus.CREATED, PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE)
RELEASING_STATUSES = (PolicyStatus.CANCELED, PolicyStatus.EXPIRED, PolicyStatus.LAPSED)


class CapacityExceeded(Exception):
    """A bind that does not fit a limit; raised inside the binding transaction (rolls it back)."""

    def __init__(self, refusal: CapacityRefusal):
        super().__init__(refusal.message())
        self.refusal = refusal


class LimitExists(Exception):
    """A limit on that key is in place already (one limit per key)."""

    def __init__(self, limit_id: uuid.UUID):
        super().__init__(f"a capacity limit on that key exists: {limit_id}")
        self.limit_id = limit_id


@dataclass(frozen=True, slots=True)
class LimitRecord:
    id: uuid.UUID
    key: LimitKey
    currency: str
    limit_minor: int
    used_minor: int
    created_by: str
    created_at: dt.datetime
    updated_at: dt.datetime
    tenant_name: str | None = None  # the key's tenant by name (read with it), for people

    @property
    def remaining_minor(self) -> int:
        """What binds may still take; 0 when a limit was set (or lowered) below what is used."""
        return max(0, self.limit_minor - self.used_minor)


@dataclass(frozen=True, slots=True)
class Fit:
    """Whether a tenant's quote would fit every limit that applies, and the one it names (None
    when no limit applies): when it does not fit, the first that lacks room (in id order, the
    one a bind would be refused on); when it fits, the one with the least left after the quote
    as far as the tenant's own book goes (limit - own usage - required), so that what other
    tenants bind never changes what a tenant is shown but fits / does not fit. `own_used_minor`:
    what the tenant's own policies take of that limit."""

    fits: bool
    limit: LimitRecord | None = None
    required_minor: int = 0
    own_used_minor: int = 0


def _record(row: dict[str, Any]) -> LimitRecord:
    tenant = row["tenant_id"]
    return LimitRecord(
        id=row["id"] if isinstance(row["id"], uuid.UUID) else uuid.UUID(str(row["id"])),
        key=LimitKey(row["monitoring_target_id"], row["month"],
                     None if tenant is None else tenant if isinstance(tenant, uuid.UUID) else uuid.UUID(str(tenant))),
        currency=row["currency"],
        limit_minor=int(row["limit_minor"]),
        used_minor=int(row["used_minor"]),
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


async def _tenant_names(ids) -> dict[uuid.UUID, str]:
    ids = sorted({i for i in ids if i is not None}, key=str)
    if not ids:
        return {}
    return {r["id"]: r["name"] for r in await Tenant.select(Tenant.id, Tenant.name).where(Tenant.id.is_in(ids))}


async def _named(records: list[LimitRecord]) -> list[LimitRecord]:
    """The records with their tenants' names (one read)."""
    names = await _tenant_names(r.key.tenant_id for r in records)
    return [dataclasses.replace(r, tenant_name=names.get(r.key.tenant_id)) if r.key.tenant_id else r for r in records]


def exposures(items) -> list[Exposure]:
    """Line items (drafts: `start`/`end`, or rows: `period_start`/`period_end`) as capacity
    sees them: the most each can pay (its cap, `total_sum_insured_minor`) over its period."""
    return [
        Exposure(getattr(i, "start", None) or i.period_start, getattr(i, "end", None) or i.period_end,
                 int(i.total_sum_insured_minor))
        for i in items
    ]


async def _lock(mode: str) -> None:
    """PostgreSQL: the table lock of the module docstring (SQLite: the write transaction is it)."""
    if not is_sqlite():
        await CapacityLimit.raw(f"LOCK TABLE capacity_limit IN {mode} MODE")


# --- the limits -----------------------------------------------------------------------------------


async def counted(key: LimitKey, currency: str, exclude_policy: uuid.UUID | None = None) -> int:
    """What the policies in draft or in force take of a limit on `key` now (minor units),
    from their line items: the count a new limit starts from, and the check of `used_minor`;
    with the key's tenant set, what that tenant's own policies take of a limit on the key
    without it (`exclude_policy`: but that one)."""
    sql = (
        "SELECT COALESCE(SUM(li.total_sum_insured_minor), 0) AS used FROM line_item li "
        "JOIN policy p ON li.policy_id = p.id JOIN quote q ON q.id = p.quote_id "
        f"WHERE p.status IN ({', '.join('{}' for _ in HOLDING_STATUSES)}) AND p.currency = {{}}"
    )
    values: list[Any] = [str(s) for s in HOLDING_STATUSES] + [currency]
    if key.monitoring_target_id is not None:
        sql += " AND q.monitoring_target_id = {}"
        values.append(key.monitoring_target_id)
    if key.tenant_id is not None:
        sql += " AND p.tenant_id = {}"
        values.append(key.tenant_id)
    if exclude_policy is not None:
        sql += " AND p.id <> {}"
        values.append(exclude_policy)
    if key.month is not None:
        first, last = month_bounds(key.month)
        sql += " AND li.period_start <= {} AND li.period_end >= {}"
        values += [last, first]
    rows = await CapacityLimit.raw(sql, *values)
    return int(rows[0]["used"] or 0)


async def create_limit(key: LimitKey, currency: str, limit_minor: int, actor: str) -> LimitRecord:
    """A new limit on `key`, starting from what the book already takes of it (LimitExists if
    that key has one)."""
    now = utcnow()
    async with write_transaction():
        await _lock("SHARE ROW EXCLUSIVE")
        existing = await CapacityLimit.select(CapacityLimit.id).where(CapacityLimit.key == key.text()).first()
        if existing is not None:
            raise LimitExists(existing["id"])
        limit_id = uuid.uuid4()
        await CapacityLimit.insert(CapacityLimit(
            id=limit_id, key=key.text(), monitoring_target_id=key.monitoring_target_id, month=key.month,
            tenant_id=key.tenant_id, currency=currency, limit_minor=limit_minor,
            used_minor=await counted(key, currency), created_by=actor, created_at=now, updated_at=now,
        ))
    found = await get_limit(limit_id)
    assert found is not None
    return found


async def change_limit(limit_id: uuid.UUID, currency: str, limit_minor: int) -> LimitRecord | None:
    """A limit's amount changed (None: no such limit). Lowering it below what is used refuses
    the binds that need of it; nothing bound is undone."""
    changed = await CapacityLimit.update(
        {CapacityLimit.limit_minor: limit_minor, CapacityLimit.currency: currency, CapacityLimit.updated_at: utcnow()}
    ).where(CapacityLimit.id == limit_id).returning(CapacityLimit.id)
    return await get_limit(limit_id) if changed else None


async def delete_limit(limit_id: uuid.UUID) -> bool:
    deleted = await CapacityLimit.delete().where(CapacityLimit.id == limit_id).returning(CapacityLimit.id)
    return bool(deleted)


async def get_limit(limit_id: uuid.UUID) -> LimitRecord | None:
    row = await CapacityLimit.select().where(CapacityLimit.id == limit_id).first()
    return (await _named([_record(row)]))[0] if row else None


async def limit_on(key: LimitKey) -> LimitRecord | None:
    row = await CapacityLimit.select().where(CapacityLimit.key == key.text()).first()
    return (await _named([_record(row)]))[0] if row else None


async def list_limits() -> list[LimitRecord]:
    """Every limit: the whole book first, then by target, month and tenant (nulls first)."""
    rows = await _named([_record(r) for r in await CapacityLimit.select()])
    return sorted(rows, key=lambda r: (r.key.monitoring_target_id or "", r.key.month or "", str(r.key.tenant_id or ""), str(r.id)))


# --- binding and releasing ------------------------------------------------------------------------


async def _applying(tenant_id: uuid.UUID, target_id: str | None, currency: str, items: list[Exposure]) -> list[LimitRecord]:
    """The limits that may apply to a policy: its currency, its target or all, its tenant or
    all, a month it covers or all; in id order (the order binds take them in)."""
    months = months_of(items)
    target = CapacityLimit.monitoring_target_id
    tenant = CapacityLimit.tenant_id
    month = CapacityLimit.month
    query = CapacityLimit.select().where(CapacityLimit.currency == currency).where(
        target.is_null() | (target == target_id) if target_id is not None else target.is_null()
    ).where(tenant.is_null() | (tenant == tenant_id))
    query = query.where(month.is_null() | month.is_in(months)) if months else query.where(month.is_null())
    return sorted((_record(r) for r in await query), key=lambda r: str(r.id))


def own_key(key: LimitKey, tenant: uuid.UUID) -> LimitKey:
    """The part of a limit's key that is `tenant`'s own book (counted on it: its own usage)."""
    return LimitKey(key.monitoring_target_id, key.month, tenant)


async def reserve(tenant_id: str | uuid.UUID, target_id: str | None, currency: str, items: list[Exposure],
                  policy_id: uuid.UUID | None = None) -> None:
    """Take a policy's share of every limit that applies, inside the binding's write
    transaction; CapacityExceeded (the transaction rolls back) on the first that lacks room,
    with what the tenant's own other policies take of it (`policy_id`: the one being bound)."""
    tenant = tenant_id if isinstance(tenant_id, uuid.UUID) else uuid.UUID(str(tenant_id))
    await _lock("ROW EXCLUSIVE")
    for limit in await _applying(tenant, target_id, currency, items):
        need = required(limit.key, tenant, target_id, items)
        if need <= 0:
            continue
        taken = await CapacityLimit.raw(
            "UPDATE capacity_limit SET used_minor = used_minor + {} WHERE id = {} AND used_minor + {} <= limit_minor "
            "RETURNING id", need, limit.id, need,
        )
        if not taken:
            now = await CapacityLimit.select(CapacityLimit.limit_minor, CapacityLimit.used_minor).where(
                CapacityLimit.id == limit.id
            ).first()
            raise CapacityExceeded(CapacityRefusal(
                limit_id=limit.id, monitoring_target_id=limit.key.monitoring_target_id, month=limit.key.month,
                tenant_id=limit.key.tenant_id, currency=currency, limit_minor=int(now["limit_minor"]),
                remaining_minor=max(0, int(now["limit_minor"]) - int(now["used_minor"])), required_minor=need,
                tenant_name=(await _tenant_names([limit.key.tenant_id])).get(limit.key.tenant_id),
                own_used_minor=await counted(own_key(limit.key, tenant), currency, exclude_policy=policy_id),
            ))


async def release(tenant_id: str | uuid.UUID, target_id: str | None, currency: str, items: list[Exposure]) -> None:
    """Give a policy's share back to every limit that applies, inside the transaction that
    cancels, expires or lapses it (only when that write changed the status)."""
    tenant = tenant_id if isinstance(tenant_id, uuid.UUID) else uuid.UUID(str(tenant_id))
    await _lock("ROW EXCLUSIVE")
    for limit in await _applying(tenant, target_id, currency, items):
        need = required(limit.key, tenant, target_id, items)
        if need > 0:
            await CapacityLimit.raw("UPDATE capacity_limit SET used_minor = used_minor - {} WHERE id = {}", need, limit.id)


async def release_policy(tenant_id: str | uuid.UUID, policy_id: uuid.UUID) -> None:
    """`release` of a policy by its id (its line items, its quote's target), inside the
    transaction that moved it out of HOLDING_STATUSES."""
    policy = await scoped_select(Policy, tenant_id, Policy.quote_id, Policy.currency).where(Policy.id == policy_id).first()
    if policy is None:
        return
    quote = await scoped_select(Quote, tenant_id, Quote.monitoring_target_id).where(Quote.id == policy["quote_id"]).first()
    items = await scoped_select(
        LineItem, tenant_id, LineItem.period_start, LineItem.period_end, LineItem.total_sum_insured_minor
    ).where(LineItem.policy_id == policy_id)
    exposures_ = [Exposure(i["period_start"], i["period_end"], int(i["total_sum_insured_minor"])) for i in items]
    await release(tenant_id, quote and quote["monitoring_target_id"], policy["currency"], exposures_)


async def fit(tenant_id: str | uuid.UUID, target_id: str | None, currency: str, items: list[Exposure]) -> Fit:
    """Whether a quote would fit now (a read: binding decides, under the lock)."""
    tenant = tenant_id if isinstance(tenant_id, uuid.UUID) else uuid.UUID(str(tenant_id))
    applying = [(limit, need) for limit in await _applying(tenant, target_id, currency, items)
                if (need := required(limit.key, tenant, target_id, items)) > 0]
    if not applying:
        return Fit(fits=True)
    refusing = [(limit, need) for limit, need in applying if limit.limit_minor - limit.used_minor - need < 0]
    if refusing:
        limit, need = refusing[0]
        own = await counted(own_key(limit.key, tenant), currency)
        return Fit(fits=False, limit=(await _named([limit]))[0], required_minor=need, own_used_minor=own)
    best: tuple[int, LimitRecord, int, int] | None = None
    for limit, need in applying:
        own = await counted(own_key(limit.key, tenant), currency)
        left = limit.limit_minor - own - need
        if best is None or left < best[0]:
            best = (left, limit, need, own)
    _, limit, need, own = best
    return Fit(fits=True, limit=(await _named([limit]))[0], required_minor=need, own_used_minor=own)
