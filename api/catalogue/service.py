"""Talking to the catalogue workflow of a target (update-with-start), and the priced covers
of a target that quotes are built from.

The catalogue already holds the prices; only a target or month not seen before waits for
its catalogue pricing (seconds, once). Such a request is admitted by the tenant's pricing
quota first (api/admission.py), and the catalogue workflow it starts carries the tenant as
its Temporal fairness key (and the priority of a lone or a burst request): its pricing
activities inherit them, so the pricing queue hands tenants' work out in turn. (A target's
catalogue workflow is shared by every tenant and keeps the key of the tenant whose request
started it until it closes, two idle minutes later.)"""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowUpdateFailedError,
)
from temporalio.common import (
    Priority,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
)
from temporalio.exceptions import ApplicationError

from api.admission import PricingAdmission
from api.deps import CATALOGUE_DEADLINE
from api.catalogue.window import add_months
from api.lifecycle import target_label
from api.problems import InvalidInput, NotFound, Unavailable
from models.clock import business_today
from models.db.catalogue import find_coverages
from models.db.records import CoverageRow
from models.domain.index_catalog import BY_ID
from models.domain.periods import month_slots
from models.domain.quotes import offered, pricing_settled
from models.domain.statuses import CoverageStatus
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
    today = today or business_today()  # India's date, as the sellable window's (api/catalogue/window.py)
    first = dt.date(today.year + (today.month == 12), today.month % 12 + 1, 1)
    return month_slots(MONTHLY_INDEX_CODES, first, min(settings.catalogue_months, settings.sellable_months))


async def ensure_coverages(
    client: Client,
    settings: Settings,
    target_id: str,
    slots: list[CoverageSlot],
    wait_for_pricing: bool,
    fallbacks: bool = False,
    priority: Priority | None = None,
) -> list[PlannedCoverage]:
    """`priority`: the Temporal priority and fairness key (the tenant) of a catalogue
    workflow this request starts (api/admission.py); None for the platform's own builds."""
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
        priority=priority or Priority.default,
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


def period_slots(
    start: dt.date | None, end: dt.date | None, window: tuple[dt.date, dt.date], months: int = 12
) -> list[CoverageSlot]:
    """The monthly slots of a catalogue read's `from`/`to` (both already inside the sellable
    window): `from` defaults to the window's first month, `to` to `months` months on, within
    the window; at most 13 months."""
    first = (start or window[0]).replace(day=1)
    if end is None:
        end = min(add_months(first, months) - dt.timedelta(days=1), window[1])
    if end < first:
        raise InvalidInput.of_field("to", f"{end} is before the period's first month ({first:%Y-%m})")
    count = (end.year - first.year) * 12 + end.month - first.month + 1
    if count > 13:
        raise InvalidInput.of_field("to", f"the period spans {count} months; at most 13")
    return month_slots(MONTHLY_INDEX_CODES, first, count)


def snapshot(row: CoverageRow) -> CoverSnapshot:
    """A priced coverage's terms, price and settlement basis (None for a cover created before
    the ladder), frozen into a quote and the policy made of it."""
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
        data_set=row.data_set,
        settlement_basis=row.settlement_basis,
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


def remember_nonviable(nonviable: NonViableSlots, target_id: str, planned: list[PlannedCoverage]) -> None:
    for p in planned:
        if p.coverage_id is None:
            nonviable.add(target_id, p.slot)


def complete(
    rows: dict[CoverageSlot, CoverageRow], target_id: str, slots: list[CoverageSlot], nonviable: NonViableSlots
) -> bool:
    """Every slot is priced (or held for an actuary) or known to be not viable."""
    return all((slot in rows and _settled(rows[slot])) or (target_id, slot) in nonviable for slot in slots)


def _settled(row: CoverageRow) -> bool:
    return pricing_settled(row.status, row.pricing_version)


async def priced_covers(
    temporal: Client,
    settings: Settings,
    target_id: str,
    slots: list[CoverageSlot],
    nonviable: NonViableSlots,
    fallbacks: bool = False,
    *,
    tenant_id: str,
    admission: PricingAdmission,
) -> dict[CoverageSlot, CoverSnapshot]:
    """The priced covers of `slots` (missing ones created and priced first, once the
    tenant's pricing quota admits it; with `fallbacks` the catalogue also creates and prices,
    in the same round trip, the fallback slots of months whose slots are not viable, so a
    first quote waits for one joint pricing)."""
    rows = await find_coverages(target_id, slots)
    if not complete(rows, target_id, slots, nonviable):
        async with admission.pricing(tenant_id) as priority:
            planned = await asyncio.wait_for(
                ensure_coverages(
                    temporal, settings, target_id, slots, wait_for_pricing=True, fallbacks=fallbacks, priority=priority
                ),
                CATALOGUE_DEADLINE,
            )
        remember_nonviable(nonviable, target_id, planned)
        rows = await find_coverages(target_id, slots)
    # A coverage held for an actuary is skipped like a slot with no viable cover: the quote
    # takes the month's next index instead (docs/catalogue.md, "Held for an actuary").
    return {slot: snapshot(row) for slot, row in rows.items() if offered(row.status, row.pricing_version)}


async def held_slots(target_id: str, slots: list[CoverageSlot]) -> set[CoverageSlot]:
    """The slots among `slots` whose coverage is held for an actuary (REVIEW): a quote says a
    month is uncovered because of it (models/domain/quotes.py, `uncovered_month`)."""
    rows = await find_coverages(target_id, slots)
    return {slot for slot, row in rows.items() if row.status == CoverageStatus.REVIEW}
