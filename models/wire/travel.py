"""Wire types of the travel sample surface (snake_case, as the spec gives them)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

from models.wire.common import ShortText

# --- travel surface (snake_case as the spec gives it) -----------------------------------------


class ValidatedEvent(msgspec.Struct):
    policy_id: str
    event_type: str
    validated_day: dt.date
    validated_amount: Decimal


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
    technical_rate: Decimal  # risk price per unit of maximum payout (max_payout x qty), 6 places
    risk_price: Decimal  # INR, 2 places


class TravelPolicyRequest(msgspec.Struct):
    quote_id: str
    acceptance: bool


class TravelPolicy(msgspec.Struct):
    policy_id: str | None  # null when the quote is declined
    confirmation_message: str
