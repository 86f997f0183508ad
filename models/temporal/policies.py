"""Workflow and activity inputs of policies (fields are only ever added, with defaults)."""

from __future__ import annotations

import datetime as dt
import uuid

import msgspec

# The conversion's command: the store takes it too, so it is defined in the domain.
from models.domain.writes import ConvertToPolicyInput as ConvertToPolicyInput  # noqa: F401 - re-exported

# The policy workflow's contract (see models/temporal/quotes.py).
POLICY_WORKFLOW = "PolicyWorkflow"
CONVERT_UPDATE = "convert"  # update-with-start of PATCH /quotes/{id}: returns the policy id
ACTIVATE_UPDATE = "activate"
CANCEL_UPDATE = "cancel"
STATUS_QUERY = "status"
POLICY_SCHEDULE_WORKFLOW = "PolicyScheduleWorkflow"



class PolicyTransitionInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
    to_status: str
    from_statuses: list[str]
    at: dt.datetime


class PolicyWorkflowInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
    monitoring_target_id: str
    external_ref: str | None
    # Risk periods of the covers, in order: monitoring wakes at each start and end.
    periods: list[tuple[dt.date, dt.date]]
    # Set when the workflow converts its quote itself (`convert`, update-with-start); None in
    # workflows started as the quote workflow's child, whose draft was already written.
    quote_id: uuid.UUID | None = None
    # When the draft lapses (models.domain.lifecycle.quote_deadline); None: the first risk start.
    lapse_at: dt.datetime | None = None


class PolicyStatusInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID
    to_status: str
    from_statuses: list[str]
    at: dt.datetime


class PolicyScheduleInput(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID


class PolicyPeriodStatus(msgspec.Struct, frozen=True):
    """One monitored period of a policy as its `status` query shows it."""

    start: str  # ISO date, the period's first day
    end: str  # ISO date, its last day
    monitoring: str  # PENDING | MONITORING | ... (the workflow's word for the period)


class PolicyWorkflowStatus(msgspec.Struct, frozen=True, rename="camel"):
    """The policy workflow's `status` query (JSON as before: camelCase keys, ids and times as
    text): {"policyId", "quoteId" (null: none), "status", "lapseAt" (ISO datetime), "periods",
    "detail"}. Decode it with `handle.query(STATUS_QUERY, result_type=PolicyWorkflowStatus)`."""

    policy_id: str
    quote_id: str | None
    status: str  # a PolicyStatus, or the workflow's transient ACTIVATING / CANCELING ...
    lapse_at: str
    periods: list[PolicyPeriodStatus]
    detail: str = ""
