"""Workflow and activity inputs of quotes (their payloads are in recorded histories: fields
are only ever added, with defaults; docs/workflow-versioning.md)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import msgspec

# --- quotes and policies ------------------------------------------------------------------------

# The quote workflow's contract: what the API starts and calls, by name (the API never imports
# workflow code; tests/test_temporal_contract.py checks the names against the definitions).
QUOTE_WORKFLOW = "QuoteWorkflow"
CREATED_UPDATE = "created"  # update-with-start of POST /quotes: answers once the quote is written
REJECT_UPDATE = "reject"
CONVERT_UPDATE_V0 = "convert"  # lifecycle 1 only
CONVERTED_SIGNAL = "converted"  # ops bring a converted quote's state up to date with it
STATUS_QUERY = "status"



class CoverSnapshot(msgspec.Struct, frozen=True):
    """A cover as sold: the coverage's terms and price frozen at quote time."""

    coverage_id: uuid.UUID
    index_code: str
    index_definition_id: uuid.UUID
    start: dt.date
    end: dt.date
    direction: str
    trigger: Decimal
    exit: Decimal | None
    currency: str
    limit_minor: int  # one unit of cover
    min_payout_minor: int
    payout_per_unit_minor: int  # per index unit, one unit of cover
    gross_premium_pct: Decimal  # fraction of the sum insured
    risk_premium_pct: Decimal
    pricing_version: int


class LineItemDraft(msgspec.Struct, frozen=True):
    id: uuid.UUID
    position: int
    start: dt.date
    end: dt.date
    currency: str
    quantity: Decimal
    sum_insured_minor: int
    total_sum_insured_minor: int
    min_payout_minor: int
    payout_per_unit_minor: int
    premium_minor: int
    covers: list[CoverSnapshot]


class QuoteDraft(msgspec.Struct, frozen=True):
    id: uuid.UUID
    tenant_id: str
    kind: str  # TENANT | FAST | TRAVEL
    name: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date
    currency: str
    sum_insured_minor: int
    total_sum_insured_minor: int
    gross_premium_minor: int
    risk_premium_minor: int
    external_ref: str | None
    valid_until: dt.date
    line_items: list[LineItemDraft]


class ConvertQuoteInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    policy_id: uuid.UUID
    line_item_ids: list[uuid.UUID]


class QuoteTransitionInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    to_status: str
    to_state: str
    from_statuses: list[str]


class QuoteWorkflowInput(msgspec.Struct, frozen=True):
    draft: QuoteDraft
    # The lifecycle the run follows: 1 for runs started before the outcome-checked lifecycle
    # (their input has no such field), 2 for every run started since (workflows/quotes.py).
    lifecycle: int = 1


class QuoteWriteInput(msgspec.Struct, frozen=True):
    """Reject or expire a quote (conditional on CREATED and, for rejection, its deadline)."""

    tenant_id: str
    quote_id: uuid.UUID
    at: dt.datetime
