"""Starting a coverage's pricing run (the API's POST and `parametric reprice`), and a
second actuary's publication of a candidate rerun."""

from __future__ import annotations

import asyncio

import msgspec

from litestar.exceptions import PermissionDeniedException
from temporalio.client import Client, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api.problems import Conflict, NotFound, Unavailable
from models.db import pricing as pricing_db
from models.db.staff import staff_by_actor, staff_by_id
from models.db.records import CoverageRow, PricingRunRow
from models.domain.actors import STAFF_PREFIX, shown_actor
from models.domain.statuses import PricingRunStatus
from models.settings import Settings
from models.temporal.ids import coverage_pricing_workflow_id
from models.temporal.pricing import (
    COVERAGE_DOCUMENTS_WORKFLOW,
    PUBLISH_UPDATE,
    SAME_ACTUARY,
    PriceCoverageInput,
    PricingRunResult,
    PublishCandidate,
    coverage_seed,
    published_documents_workflow_id,
    rerun_start,
)
from models.temporal.queues import task_queue
from models.temporal.staff import SAME_PERSON, UNKNOWN_ACTOR
from models.wire.internal import NewPricingRun

# How long the API waits for the pricing workflow to publish (a local activity: well under a
# second when the worker is up); then 503, and the publication completes in the background.
PUBLISH_DEADLINE_SECONDS = 20.0
RETRY_AFTER = {"Retry-After": "2"}


async def start_pricing_run(
    temporal: Client, settings: Settings, row: CoverageRow, request: NewPricingRun, requested_by: str,
    requested_by_id: str = "",
) -> PriceCoverageInput:
    """Allocate the next version and start its CoveragePricingWorkflow (shared with the CLI).
    The run is a candidate: it becomes the price only when a second actuary publishes it.
    `requested_by`: the actor (Principal.actor, "staff:arun"); `requested_by_id`: their stable
    staff id (the workflow's four eyes compare it)."""
    coverage_id = row.id
    simulations = request.simulations or settings.simulations
    seed = coverage_seed(coverage_id) if request.seed is None else request.seed
    elr = request.expected_loss_ratio or settings.expected_loss_ratio
    run = PriceCoverageInput(
        coverage_id=coverage_id,
        version=0,  # the allocated one, below
        simulations=simulations,
        seed=seed,
        expected_loss_ratio=elr,
        requested_by=requested_by,
        expected_loss_ratio_override=request.expected_loss_ratio is not None,
        candidate=True,
        model_version=request.model_version,
        requested_by_id=requested_by_id,
    )
    # The row keeps the workflow's input: if this process dies before the start below, the
    # start sweep starts it (activities/start_sweep.py).
    version = await pricing_db.allocate_pricing_run(
        coverage_id, simulations, seed, elr, requested_by, row.currency,
        workflow_input=lambda v: msgspec.to_builtins(msgspec.structs.replace(run, version=v)),
    )
    run = msgspec.structs.replace(run, version=version)
    try:
        await temporal.start_workflow(
            **rerun_start(run, row.monitoring_target_id, row.label, task_queue(settings.task_queue, "pricing"))
        )
    except WorkflowAlreadyStartedError:
        pass  # the start sweep started it already (this start came later than its grace)
    return run


def refusal(coverage: CoverageRow, run: PricingRunRow, actor: str) -> Exception | None:
    """Why `actor` may not publish `run` now, from the stored state (the workflow checks the
    same again): the one who ran it (403); anything but a candidate newer than the price (409)."""
    v = f"pricing run v{run.version}"
    if run.requested_by == actor:
        return PermissionDeniedException(
            detail=f"{shown_actor(actor)} ran {v}: another actuary must publish it (four eyes)"
        )
    if run.status == PricingRunStatus.COMPLETED:
        return Conflict(f"{v} is already published")
    if run.status in (PricingRunStatus.QUEUED, PricingRunStatus.RUNNING):
        return Conflict(f"{v} is still {run.status.lower()}: not a candidate yet; publish it once it is CANDIDATE")
    if run.status == PricingRunStatus.FAILED:
        return Conflict(f"{v} failed: there is nothing to publish")
    if run.status == PricingRunStatus.LAPSED:
        return Conflict(f"{v} lapsed unpublished: start a new run")
    if run.version < coverage.pricing_version:
        return Conflict(
            f"{v} is older than the coverage's current price v{coverage.pricing_version}: a price never goes back; "
            "start a new run"
        )
    return None


async def publish_candidate(
    temporal: Client, coverage: CoverageRow, run: PricingRunRow, actor: str, actor_id: str = ""
) -> PricingRunRow:
    """A second actuary publishes the candidate `run` through its waiting workflow (update
    `publish`, which checks the publisher against the staff table first); answers the run as
    stored afterwards. `actor_id`: the publisher's stable staff id; four eyes compare ids."""
    problem = refusal(coverage, run, actor) or await same_person_refusal(run, actor_id)
    if problem is not None:
        raise problem
    handle = temporal.get_workflow_handle(coverage_pricing_workflow_id(coverage.id, run.version))
    try:
        await asyncio.wait_for(
            handle.execute_update(
                PUBLISH_UPDATE, PublishCandidate(published_by=actor, published_by_id=actor_id), result_type=PricingRunResult
            ),
            PUBLISH_DEADLINE_SECONDS,
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type in (SAME_ACTUARY, SAME_PERSON, UNKNOWN_ACTOR):
            raise PermissionDeniedException(detail=cause.message) from None
        if isinstance(cause, ApplicationError):
            raise Conflict(cause.message) from None
        raise
    except (asyncio.TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError):
        raise Unavailable(
            "the publication is taking longer than expected; read the run again shortly", headers=RETRY_AFTER
        ) from None
    except RPCError as err:
        if err.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.FAILED_PRECONDITION):
            raise Conflict(f"pricing run v{run.version} is no longer waiting for publication") from None
        if err.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
            raise Unavailable("the workflow engine (Temporal) is not reachable; try again shortly", headers=RETRY_AFTER) from None
        raise
    published = await pricing_db.pricing_run(coverage.id, run.version)
    if published is None:  # (the run row is never deleted)
        raise NotFound(f"coverage {coverage.id} has no pricing run {run.version}")
    return published


async def same_person_refusal(run: PricingRunRow, actor_id: str) -> Exception | None:
    """403 when the publisher (stable staff id `actor_id`) is the person who ran `run`: one id,
    or a name or e-mail alike (a twin made before identities were unique). The workflow's
    staff check decides again; this answers without waiting for it."""
    requester, publisher = await staff_by_actor(run.requested_by), await staff_by_id(actor_id)
    if requester is None or publisher is None or not publisher.same_person(requester):
        return None
    return PermissionDeniedException(
        detail=f"{shown_actor(run.requested_by)} ran pricing run v{run.version}, and you are that staff member "
        "(four eyes compare staff ids): another actuary must publish it"
    )


def was_held(run: PricingRunRow) -> bool:
    """The catalogue's own run held for an actuary: HELD, or published from HELD (its burn
    records the hold; a retry of its publication then renders its documents again)."""
    if run.status == PricingRunStatus.HELD:
        return True
    catalogue_run = not run.requested_by.startswith(STAFF_PREFIX)  # an actuary's rerun is a candidate
    return run.status == PricingRunStatus.COMPLETED and catalogue_run and bool((run.burn or {}).get("held"))


async def publish_held(
    temporal: Client, settings: Settings, coverage: CoverageRow, run: PricingRunRow, actor: str
) -> PricingRunRow:
    """An actuary publishes the catalogue's held run: no human ran it, so one actuary suffices
    (docs/catalogue.md, "Held for an actuary"). The run is COMPLETED by `actor` and becomes
    the coverage's price (ACTIVE: offered) unless a newer version is; its documents are
    rendered again as published. The database decides (no workflow waits for a held run: the
    catalogue's closed long ago); a retry by the same actuary answers the same run and starts
    the documents again if Temporal was unreachable the first time."""
    if run.status == PricingRunStatus.COMPLETED and run.published_by != actor:
        raise Conflict(f"pricing run v{run.version} is already published")
    if run.version < coverage.pricing_version:
        raise Conflict(
            f"pricing run v{run.version} is older than the coverage's current price v{coverage.pricing_version}: "
            "a price never goes back; start a new run"
        )
    await pricing_db.publish_held(coverage.id, run.version, actor)
    published = await pricing_db.pricing_run(coverage.id, run.version)
    if published is None or published.status != PricingRunStatus.COMPLETED or published.published_by != actor:
        raise Conflict(f"pricing run v{run.version} is no longer held")
    try:
        await temporal.start_workflow(
            COVERAGE_DOCUMENTS_WORKFLOW,
            args=[coverage.id, run.version],
            id=published_documents_workflow_id(coverage.id, run.version),
            task_queue=task_queue(settings.task_queue, "documents"),
            static_summary=f"Documents · coverage {coverage.id} · v{run.version} · published by {shown_actor(actor)}",
        )
    except WorkflowAlreadyStartedError:
        pass
    except RPCError as err:
        if err.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
            raise Unavailable(
                f"pricing run v{run.version} is published; its documents could not be started (the workflow engine "
                "is not reachable): publish again shortly to render them",
                headers=RETRY_AFTER,
            ) from None
        raise
    return published
