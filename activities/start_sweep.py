"""The start sweep's two jobs (models/temporal/sweeps.py; docs/runbook.md, "Lost workflow
starts"): start the workflow of every row whose writer committed it and died (or lost
Temporal) before starting it. Each start is idempotent by the workflow's id."""

from __future__ import annotations

import datetime as dt

import msgspec
from temporalio import activity
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from models.clock import utcnow
from models.db import catalogue as catalogue_db
from models.db import observation_revisions as revisions_db
from models.db import pricing as pricing_db
from models.db.core import json_value
from models.temporal.observations import held_input, revision_hold_start
from models.temporal.pricing import PriceCoverageInput, rerun_start
from models.temporal.queues import task_queue
from models.temporal.sweeps import StartSweepInput


@activity.defn
async def start_orphaned_pricing_runs(request: StartSweepInput) -> int:
    """Start the CoveragePricingWorkflow of every actuary's rerun still QUEUED after the
    grace, from the input kept on its row; returns how many it started. A run whose workflow
    exists, running or closed, is left as it is: the id refuses a second start
    (REJECT_DUPLICATE), so a run is never priced twice."""
    before = utcnow() - dt.timedelta(seconds=request.grace_seconds)
    started = 0
    for row in await pricing_db.orphaned_reruns(before, request.limit):
        run = msgspec.convert(json_value(row["workflow_input"]), PriceCoverageInput, strict=False)
        coverage = await catalogue_db.coverage_row(run.coverage_id)
        if coverage is None:
            continue
        start = rerun_start(run, coverage.monitoring_target_id, coverage.label or str(coverage.id),
                            task_queue(request.base_queue, "pricing"))
        try:
            await activity.client().start_workflow(
                **start, id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
            )
        except WorkflowAlreadyStartedError:
            continue
        activity.logger.warning("pricing run v%s of coverage %s: its workflow was never started; started now",
                                run.version, run.coverage_id)
        started += 1
        activity.heartbeat(started)
    return started


@activity.defn
async def restart_held_revisions(request: StartSweepInput) -> int:
    """Start the ObservationRevisionWorkflow of every revision still HELD after the grace
    whose workflow is not running (never started, or closed without the decision being
    recorded); returns how many it started. A running one is left as it is."""
    before = utcnow() - dt.timedelta(seconds=request.grace_seconds)
    started = 0
    for row in await revisions_db.held_revisions(created_before=before, limit=request.limit):
        start = revision_hold_start(held_input(row), task_queue(request.base_queue, "lifecycle"))
        try:
            await activity.client().start_workflow(**{**start, "id_conflict_policy": WorkflowIDConflictPolicy.FAIL})
        except WorkflowAlreadyStartedError:
            continue
        activity.logger.warning("held observation revision %s: its workflow was not running; started now", row["id"])
        started += 1
        activity.heartbeat(started)
    return started
