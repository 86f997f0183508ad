"""Wire types of the travel sample surface (snake_case, as the spec gives them)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

from models.wire.common import ShortText

# --- travel surface (snake_case as the spec gives it) -----------------------------------------


class ValidatedEvent(msgspec.Struct):
    """The spec's four fields, then what a client needs to reconcile: the event's own id,
    whether it is a SETTLEMENT or an ADJUSTMENT (a later revision of the data changed what
    the policy is paid: the amount is the difference, and may be negative), for an
    adjustment the id of the event it corrects, and its stage (INITIAL: paid on provisional
    values; FINAL: on final values, the true-up of an INITIAL payment among them)."""

    policy_id: str
    event_type: str
    validated_day: dt.date
    validated_amount: Decimal
    event_id: str = ""
    kind: str = "SETTLEMENT"  # SETTLEMENT | ADJUSTMENT
    adjustment_of: str | None = None
    stage: str = "FINAL"  # INITIAL: the first payment on provisional values; FINAL: on final values


class ValidatedEvents(msgspec.Struct):
    validated_events: list[ValidatedEvent]


class CoverageItem(msgspec.Struct):
    id: str
    name: str
    definition: str


class Coverages(msgspec.Struct):
    coverages: list[CoverageItem]


class TravelQuoteRequest(msgspec.Struct):
    """POST /quotes: `max_payout` in INR a night, `qty` the nights insured (at most the stay's)."""

    coverage_id: str
    max_payout: Decimal
    qty: int
    technical_client_ref: ShortText


class TravelQuote(msgspec.Struct):
    quote_id: str
    technical_rate: Decimal  # expected payout per unit of maximum payout (max_payout x qty), 6 places
    risk_price: Decimal  # the stay's premium (loaded, at least the per-stay minimum), INR, 2 places


class TravelPolicyRequest(msgspec.Struct):
    quote_id: str
    acceptance: bool


class TravelPolicy(msgspec.Struct):
    policy_id: str | None  # null when the quote is declined
    confirmation_message: str
