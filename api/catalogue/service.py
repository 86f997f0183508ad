"""Talking to the catalogue workflow of a target (update-with-start)."""

from __future__ import annotations

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

from api.lifecycle import target_label
from api.problems import InvalidInput, NotFound, Unavailable
from models.domain.periods import month_slots
from models.domain.terms import CoverageSlot
from models.settings import Settings
from models.temporal.catalogue import (
    CatalogueInput,
    EnsureCoveragesRequest,
    PlannedCoverage,
)
from models.temporal.ids import catalogue_workflow_id
from models.temporal.queues import task_queue
from models.temporal.search_attributes import MONITORING_TARGET_ID
from workflows.catalogue import CatalogueWorkflow

# Index definitions sold month by month in the catalogue (the hotel cover is daily, travel).
MONTHLY_INDEX_CODES = ["RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "WIND_MAX_SPEED", "TEMPERATURE_MAX"]


def catalogue_window(settings: Settings, today: dt.date | None = None) -> list[CoverageSlot]:
    """The default shelf: every monthly index for the next `catalogue_months` calendar months."""
    today = today or dt.date.today()
    first = dt.date(today.year + (today.month == 12), today.month % 12 + 1, 1)
    return month_slots(MONTHLY_INDEX_CODES, first, settings.catalogue_months)


async def ensure_coverages(
    client: Client, settings: Settings, target_id: str, slots: list[CoverageSlot], wait_for_pricing: bool
) -> list[PlannedCoverage]:
    start = WithStartWorkflowOperation(
        CatalogueWorkflow.run,
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
            CatalogueWorkflow.ensure,
            EnsureCoveragesRequest(slots=slots, wait_for_pricing=wait_for_pricing),
            start_workflow_operation=start,
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type == "UnknownTarget":
            raise NotFound(f"monitoring target {target_id} does not exist") from None
        if isinstance(cause, ApplicationError):
            raise Unavailable(f"the catalogue could not be priced: {cause.message}") from None
        raise


def check_window(start: dt.date, end: dt.date) -> None:
    if end < start:
        raise InvalidInput("the period ends before it starts")
    if (end - start).days > 400:
        raise InvalidInput("the period may span at most 13 months")
