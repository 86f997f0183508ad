"""Workflow and activity inputs of observation ingestion and of held revisions (fields only
added, with defaults)."""

from __future__ import annotations

import datetime as dt
import uuid

import msgspec
from temporalio.common import WorkflowIDConflictPolicy

OBSERVATION_INGEST_WORKFLOW = "ObservationIngestWorkflow"
INGEST_SCHEDULE_ID = "observations-daily"


class IngestRunInput(msgspec.Struct, frozen=True):
    providers: list[str]
    lookback_days: int = 10  # late values and revisions of the last days are picked up


class IngestProviderInput(msgspec.Struct, frozen=True):
    provider: str
    today: dt.date  # the run's day (workflow time): values up to the day before
    lookback_days: int = 10
    task_queue: str = ""  # the lifecycle queue the settlement workflows run on


class IngestSummary(msgspec.Struct, frozen=True):
    provider: str
    targets: int
    rows: int
    new: int
    revised: int
    unchanged: int
    settlements_notified: int
    refused: int = 0  # rows the validation refused (the batch was not written)
    detail: str = ""
    held: int = 0  # revisions held for a data staff member's approval (four eyes)
    held_revisions: list[uuid.UUID] = []


# --- held revisions (four eyes) ---------------------------------------------------------------

OBSERVATION_REVISION_WORKFLOW = "ObservationRevisionWorkflow"
DECIDE_UPDATE = "decide"  # approve or refuse: RevisionDecision → RevisionDecided
REVISION_STATUS_QUERY = "status"  # → RevisionStatus
SYSTEM_ACTOR = "system"  # who refuses a revision held past its limit
# Update failures (ApplicationError types) the API maps to problems.
NOT_HELD = "NotHeld"  # decided already, or being decided: 409
FOUR_EYES = "FourEyes"  # the submitter approving their own revision: 403
STALE_REVISION = "StaleRevision"  # a held value was revised again since: 409


def revision_workflow_id(revision_id: uuid.UUID) -> str:
    return f"observation-revision:{revision_id}"


class HeldRevisionInput(msgspec.Struct, frozen=True):
    """A revision held for a second data principal (the rows are in the database)."""

    revision_id: uuid.UUID
    submitted_by: str
    rows: int
    settlements: int  # settled covers whose payout it would change
    reason: str = ""
    held_at: dt.datetime | None = None  # when the rows were held: the hold limit runs from then


class RevisionDecision(msgspec.Struct, frozen=True):
    state: str  # APPROVED | REFUSED
    decided_by: str  # the deciding principal's actor ("staff:<name>")
    reason: str = ""
    decided_by_id: str = ""  # their stable staff id (issue 33; "": looked up by name)


class DecideRevisionInput(msgspec.Struct, frozen=True):
    revision_id: uuid.UUID
    state: str
    decided_by: str
    reason: str = ""
    task_queue: str = ""  # the lifecycle queue the settlement workflows run on


class RevisionDecided(msgspec.Struct, frozen=True):
    revision_id: uuid.UUID
    state: str
    decided_by: str
    decided_at: dt.datetime
    stored: int = 0  # rows stored (approved)
    settlements_notified: int = 0


class RevisionStatus(msgspec.Struct, frozen=True):
    revision_id: uuid.UUID
    state: str  # HELD | DECIDING | APPROVED | REFUSED
    submitted_by: str
    rows: int
    settlements: int
    expires_at: dt.datetime  # refused as expired if still held then
    decided_by: str = ""
    decision_reason: str = ""


def held_input(row: dict) -> HeldRevisionInput:
    """The workflow input of a held revision (its `observation_revision` row)."""
    return HeldRevisionInput(
        revision_id=row["id"], submitted_by=row["submitted_by"], rows=row["row_count"],
        settlements=len(row["settlements"]), reason=row["reason"], held_at=row["created_at"],
    )


def revision_hold_start(held: HeldRevisionInput, task_queue: str) -> dict:
    """`Client.start_workflow` keyword arguments that start the held revision's workflow (or
    find it running: ops see it in Temporal, and its decision runs there). The revisions
    waiting for a decision are the running ones: `WorkflowType =
    "ObservationRevisionWorkflow" AND ExecutionStatus = "Running"` (no search attribute of
    its own: the dev server's ten Keyword attributes are taken). Data only: the starting is
    the caller's (api/ or activities/)."""
    return dict(
        workflow=OBSERVATION_REVISION_WORKFLOW,
        arg=held,
        id=revision_workflow_id(held.revision_id),
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        static_summary=(
            f"Held observation revision · {held.rows} row(s) by {held.submitted_by} · "
            f"changes {held.settlements} settled cover(s) · needs a second data staff member"
        ),
        static_details=(
            f"Reason: {held.reason or '(none given)'}\n\n"
            f"Read it: GET /internal/observation-revisions/{held.revision_id}; decide: POST "
            f"/internal/observation-revisions/{held.revision_id}/approve (a data staff member other than "
            f"{held.submitted_by}) or /refuse. Undecided, it is refused as expired."
        ),
    )


# --- the settlement-notices sweep (docs/observations.md, "Settlements are told") -------------

SETTLEMENT_NOTICE_SWEEP_WORKFLOW = "SettlementNoticeSweepWorkflow"
NOTICE_SWEEP_SCHEDULE_ID = "settlement-notices"


class NoticeSweepInput(msgspec.Struct, frozen=True):
    task_queue: str  # the lifecycle queue the settlement workflows run on
    limit: int = 500  # notices per page
    # Notices younger than this are left to their writer, who tells them right after its
    # commit (so a settlement is not told twice for one store).
    grace_seconds: int = 10


class NoticeSweepOutcome(msgspec.Struct, frozen=True):
    notices: int  # notices told
    settlements: int  # settlements told (signal-with-start)
    closed: int = 0  # settlements past their revision window, not told (their notices closed)
