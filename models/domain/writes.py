"""Lifecycle writes as the stores take them: what a workflow asks the database to do (a
command) and what a write reports back (`TransitionOutcome`).

They travel in Temporal payloads (models/temporal re-exports each under the name its
contract always had; fields are only ever added, with defaults: recorded histories decode
them) and the stores (models/db) take and return them, so they live here, where both may
import them and neither imports the other.
"""

from __future__ import annotations

import datetime as dt
import uuid

import msgspec

from models.domain.capacity import CapacityRefusal


class TransitionOutcome(msgspec.Struct, frozen=True):
    """What a lifecycle write found and did: `status` is the row's status afterwards,
    `applied` whether this write changed it (False: refused, or already so)."""

    status: str
    applied: bool
    policy_id: uuid.UUID | None = None  # quotes: the policy it was converted to
    detail: str = ""
    # A conversion refused because it does not fit a capacity limit (nothing was written; the
    # quote stays open): which limit, what it has left (docs/capacity.md).
    capacity: CapacityRefusal | None = None


class ConvertQuoteInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    policy_id: uuid.UUID
    line_item_ids: list[uuid.UUID]


class ConvertToPolicyInput(msgspec.Struct, frozen=True):
    """Quote CREATED → ACCEPTED and its policy draft with derived ids, in one transaction."""

    tenant_id: str
    quote_id: uuid.UUID
    policy_id: uuid.UUID
    at: dt.datetime


class QuoteWriteInput(msgspec.Struct, frozen=True):
    """Reject or expire a quote (conditional on CREATED and, for rejection, its deadline)."""

    tenant_id: str
    quote_id: uuid.UUID
    at: dt.datetime


class FastQuoteStatusInput(msgspec.Struct, frozen=True):
    """Move a fast quote's job (QUEUED, RUNNING, ERROR) if it is in one of `from_statuses`."""

    tenant_id: str
    quote_id: uuid.UUID
    to_status: str
    from_statuses: list[str]
    at: dt.datetime
    error: str | None = None


class FastQuoteCompletion(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    gross_premium_minor: int
    risk_premium_minor: int
    report: dict
    document_file_id: uuid.UUID
    at: dt.datetime
