"""Talking to the catalogue workflow of a target (update-with-start), and the priced covers
of a target that quotes are built from.

The catalogue already holds the prices; only a target or month not seen before waits for
its catalogue pricing (seconds, once)."""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowUpdateFailedError,
)
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
)
from temporalio.exceptions import ApplicationError

from api.deps import CATALOGUE_DEADLINE
from api.lifecycle import target_label
from api.problems import InvalidInput, NotFound, Unavailable
from models.db.catalogue import find_coverages
from models.db.records import CoverageRow
from models.domain.index_catalog import BY_ID
from models.domain.periods import month_slots
from models.domain.terms import CoverageSlot
from models.settings import Settings
from models.temporal.catalogue import (
    CATALOGUE_WORKFLOW,
    ENSURE_UPDATE,
    UNKNOWN_TARGET,
    CatalogueInput,
    EnsureCoveragesRequest,
    PlannedCoverage,
)
from models.temporal.ids import catalogue_workflow_id
from models.temporal.queues import task_queue
from models.temporal.quotes import CoverSnapshot
from models.temporal.search_attributes import MONITORING_TARGET_ID

# Index definitions sold month by month in the catalogue (the hotel cover is daily, travel).
MONTHLY_INDEX_CODES = ["RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "WIND_MAX_SPEED", "TEMPERATURE_MAX"]


def catalogue_window(settings: Settings, today: dt.date | None = None) -> list[CoverageSlot]:
    """The default shelf: every monthly index for the next `catalogue_months` calendar months."""
    today = today or dt.date.today()
    first = dt.date(today.year + (today.month == 12), today.month % 12 + 1, 1)
    return month_slots(MONTHLY_INDEX_CODES, first, settings.catalogue_months)


async def ensure_coverages(
    client: Client,
    settings: Settings,
    target_id: str,
    slots: list[CoverageSlot],
    wait_for_pricing: bool,
    fallbacks: bool = False,
) -> list[PlannedCoverage]:
    start = WithStartWorkflowOperation(
        CATALOGUE_WORKFLOW,
        CatalogueInput(
            target_id=target_id,
            unit_limit=settings.catalogue_unit_limit,
            currency=settings.catalogue_currency,
            expected_loss_ratio=settings.expected_loss_ratio,
            simulations=settings.simulations,
            created_by=settings.catalogue_created_by,
        ),
        id=catalogue_workflow_id(target_id),
        # Catalogue and pricing orchestration runs on the pricing worker: a burst of it never
        # queues before a quote's or a policy's workflow tasks.
        task_queue=task_queue(settings.task_queue, "pricing"),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=TypedSearchAttributes([SearchAttributePair(MONITORING_TARGET_ID, target_id)]),
        static_summary=f"Catalogue · {await target_label(target_id)}",
    )
    try:
        return await client.execute_update_with_start_workflow(
            ENSURE_UPDATE,
            EnsureCoveragesRequest(slots=slots, wait_for_pricing=wait_for_pricing, fallbacks=fallbacks),
            start_workflow_operation=start,
            result_type=list[PlannedCoverage],
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type == UNKNOWN_TARGET:
            raise NotFound(f"monitoring target {target_id} does not exist") from None
        if isinstance(cause, ApplicationError):
            raise Unavailable(f"the catalogue could not be priced: {cause.message}") from None
        raise


def check_window(start: dt.date, end: dt.date) -> None:
    if end < start:
        raise InvalidInput("the period ends before it starts")
    if (end - start).days > 400:
        raise InvalidInput("the period may span at most 13 months")


def snapshot(row: CoverageRow) -> CoverSnapshot:
    """A priced coverage's terms and price, frozen into a quote."""
    return CoverSnapshot(
        coverage_id=row.id,
        index_code=BY_ID[row.index_definition_id].code,
        index_definition_id=row.index_definition_id,
        start=row.risk_period_start,
        end=row.risk_period_end,
        direction=row.direction,
        trigger=row.trigger,
        exit=row.exit,
        currency=row.currency,
        limit_minor=row.limit_minor,
        min_payout_minor=row.min_payout_minor,
        payout_per_unit_minor=row.payout_per_unit_minor,
        gross_premium_pct=row.gross_premium_indication_pct,
        risk_premium_pct=row.risk_premium_pct,
        pricing_version=row.pricing_version,
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


def _complete(
    rows: dict[CoverageSlot, CoverageRow], target_id: str, slots: list[CoverageSlot], nonviable: NonViableSlots
) -> bool:
    """Every slot is priced or known to be not viable."""
    return all((slot in rows and rows[slot].priced) or (target_id, slot) in nonviable for slot in slots)


async def priced_covers(
    temporal: Client,
    settings: Settings,
    target_id: str,
    slots: list[CoverageSlot],
    nonviable: NonViableSlots,
    fallbacks: bool = False,
) -> dict[CoverageSlot, CoverSnapshot]:
    """The priced covers of `slots` (missing ones created and priced first; with `fallbacks`
    the catalogue also creates and prices, in the same round trip, the fallback slots of
    months whose slots are not viable, so a first quote waits for one joint pricing)."""
    rows = await find_coverages(target_id, slots)
    if not _complete(rows, target_id, slots, nonviable):
        planned = await asyncio.wait_for(
            ensure_coverages(temporal, settings, target_id, slots, wait_for_pricing=True, fallbacks=fallbacks),
            CATALOGUE_DEADLINE,
        )
        for p in planned:
            if p.coverage_id is None:
                nonviable.add(target_id, p.slot)
        rows = await find_coverages(target_id, slots)
    return {slot: snapshot(row) for slot, row in rows.items() if row.priced}
