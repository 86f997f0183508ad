"""The start sweep (`start-sweep` Schedule, every minute): the workflows whose start was
lost after their row committed are started (docs/runbook.md, "Lost workflow starts").

Two writers commit a row, then start its workflow: a crash between the two left the row
without its workflow for ever.
- A pricing rerun (`POST /internal/coverages/{id}/pricing-runs`, `parametric reprice`)
  commits its QUEUED `pricing_run`, with the workflow's input (`workflow_input`), then starts
  its `CoveragePricingWorkflow`.
- A held observation revision commits its `observation_revision` HELD, then starts its
  `ObservationRevisionWorkflow`.
Data only: the starting is the activity's (activities/start_sweep.py)."""

from __future__ import annotations

import msgspec

START_SWEEP_WORKFLOW = "StartSweepWorkflow"
START_SWEEP_SCHEDULE_ID = "start-sweep"


class StartSweepInput(msgspec.Struct, frozen=True):
    base_queue: str  # the service's base task queue: pricing on <base>-pricing, revisions on <base>-lifecycle
    # Rows younger than this are left to the process that wrote them: it starts their
    # workflow right after its commit.
    grace_seconds: int = 60
    limit: int = 200  # rows of each kind per sweep


class StartSweepOutcome(msgspec.Struct, frozen=True):
    pricing_runs: int = 0  # orphaned QUEUED pricing runs whose workflow this sweep started
    held_revisions: int = 0  # held revisions whose workflow was not running, started again
