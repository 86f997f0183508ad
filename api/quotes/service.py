"""Assembling a tenant quote from the priced catalogue (the request path of POST /quotes).

The catalogue already holds the prices; only a target or month not seen before waits for
its catalogue pricing (seconds, once)."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

from temporalio.client import Client

from api.catalogue.service import ensure_coverages
from api.deps import CATALOGUE_DEADLINE
from models.db.catalogue import find_coverages
from models.domain.index_catalog import BY_ID
from models.domain.terms import CoverageSlot
from models.settings import Settings
from models.temporal.quotes import CoverSnapshot


def snapshot(row: dict) -> CoverSnapshot:
    return CoverSnapshot(
        coverage_id=row["id"],
        index_code=BY_ID[uuid.UUID(str(row["index_definition_id"]))].code,
        index_definition_id=uuid.UUID(str(row["index_definition_id"])),
        start=row["risk_period_start"],
        end=row["risk_period_end"],
        direction=row["direction"],
        trigger=Decimal(str(row["trigger"])),
        exit=None if row["exit"] is None else Decimal(str(row["exit"])),
        currency=row["currency"],
        limit_minor=row["limit_minor"],
        min_payout_minor=row["min_payout_minor"],
        payout_per_unit_minor=row["payout_per_unit_minor"],
        gross_premium_pct=Decimal(str(row["gross_premium_indication_pct"])),
        risk_premium_pct=Decimal(str(row["risk_premium_pct"])),
        pricing_version=row["pricing_version"],
    )


class NonViableSlots:
    """Slots the model found no viable cover for, remembered per process (they never change
    for a model version), so quotes for such months need no catalogue round trip."""

    def __init__(self) -> None:
        self._known: set[tuple[str, CoverageSlot]] = set()

    def add(self, target_id: str, slot: CoverageSlot) -> None:
        self._known.add((target_id, slot))

    def __contains__(self, item: tuple[str, CoverageSlot]) -> bool:
        return item in self._known


def _complete(rows: dict[CoverageSlot, dict], target_id: str, slots: list[CoverageSlot], nonviable: NonViableSlots) -> bool:
    """Every slot is priced or known to be not viable."""
    return all(
        (slot in rows and rows[slot]["pricing_version"] > 0) or (target_id, slot) in nonviable for slot in slots
    )


async def priced_covers(
    temporal: Client, settings: Settings, target_id: str, slots: list[CoverageSlot], nonviable: NonViableSlots
) -> dict[CoverageSlot, CoverSnapshot]:
    rows = await find_coverages(target_id, slots)
    if not _complete(rows, target_id, slots, nonviable):
        planned = await asyncio.wait_for(
            ensure_coverages(temporal, settings, target_id, slots, wait_for_pricing=True), CATALOGUE_DEADLINE
        )
        for p in planned:
            if p.coverage_id is None:
                nonviable.add(target_id, p.slot)
        rows = await find_coverages(target_id, slots)
    return {slot: snapshot(row) for slot, row in rows.items() if row["pricing_version"] > 0}


def check_period(start: dt.date, end: dt.date, today: dt.date) -> str | None:
    """Why the risk period cannot be quoted, or None."""
    if start <= today:
        return "riskPeriodFrom must be after today: cover is never sold once its risk period has started"
    if start > today + dt.timedelta(days=2 * 366):
        return "riskPeriodFrom may be at most two years ahead"
    if (end - start).days >= 366:
        return "the risk period may be at most one year (366 days)"
    return None
