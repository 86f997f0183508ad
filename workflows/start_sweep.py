"""The start sweep (`start-sweep` Schedule, every minute, whatever providers are configured):
the workflows whose start a crash lost after their row committed are started
(models/temporal/sweeps.py; docs/runbook.md, "Lost workflow starts"). One activity per kind
of row, each retried until the database and Temporal answer; the next run of the Schedule is
skipped while this one runs."""

from __future__ import annotations

import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from models.temporal.sweeps import START_SWEEP_WORKFLOW, StartSweepInput, StartSweepOutcome

# Its activities (activities/start_sweep.py) by name: this module imports no database code.
START_ORPHANED_PRICING_RUNS = "start_orphaned_pricing_runs"
RESTART_HELD_REVISIONS = "restart_held_revisions"

SWEEP_TIMEOUT = dt.timedelta(minutes=5)
SWEEP_RETRY = RetryPolicy(maximum_interval=dt.timedelta(minutes=1))


@workflow.defn(name=START_SWEEP_WORKFLOW)
class StartSweepWorkflow:
    @workflow.run
    async def run(self, request: StartSweepInput) -> StartSweepOutcome:
        options = dict(start_to_close_timeout=SWEEP_TIMEOUT, heartbeat_timeout=dt.timedelta(minutes=1),
                       retry_policy=SWEEP_RETRY)
        pricing_runs = await workflow.execute_activity(
            START_ORPHANED_PRICING_RUNS, request, result_type=int,
            summary="Start the pricing reruns whose start was lost", **options,
        )
        held_revisions = await workflow.execute_activity(
            RESTART_HELD_REVISIONS, request, result_type=int,
            summary="Start the held revisions whose workflow is not running", **options,
        )
        return StartSweepOutcome(pricing_runs=pricing_runs, held_revisions=held_revisions)
