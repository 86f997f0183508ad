"""Wire types of observations, settlements and parametric events (docs/settlement.md)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Annotated

import msgspec

from models.wire.common import CamelStruct, Money

# --- observations in ------------------------------------------------------------------------


class NewObservation(CamelStruct):
    monitoring_target_id: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    data_set: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    variable: Annotated[str, msgspec.Meta(min_length=1, max_length=30)]
    day: dt.date
    value: Decimal
    source: Annotated[str, msgspec.Meta(max_length=50)]  # empty: refused with the batch's other faults
    hour: int | None = None
    quality: str = "GOOD"
    provisional: bool = False
    simulated: bool = False


# Why values are submitted or revised: free text, no control characters.
Reason = Annotated[str, msgspec.Meta(max_length=1000, pattern=r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*\Z",
                                     description="text without control characters")]


class ObservationBatch(CamelStruct):
    observations: list[NewObservation]
    # Why: optional for new values, required when the batch revises a stored value.
    reason: Reason | None = None


class ObservationBatchResult(CamelStruct):
    received: int
    new: int
    revised: int  # revisions stored
    unchanged: int
    settlements_notified: int  # settlement workflows told that data over their period changed
    held: int = 0  # revisions held for a second data staff member: they would change a settled amount
    held_revision_id: uuid.UUID | None = None  # GET /internal/observation-revisions/{id}


# --- held revisions (four eyes) ---------------------------------------------------------------


class HeldObservation(CamelStruct):
    """A held row, with the stored value it revises."""

    monitoring_target_id: str
    data_set: str
    variable: str
    day: dt.date
    hour: int | None
    value: Decimal
    source: str
    quality: str
    provisional: bool
    simulated: bool
    revises: int  # the revision it revises (approving needs it to be the latest still)
    previous_value: Decimal
    previous_quality: str
    previous_provisional: bool
    quality_check: str = ""  # the quality check the held value failed ("" none; docs/observations.md)


class SettledCoverChange(CamelStruct):
    """A settled cover whose payout the revision would change, and how."""

    coverage_id: uuid.UUID
    monitoring_target_id: str
    index_code: str
    period_start: dt.date
    period_end: dt.date
    settled_index: Decimal | None
    revised_index: Decimal | None  # null: the revision leaves the index without final values
    policies: int  # policies paid on the cover
    change: str


class ObservationRevisionView(CamelStruct):
    id: uuid.UUID
    state: str  # HELD | APPROVED | REFUSED
    submitted_by: str  # staff:<name>, provider:<name> or cli:<os user>
    reason: str
    rows: int
    created_at: dt.datetime
    settlements: list[SettledCoverChange]
    decided_by: str  # "" while held; "system" for an expired hold
    decided_at: dt.datetime | None
    decision_reason: str
    workflow_id: str
    observations: list[HeldObservation] | None = None  # on GET /internal/observation-revisions/{id}


class RevisionApproval(CamelStruct):
    reason: Reason | None = None


class RevisionRefusal(CamelStruct):
    reason: Reason  # required: why the revision is not stored


# --- settlements ------------------------------------------------------------------------------


# Settlement disputes (docs/settlement.md, "Sources that disagree").


class DisputeReading(CamelStruct):
    """One source's reading of the index (in the index's unit; a daily count: days)."""

    source: str  # PRIMARY | FALLBACK (at the INITIAL settlement); FINAL | PROVISIONAL (at the true-up)
    index_value: Decimal | None


class SettlementDisputeView(CamelStruct):
    id: uuid.UUID
    coverage_id: uuid.UUID
    monitoring_target_id: str
    period_start: dt.date
    period_end: dt.date
    state: str  # OPEN | PROPOSED | DECIDED
    readings: list[DisputeReading]  # the two sources' indices; the first is the primary's (final's)
    choices: list[str]  # the sources a decision chooses between
    index_code: str
    unit: str
    direction: str  # ABOVE | BELOW
    trigger: Decimal
    tolerance: Decimal | None  # the ladder's: readings further apart than this, across the trigger, disagree
    detail: str
    proposal: str | None  # the source proposed (PROPOSED, DECIDED)
    proposed_by: str | None  # staff only (a tenant's client sees null)
    proposal_reason: str | None  # staff only
    decision: str | None  # DECIDED: the source that settles the coverage
    decided_by: str | None  # staff only
    decision_reason: str | None  # staff only
    decided_at: dt.datetime | None
    created_at: dt.datetime
    settlement_workflow_id: str  # the settlement's workflow (Temporal UI: SettlementState = DISPUTED)


class DisputeDecisionIn(CamelStruct):
    """A data staff member's choice: the first proposes (a reason is required), a second,
    different one confirms the same source."""

    source: Annotated[str, msgspec.Meta(max_length=20, description="one of the dispute's `choices`")]
    reason: Reason = ""


class SettlementView(CamelStruct):
    coverage_id: uuid.UUID
    monitoring_target_id: str
    period_start: dt.date
    period_end: dt.date
    state: str  # WAITING | INITIAL | SETTLED | FLAGGED | DISPUTED
    revision: int
    index_value: Decimal | None
    detail: str
    policies: int
    paid: Money
    workflow_id: str
    updated_at: dt.datetime
    # DISPUTED, or decided once: the coverage's latest settlement dispute (None: its sources
    # never disagreed).
    dispute: SettlementDisputeView | None = None


class SettlementSnapshotView(CamelStruct):
    """Exactly what one settlement of a coverage used, and its hash (docs/settlement.md,
    "Settlements anyone can re-run"): `snapshot` is the canonical body (values with their
    rungs, terms, error share, calibration, result); `sha256` the SHA-256 of its canonical
    bytes (JSON, keys sorted, no spaces, UTF-8)."""

    coverage_id: uuid.UUID
    revision: int  # the settlement revision N (events' settlement key `...:r<N>`)
    stage: str  # INITIAL | FINAL
    sha256: str
    snapshot: dict
    created_at: dt.datetime
    revisions: list[int]  # every snapshot revision of the coverage, oldest first (`?revision=N`)


class SignedAmount(CamelStruct):
    """Money that can be negative (an adjustment that pays back less): major units, exact."""

    amount: Decimal
    currency: str


# --- events out -------------------------------------------------------------------------------


class ParametricEventView(CamelStruct):
    id: uuid.UUID
    policy_id: uuid.UUID
    coverage_id: uuid.UUID
    line_item_id: uuid.UUID | None
    kind: str  # SETTLEMENT | ADJUSTMENT
    event_type: str
    validated_day: dt.date
    index_value: Decimal
    payout: SignedAmount
    data_set: str
    revision: int
    simulated: bool
    # INITIAL: the first payment, on provisional (or calibrated fallback) values reduced by
    # their stated error; FINAL: on final values (a final-only cover's settlement, the true-up
    # of an INITIAL one, a later revision's adjustment). docs/settlement.md, "Two payments".
    stage: str = "FINAL"


class ClaimExplanation(CamelStruct):
    """Why an event paid what it paid: the index path against the trigger, the data, and the
    payout arithmetic step by step."""

    event: ParametricEventView
    index_code: str
    index_name: str
    unit: str
    aggregation: str
    period_start: dt.date
    period_end: dt.date
    trigger: Decimal
    exit: Decimal | None
    direction: str
    index_path: list[dict]  # {day, value, revision, rung, dataSet, source, error, counted}
    arithmetic: dict
    text: str  # the arithmetic in words
    # The SHA-256 of the settlement's snapshot (GET /internal/settlements/{coverageId}/snapshot
    # ?revision=<event revision>): null for events settled before snapshots were kept.
    snapshot_sha256: str | None = None


class CoverMonitoring(CamelStruct):
    """One cover of a policy: its index so far against its trigger."""

    coverage_id: uuid.UUID
    index_code: str
    index_name: str
    unit: str
    period_start: dt.date
    period_end: dt.date
    direction: str
    trigger: Decimal
    exit: Decimal | None
    state: str  # PENDING (not begun) | MONITORING | SETTLED
    days_in_period: int
    days_elapsed: int
    days_with_data: int
    index_to_date: Decimal | None  # sum, maximum or days counted over the days with data
    trigger_reached: bool | None  # ABOVE: the index to date is at or beyond the trigger; BELOW: known at the end
    provisional: bool  # some of the values so far may still change
    simulated: bool


class PolicyMonitoring(CamelStruct):
    policy_id: uuid.UUID
    status: str
    as_of: dt.date
    covers: list[CoverMonitoring]


# --- payout holds (operations staff; docs/roles.md) ----------------------------------------------


GivenReason = Annotated[
    str, msgspec.Meta(min_length=1, max_length=1000, pattern=r"^(?=.*\S)[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*\Z",
                      description="a reason in words, not blank, without control characters")
]


class NewPayoutHold(CamelStruct):
    policy_id: uuid.UUID
    reason: GivenReason  # why the payouts wait (a sanctions check, a disputed claim ...): required


class PayoutHoldRelease(CamelStruct):
    reason: Reason | None = None


class PayoutHoldView(CamelStruct):
    """A payout hold as operations staff read it: why, by whom, what it held."""

    id: uuid.UUID
    tenant_id: uuid.UUID
    policy_id: uuid.UUID
    state: str  # HELD | RELEASED
    reason: str
    held_by: str  # the operations staff member's name
    held_at: dt.datetime
    released_by: str | None
    released_at: dt.datetime | None
    release_reason: str
    payouts_while_held: int  # payouts of the policy recorded while it was held
    amount_while_held: SignedAmount  # their sum (adjustments may be negative)
    waiting_messages: int  # its payout and adjustment messages not sent yet


class TenantPayoutHoldView(CamelStruct):
    """A payout hold as the policy's tenant reads it: that its payouts are held and since when
    (and when released), nothing else. The reason (a sanctions screening's match, a suspected
    fraud) and who placed it are the operations staff's: telling the payee could tip them off
    (issue 33)."""

    id: uuid.UUID
    policy_id: uuid.UUID
    state: str  # HELD | RELEASED
    held_at: dt.datetime
    released_at: dt.datetime | None
