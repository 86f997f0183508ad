"""Pricing of one coverage version: simulate → publish → documents (their own workflow).

Publishing before rendering lets a freshly priced coverage be quoted at once; its fact
sheet and technical report follow seconds later (docs/catalogue.md explains the choice).
Workflow id `coverage-pricing:<coverage id>:<version>`; search attribute CoverageId.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.pricing_runs import (
        fail_pricing_run,
        publish_pricing_run,
        simulate_coverage,
        start_pricing_run,
    )
    from models.temporal.ids import coverage_documents_workflow_id
    from models.temporal.pricing import (
        COVERAGE_PRICING_WORKFLOW,
        STAGE_QUERY,
        PriceCoverageInput,
        PricingRunResult,
        PublishPricingInput,
    )
    from models.temporal.queues import task_queue
    from workflows.documents import CoverageDocumentsWorkflow

DB_TIMEOUT = timedelta(seconds=30)
SIMULATION_TIMEOUT = timedelta(minutes=30)
SIMULATION_HEARTBEAT = timedelta(seconds=20)
RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=500), maximum_interval=timedelta(seconds=30))
SIMULATION_RETRY = RetryPolicy(maximum_attempts=3, non_retryable_error_types=["ValueError"])
# Monte Carlo runs on the pricing task queue's process pool (runs started before this patch
# simulate on the workflow's own queue).
PATCH_PRICING_QUEUE = "pricing-on-own-queue"


# The database steps are local activities (they run in the worker that runs the workflow, no
# task queue round trip); runs started before this patch call them as activities.
PATCH_LOCAL_DB = "pricing-db-local-activities"


async def db_step(activity, *args, patch: str = PATCH_LOCAL_DB):
    """A short database step of the catalogue or a pricing run."""
    if workflow.patched(patch):
        return await workflow.execute_local_activity(
            activity, args=list(args), start_to_close_timeout=DB_TIMEOUT, retry_policy=RETRY
        )
    return await workflow.execute_activity(activity, args=list(args), start_to_close_timeout=DB_TIMEOUT, retry_policy=RETRY)


def pricing_queue() -> str | None:
    """The pricing task queue for CPU-bound activities; None (the workflow's own queue) in
    runs recorded before PATCH_PRICING_QUEUE."""
    if workflow.patched(PATCH_PRICING_QUEUE):
        return task_queue(workflow.info().task_queue, "pricing")
    return None


# The documents workflow runs on the documents task queue (runs started before this patch
# start it on their own queue).
PATCH_DOCUMENTS_QUEUE = "documents-workflow-on-documents-queue"


def documents_workflow_queue() -> str | None:
    if workflow.patched(PATCH_DOCUMENTS_QUEUE):
        return task_queue(workflow.info().task_queue, "documents")
    return None


async def start_documents(coverage_id, version: int) -> None:
    """Start the coverage documents workflow of a pricing version without waiting for it.
    One already running under that id (the same version rendered for an earlier request, or
    a catalogue rebuilt over the same coverage ids) is left to finish."""
    try:
        await workflow.start_child_workflow(
            CoverageDocumentsWorkflow.run,
            args=[coverage_id, version],
            id=coverage_documents_workflow_id(coverage_id, version),
            task_queue=documents_workflow_queue(),
            parent_close_policy=ParentClosePolicy.ABANDON,
            static_summary=f"Documents · coverage {coverage_id} · v{version}",
        )
    except WorkflowAlreadyStartedError:
        workflow.logger.info("documents of coverage %s v%s already being rendered", coverage_id, version)


@workflow.defn(name=COVERAGE_PRICING_WORKFLOW)
class CoveragePricingWorkflow:
    def __init__(self) -> None:
        self._stage = "queued"

    @workflow.query(name=STAGE_QUERY)
    def stage(self) -> str:
        """queued | loading | simulating | publishing | completed | failed"""
        return self._stage

    @workflow.run
    async def run(self, run: PriceCoverageInput) -> PricingRunResult:
        try:
            self._stage = "loading"
            inputs = await db_step(start_pricing_run, run)
            self._stage = "simulating"
            outcome = await workflow.execute_activity(
                simulate_coverage,
                inputs,
                task_queue=pricing_queue(),
                start_to_close_timeout=SIMULATION_TIMEOUT,
                heartbeat_timeout=SIMULATION_HEARTBEAT,
                retry_policy=SIMULATION_RETRY,
            )
        except ActivityError as err:
            self._stage = "failed"
            await db_step(fail_pricing_run, run, str(err.cause or err))
            raise ApplicationError(f"pricing failed: {err.cause or err}", non_retryable=True) from err
        self._stage = "publishing"
        result = await db_step(publish_pricing_run, PublishPricingInput(run=run, outcome=outcome))
        await start_documents(run.coverage_id, run.version)
        self._stage = "completed"
        return result
