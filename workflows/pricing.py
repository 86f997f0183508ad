"""Pricing of one coverage version: simulate → publish → documents (their own workflow).

Publishing before rendering lets a freshly priced coverage be quoted at once; its fact
sheet and technical report follow seconds later (docs/catalogue.md explains the choice).
Workflow id `coverage-pricing:<coverage id>:<version>`; search attribute CoverageId.

An actuary's rerun (`PriceCoverageInput.candidate`) is not published when simulated: it is
stored as a CANDIDATE (documents rendered for review) and the workflow waits, stage
`candidate`, for a **second** actuary's `publish` update (the validator refuses the one who
ran it and anything but a waiting candidate); unpublished after its lifetime, it lapses.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.pricing_runs import (
        fail_pricing_run,
        lapse_pricing_candidate,
        publish_pricing_candidate,
        publish_pricing_run,
        simulate_coverage,
        start_pricing_run,
        store_pricing_candidate,
    )
    from models.domain.actors import shown_actor
    from models.domain.statuses import PricingRunStatus
    from models.temporal.ids import coverage_documents_workflow_id
    from models.temporal.pricing import (
        COVERAGE_PRICING_WORKFLOW,
        NOT_A_CANDIDATE,
        PUBLISH_UPDATE,
        SAME_ACTUARY,
        STAGE_QUERY,
        PriceCoverageInput,
        PricingRunResult,
        PublishCandidate,
        PublishCandidateInput,
        PublishPricingInput,
        published_documents_workflow_id,
    )
    from models.temporal.queues import task_queue
    from models.temporal.staff import StaffActorCheck

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.documents import CoverageDocumentsWorkflow
from workflows.staff import check_actor

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


# An actuary's rerun is a candidate until a second actuary publishes it (issue 24). The
# path is taken only by runs started with `candidate=True` (new code); the marker names it.
PATCH_CANDIDATE = "pricing-rerun-candidate"

# The `publish` update takes effect only after an activity has checked the publisher against
# the staff table (issue 33: a plain Temporal client sent published_by="staff:nobody-forged"
# and the run was published). Decided in the update, so a run never published writes no marker.
PATCH_ACTOR_CHECKED = "pricing-publisher-checked"


async def start_documents(coverage_id, version: int, workflow_id: str | None = None) -> None:
    """Start the coverage documents workflow of a pricing version without waiting for it.
    One already running under that id (the same version rendered for an earlier request, or
    a catalogue rebuilt over the same coverage ids) is left to finish. `workflow_id`: the
    published rerun's documents (its candidate's were rendered under the plain id)."""
    try:
        await workflow.start_child_workflow(
            CoverageDocumentsWorkflow.run,
            args=[coverage_id, version],
            id=workflow_id or coverage_documents_workflow_id(coverage_id, version),
            task_queue=documents_workflow_queue(),
            parent_close_policy=ParentClosePolicy.ABANDON,
            static_summary=f"Documents · coverage {coverage_id} · v{version}",
        )
    except WorkflowAlreadyStartedError:
        workflow.logger.info("documents of coverage %s v%s already being rendered", coverage_id, version)


@workflow.defn(name=COVERAGE_PRICING_WORKFLOW)
class CoveragePricingWorkflow:
    @workflow.init
    def __init__(self, run: PriceCoverageInput) -> None:
        self._run = run
        self._stage = "queued"
        self._publisher: str | None = None  # Principal.actor of the second actuary
        self._published: PricingRunResult | None = None

    @workflow.query(name=STAGE_QUERY)
    def stage(self) -> str:
        """queued | loading | simulating | publishing | completed | failed; a rerun:
        … simulating | storing | candidate | publishing | completed, or lapsed"""
        return self._stage

    @workflow.update(name=PUBLISH_UPDATE)
    async def publish(self, request: PublishCandidate) -> PricingRunResult:
        """A second actuary publishes the candidate: answers once it is the price. Since
        PATCH_ACTOR_CHECKED the publisher is first checked against the staff table (an
        active actuary, who they say, not the one who ran it: by stable id); a refusal fails
        the update and leaves the run a candidate."""
        if workflow.patched(PATCH_ACTOR_CHECKED):
            await check_actor(StaffActorCheck(
                actor=request.published_by, actor_id=request.published_by_id, role="actuary",
                other_actor=self._run.requested_by, other_actor_id=self._run.requested_by_id,
                action=f"publish pricing run v{self._run.version}",
            ))
        if self._publisher is not None:  # two publications accepted together: the first wins
            raise ApplicationError(f"pricing run v{self._run.version} is being published", type=NOT_A_CANDIDATE)
        self._publisher = request.published_by
        await workflow.wait_condition(lambda: self._published is not None)
        return self._published

    @publish.validator
    def check_publish(self, request: PublishCandidate) -> None:
        run = self._run
        if not run.candidate:
            raise ApplicationError(f"pricing run v{run.version} was published when priced", type=NOT_A_CANDIDATE)
        same_id = bool(run.requested_by_id) and request.published_by_id == run.requested_by_id
        if request.published_by == run.requested_by or same_id:
            raise ApplicationError(
                f"{shown_actor(run.requested_by)} ran pricing run v{run.version}: another actuary must publish it",
                type=SAME_ACTUARY,
            )
        if self._stage != "candidate" or self._publisher is not None:
            state = "being published" if self._publisher is not None else self._stage
            raise ApplicationError(f"pricing run v{run.version} is {state}, not a candidate", type=NOT_A_CANDIDATE)

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
        if run.candidate and workflow.patched(PATCH_CANDIDATE):
            return await self._candidate(run, outcome)
        self._stage = "publishing"
        result = await db_step(publish_pricing_run, PublishPricingInput(run=run, outcome=outcome))
        await start_documents(run.coverage_id, run.version)
        self._stage = "completed"
        return result

    async def _candidate(self, run: PriceCoverageInput, outcome) -> PricingRunResult:
        """Store the rerun as a candidate, render its documents for review, and wait for a
        second actuary's `publish` (or lapse)."""
        self._stage = "storing"
        candidate = await db_step(store_pricing_candidate, PublishPricingInput(run=run, outcome=outcome))
        await start_documents(run.coverage_id, run.version)
        self._stage = "candidate"
        try:
            await workflow.wait_condition(
                lambda: self._publisher is not None, timeout=timedelta(seconds=run.candidate_lifetime_seconds)
            )
        except asyncio.TimeoutError:
            pass
        if self._publisher is None:
            self._stage = "lapsed"
            await db_step(lapse_pricing_candidate, run)
            return PricingRunResult(
                coverage_id=run.coverage_id,
                version=run.version,
                status=PricingRunStatus.LAPSED,
                risk_premium=candidate.risk_premium,
                gross_premium_indication_pct=candidate.gross_premium_indication_pct,
            )
        self._stage = "publishing"
        result = await db_step(publish_pricing_candidate, PublishCandidateInput(run=run, published_by=self._publisher))
        await start_documents(
            run.coverage_id, run.version, workflow_id=published_documents_workflow_id(run.coverage_id, run.version)
        )
        self._stage = "completed"
        self._published = result
        await workflow.wait_condition(workflow.all_handlers_finished)
        return result
