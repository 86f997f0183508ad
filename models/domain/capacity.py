"""Capacity limits (docs/capacity.md): the most the book may pay, set by operations staff per
monitoring target, per risk month and per tenant, or for the whole book.

A limit's key names what it covers; a missing part means "all" (no target: every target, and
so on). What a policy takes of a limit is the most it can pay under that key: the sum of its
line items' maximum payable (`total_sum_insured_minor`: the line item's cap, the most its
covers pay together, not the sum of the covers' limits) at the key's target and tenant, and,
for a key with a month, only the line items whose period overlaps that month. A line item
spanning two months (a travel stay, a fast quote's cover period) counts in full in each: it
can pay all of it in either. Without a month, a policy takes its totalSumInsured.

Pure functions only: the stores (models/db/capacity.py) hold the limits and do the
check-and-reserve in the binding transaction.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass

import msgspec

from models.domain.dates import month_outside

MONTH_RE = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


class CapacityRefusal(msgspec.Struct, frozen=True):
    """Why a bind was refused: the limit (its id and key), what it had left and what the policy
    needed of it, in minor units of `currency`. Travels in a TransitionOutcome (fields only
    ever added, with defaults)."""

    limit_id: uuid.UUID
    monitoring_target_id: str | None
    month: str | None
    tenant_id: uuid.UUID | None
    currency: str
    limit_minor: int
    remaining_minor: int
    required_minor: int
    tenant_name: str | None = None  # the key's tenant by name, for people
    # What the binding tenant's own policies (draft or in force) take of the limit; None in
    # refusals recorded before it was added.
    own_used_minor: int | None = None

    @property
    def key(self) -> "LimitKey":
        return LimitKey(self.monitoring_target_id, self.month, self.tenant_id)

    @property
    def tenants_own(self) -> bool:
        """The limit is on the binding tenant's own book (a limit applies to a tenant only when
        its key names that tenant or all): what it has left tells of no other tenant. A limit
        shared by all tenants' `remaining` is never shown to a tenant (issue 33)."""
        return self.tenant_id is not None

    def message(self) -> str:
        left = f"has {_amount(self.remaining_minor)} {self.currency} remaining" if self.tenants_own else "has not that much left"
        return (
            f"the capacity limit on {self.key.label(self.tenant_name)} ({self.limit_id}) {left}; "
            f"this policy needs {_amount(self.required_minor)} {self.currency} of it"
        )


def _amount(minor: int) -> str:
    # Every limit is in the book's currency, INR (two decimals): docs/capacity.md.
    sign = "-" if minor < 0 else ""
    return f"{sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"


@dataclass(frozen=True, slots=True)
class LimitKey:
    """What a limit covers; None is "all"."""

    monitoring_target_id: str | None
    month: str | None  # "YYYY-MM"
    tenant_id: uuid.UUID | None

    def text(self) -> str:
        """The canonical key, unique per limit in the database (one limit per key)."""
        return f"target={self.monitoring_target_id or '*'};month={self.month or '*'};tenant={self.tenant_id or '*'}"

    def label(self, tenant_name: str | None = None) -> str:
        """In words: "monitoring target X, month 2027-01, all tenants" (the tenant by its name
        when given, else by its id)."""
        if not (self.monitoring_target_id or self.month or self.tenant_id):
            return "the whole book"
        return ", ".join([
            f"monitoring target {self.monitoring_target_id}" if self.monitoring_target_id else "all targets",
            f"month {self.month}" if self.month else "all months",
            f"tenant {tenant_name or self.tenant_id}" if self.tenant_id else "all tenants",
        ])


@dataclass(frozen=True, slots=True)
class Exposure:
    """One line item as capacity sees it: the most it can pay over [start, end] (minor units)."""

    start: dt.date
    end: dt.date
    amount_minor: int


def parse_month(text: str) -> str:
    """A risk month "YYYY-MM" inside the service's calendar (models/domain/dates.py);
    ValueError, in words, otherwise."""
    match = MONTH_RE.match(text)
    if not match:
        raise ValueError("must be a month as YYYY-MM, e.g. 2027-01")
    if why := month_outside(int(match.group(1)), int(match.group(2))):
        raise ValueError(why)
    return text


def month_bounds(month: str) -> tuple[dt.date, dt.date]:
    """The first and last day of "YYYY-MM"."""
    year, number = int(month[:4]), int(month[5:])
    first = dt.date(year, number, 1)
    following = dt.date(year + (number == 12), number % 12 + 1, 1)
    return first, following - dt.timedelta(days=1)


def months_of(items: list[Exposure]) -> list[str]:
    """The months the line items cover, in order."""
    months: set[str] = set()
    for item in items:
        cursor = dt.date(item.start.year, item.start.month, 1)
        while cursor <= item.end:
            months.add(f"{cursor:%Y-%m}")
            cursor = dt.date(cursor.year + (cursor.month == 12), cursor.month % 12 + 1, 1)
    return sorted(months)


def required(key: LimitKey, tenant_id: uuid.UUID, target_id: str | None, items: list[Exposure]) -> int:
    """What a policy (of `tenant_id`, at `target_id`, with `items`) takes of the limit on `key`."""
    if key.tenant_id is not None and key.tenant_id != tenant_id:
        return 0
    if key.monitoring_target_id is not None and key.monitoring_target_id != target_id:
        return 0
    if key.month is None:
        return sum(i.amount_minor for i in items)
    first, last = month_bounds(key.month)
    return sum(i.amount_minor for i in items if i.start <= last and i.end >= first)
