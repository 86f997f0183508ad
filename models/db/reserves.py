"""The claims reserve's reads (issue 34; docs/portfolio.md, "Owed but not yet paid"): the
scope's line items whose covers' periods have ended, each cover with its coverage's
settlement state, what this policy was paid on it, and the un-reduced index of the
coverage's latest settlement snapshot; the computation is models/domain/reserves.py.

Policies: the scope's ACCEPTED, ACTIVE and EXPIRED ones (an expired policy's INITIAL cover
still gets its true-up) and the CANCELED ones cancelled after a cover's period began (their
cover may still pay for the days before, as settlement decides), in the book's currency.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import msgspec

from models.db.core import json_value
from models.db.portfolio import _chunks
from models.db.tables import (
    LineItem,
    ParametricEvent,
    Policy,
    Settlement,
    SettlementSnapshot,
)
from models.domain.data_sets import settles_on
from models.domain.quotes import CoverSnapshot
from models.domain.reserves import SETTLED, HeldCover, HeldItem
from models.domain.statuses import PolicyStatus

HOLDING = (PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE, PolicyStatus.EXPIRED, PolicyStatus.CANCELED)


async def _policies(tenant_id: uuid.UUID | str | None, currency: str) -> dict[uuid.UUID, dt.datetime | None]:
    """policy id → when it was cancelled (None: not cancelled)."""
    query = Policy.select(Policy.id, Policy.status, Policy.canceled_at).where(
        Policy.status.is_in([str(s) for s in HOLDING]) & (Policy.currency == currency))
    if tenant_id is not None:
        query = query.where(Policy.tenant_id == uuid.UUID(str(tenant_id)))
    out = {}
    for p in await query:
        cancelled = None
        if p["status"] == PolicyStatus.CANCELED:  # without the time recorded: cancelled before every cover
            cancelled = p["canceled_at"] or dt.datetime.min
            cancelled = cancelled if cancelled.tzinfo else cancelled.replace(tzinfo=dt.UTC)
        out[p["id"]] = cancelled
    return out


async def _line_items(policies: dict, as_of: dt.date) -> list[tuple[uuid.UUID, dict, list[CoverSnapshot]]]:
    """(policy id, line item row, its covers whose period ended before `as_of` and which the
    policy held then)."""
    out = []
    decoded: dict[str, list[CoverSnapshot]] = {}
    for part in _chunks(sorted(policies, key=str)):
        rows = await LineItem.select(
            LineItem.policy_id, LineItem.position, LineItem.quantity, LineItem.sum_insured_minor, LineItem.currency,
            LineItem.covers,
        ).where(LineItem.policy_id.is_in(part) & (LineItem.period_start < as_of))
        for row in sorted(rows, key=lambda r: (str(r["policy_id"]), r["position"])):
            raw = row["covers"]
            key = raw if isinstance(raw, str) else msgspec.json.encode(raw).decode()
            if key not in decoded:
                decoded[key] = msgspec.convert(json_value(raw), list[CoverSnapshot], strict=False)
            cancelled = policies[row["policy_id"]]
            covers = [c for c in decoded[key] if c.end < as_of and (
                cancelled is None or cancelled > dt.datetime.combine(c.start, dt.time(), dt.UTC))]
            if covers:
                out.append((row["policy_id"], row, covers))
    return out


async def _states(coverage_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    out = {}
    for part in _chunks(coverage_ids):
        for r in await Settlement.select(Settlement.coverage_id, Settlement.state).where(Settlement.coverage_id.is_in(part)):
            out[r["coverage_id"]] = r["state"]
    return out


async def _paid(policy_ids: list[uuid.UUID]) -> dict[tuple[uuid.UUID, uuid.UUID], int]:
    """(policy, coverage) → paid so far, net of adjustments, in minor units."""
    out = {}
    for part in _chunks(policy_ids):
        marks = ", ".join("{}" for _ in part)
        for e in await ParametricEvent.raw(
            "SELECT policy_id, coverage_id, SUM(payout_minor) AS paid FROM parametric_event "
            f"WHERE policy_id IN ({marks}) GROUP BY policy_id, coverage_id", *part,
        ):
            out[(_uuid(e["policy_id"]), _uuid(e["coverage_id"]))] = int(e["paid"])
    return out


async def latest_indices(coverage_ids: list[uuid.UUID]) -> dict[uuid.UUID, Decimal]:
    """coverage → the un-reduced index (`result.indexValue`) of its latest settlement snapshot."""
    latest: dict[uuid.UUID, tuple[int, Decimal]] = {}
    for part in _chunks(coverage_ids):
        # `index_value` is the body's `result.indexValue`, written with it: the bodies (every
        # day's value) need not be read.
        for r in await SettlementSnapshot.select(
            SettlementSnapshot.coverage_id, SettlementSnapshot.revision, SettlementSnapshot.index_value,
        ).where(SettlementSnapshot.coverage_id.is_in(part)):
            if r["coverage_id"] not in latest or r["revision"] > latest[r["coverage_id"]][0]:
                latest[r["coverage_id"]] = (r["revision"], Decimal(str(r["index_value"])))
    return {c: value for c, (_, value) in latest.items()}


def _uuid(value) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


async def held_items(tenant_id: uuid.UUID | str | None, as_of: dt.date, currency: str) -> list[HeldItem]:
    """The scope's line items with a cover whose period ended before `as_of` (module
    docstring), as models/domain/reserves.py reads them."""
    policies = await _policies(tenant_id, currency)
    items = await _line_items(policies, as_of)
    coverages = sorted({c.coverage_id for _, _, covers in items for c in covers}, key=str)
    states = await _states(coverages)
    indices = await latest_indices([c for c in coverages if states.get(c, "") != SETTLED])
    paid = await _paid(sorted({p for p, _, _ in items}, key=str))
    return [
        HeldItem(
            quantity=Decimal(row["quantity"]), sum_insured_minor=int(row["sum_insured_minor"]), currency=row["currency"],
            covers=tuple(HeldCover(
                cover=c, data_set=settles_on(c.index_code, c.data_set), state=states.get(c.coverage_id, ""),
                paid_minor=paid.get((policy_id, c.coverage_id), 0), index_value=indices.get(c.coverage_id),
            ) for c in covers),
        )
        for policy_id, row, covers in items
    ]
