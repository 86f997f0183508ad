"""Workflow and activity inputs of settlement (fields are only ever added, with defaults)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import msgspec
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy

from models.temporal.ids import settlement_workflow_id

SETTLEMENT_WORKFLOW = "SettlementWorkflow"
DATA_CHANGED_SIGNAL = "data-changed"  # new or revised observations over the period arrived
STATUS_QUERY = "status"


class SettlementInput(msgspec.Struct, frozen=True):
    """A monitoring target's covers over one risk period, both days inclusive."""

    target_id: str
    start: dt.date
    end: dt.date
    # Set when a run continues as new (its history grew long): what it had found so far.
    progress: SettlementProgress | None = None
    # When the first check is due if sooner than the final-only due time (issue 34: a period
    # with covers on a source ladder is first checked the day after its end + the provisional
    # product's latency; `start_settlements` sets it); None: final-only (due_at).
    first_due: dt.datetime | None = None


class SettlePeriodInput(msgspec.Struct, frozen=True):
    target_id: str
    start: dt.date
    end: dt.date
    at: dt.datetime  # the workflow's now: the events' validated day
    flag_missing: bool = False  # past the wait window: flag what still lacks data


class CoverageSettled(msgspec.Struct, frozen=True):
    coverage_id: uuid.UUID
    index_code: str
    state: str  # WAITING | INITIAL | SETTLED | FLAGGED | DISPUTED
    revision: int = 0
    index_value: Decimal | None = None
    detail: str = ""
    events: int = 0  # events written by this run (0 on a replayed run)
    paid_minor: int = 0  # net paid by this run's events


class SettlePeriodOutcome(msgspec.Struct, frozen=True):
    coverages: list[CoverageSettled]
    # When the period's revision window closes, as the database keeps it (set by the run that
    # settled its last coverage: that run's `at` + REVISION_WINDOW); None: not all settled yet.
    revisions_until: dt.datetime | None = None
    # When a cover on a source ladder is next due a check (the next day until its
    # calculation deadline, weekly after, never past its true-up deadline); None: no such
    # cover waits (final-only covers keep the workflow's own cadence).
    next_check: dt.datetime | None = None

    @property
    def state(self) -> str:
        """The period's state: the first of DISPUTED, FLAGGED, WAITING, INITIAL present, else
        SETTLED (docs/settlement.md, "States")."""
        states = {c.state for c in self.coverages}
        for state in ("DISPUTED", "FLAGGED", "WAITING", "INITIAL"):
            if state in states:
                return state
        return "SETTLED"


class SettlementProgress(msgspec.Struct, frozen=True):
    """What a settlement carries into its next run when it continues as new (a run's history
    is kept short: workflows/settlement.py, HISTORY_LIMIT)."""

    state: str  # WAITING | FLAGGED | SETTLED, as the SettlementState search attribute shows
    runs: int  # settle_period runs so far, over every run
    coverages: list[CoverageSettled]  # each coverage as the last settle_period left it
    # Settled: when the revision window ends; None: still waiting for complete, final data.
    revisions_until: dt.datetime | None = None
    changed: bool = False  # a data-changed signal not acted on yet: settle again at once
    continued: int = 0  # runs before this one
    next_check: dt.datetime | None = None  # `SettlePeriodOutcome.next_check` of the last run


class PolicySettledInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID


class StartSettlementsInput(msgspec.Struct, frozen=True):
    target_id: str
    periods: list[tuple[dt.date, dt.date]]
    task_queue: str  # the lifecycle queue the settlement workflows run on


def data_changed_start(target_id: str, start: dt.date, end: dt.date, task_queue: str) -> dict:
    """`Client.start_workflow` keyword arguments that tell the settlement of (target, start,
    end) that data over its period changed: signal-with-start. A settlement whose revision
    window the database says has closed is never told (models/db/observations.py
    `tell_notices`: Temporal's retention may have deleted its closed run, and this start would
    then succeed). A run that completed is not started again either (the start raises
    `WorkflowAlreadyStartedError`: the notice is closed); one that failed or was terminated is. Data only: the sending is the
    caller's (the API's shortcut in api/, an activity's in activities/)."""
    return dict(
        workflow=SETTLEMENT_WORKFLOW,
        arg=SettlementInput(target_id=target_id, start=start, end=end),
        id=settlement_workflow_id(target_id, start, end),
        task_queue=task_queue,
        start_signal=DATA_CHANGED_SIGNAL,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    )


CLAIM_REPORT_WORKFLOW = "ClaimReportWorkflow"


class ClaimReportRequest(msgspec.Struct, frozen=True):
    tenant_id: str
    event_id: uuid.UUID


class SettlementCoverageStatus(msgspec.Struct, frozen=True, rename="camel"):
    """One coverage of a settlement's `status` query."""

    coverage_id: str
    index_code: str
    state: str  # WAITING | INITIAL | SETTLED | FLAGGED | DISPUTED
    revision: int
    index_value: str | None  # the index as exact decimal text; null: not yet known
    detail: str = ""


class SettlementWorkflowStatus(msgspec.Struct, frozen=True, rename="camel"):
    """The settlement workflow's `status` query (JSON as before: camelCase keys, dates as ISO
    text): {"targetId", "periodStart", "periodEnd", "dueAt", "state", "settlementRuns",
    "continuedRuns", "coverages"}. Decode it with
    `handle.query(STATUS_QUERY, result_type=SettlementWorkflowStatus)`."""

    target_id: str
    period_start: str  # ISO date
    period_end: str  # ISO date
    due_at: str  # ISO datetime
    state: str  # SCHEDULED | WAITING | SETTLED | FLAGGED ...
    settlement_runs: int
    continued_runs: int
    coverages: list[SettlementCoverageStatus]
