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


class ObservationBatch(CamelStruct):
    observations: list[NewObservation]


class ObservationBatchResult(CamelStruct):
    received: int
    new: int
    revised: int
    unchanged: int
    settlements_notified: int  # settlement workflows told that data over their period changed


# --- settlements ------------------------------------------------------------------------------


class SettlementView(CamelStruct):
    coverage_id: uuid.UUID
    monitoring_target_id: str
    period_start: dt.date
    period_end: dt.date
    state: str  # WAITING | SETTLED | FLAGGED
    revision: int
    index_value: Decimal | None
    detail: str
    policies: int
    paid: Money
    workflow_id: str
    updated_at: dt.datetime


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
    index_path: list[dict]  # {day, value, revision, counted}
    arithmetic: dict
    text: str  # the arithmetic in words


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
