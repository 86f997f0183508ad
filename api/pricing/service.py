"""Starting a coverage's pricing run (the API's POST and `parametric reprice`)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from models.db import pricing as pricing_db
from models.db.records import CoverageRow
from models.settings import Settings
from models.temporal.ids import coverage_pricing_workflow_id
from models.temporal.pricing import (
    COVERAGE_PRICING_WORKFLOW,
    PriceCoverageInput,
    coverage_seed,
)
from models.temporal.queues import task_queue
from models.temporal.search_attributes import COVERAGE_ID, MONITORING_TARGET_ID
from models.wire.internal import NewPricingRun


async def start_pricing_run(
    temporal: Client, settings: Settings, row: CoverageRow, request: NewPricingRun, requested_by: str
) -> PriceCoverageInput:
    """Allocate the next version and start its CoveragePricingWorkflow (shared with the CLI)."""
    coverage_id = row.id
    simulations = request.simulations or settings.simulations
    seed = coverage_seed(coverage_id) if request.seed is None else request.seed
    elr = request.expected_loss_ratio or settings.expected_loss_ratio
    version = await pricing_db.allocate_pricing_run(coverage_id, simulations, seed, elr, requested_by, row.currency)
    run = PriceCoverageInput(
        coverage_id=coverage_id,
        version=version,
        simulations=simulations,
        seed=seed,
        expected_loss_ratio=elr,
        requested_by=requested_by,
        expected_loss_ratio_override=request.expected_loss_ratio is not None,
    )
    await temporal.start_workflow(
        COVERAGE_PRICING_WORKFLOW,
        run,
        id=coverage_pricing_workflow_id(coverage_id, version),
        task_queue=task_queue(settings.task_queue, "pricing"),
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(COVERAGE_ID, str(coverage_id)),
                SearchAttributePair(MONITORING_TARGET_ID, row.monitoring_target_id),
            ]
        ),
        static_summary=f"Pricing · {row.label} · v{version} · by {requested_by}",
    )
    return run
