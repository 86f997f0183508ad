"""Wire types of the travel sample surface (snake_case, as the spec gives them)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

# --- travel surface (snake_case as the spec gives it) -----------------------------------------


class ValidatedEvent(msgspec.Struct):
    policy_id: str
    event_type: str
    validated_day: dt.date
    validated_amount: Decimal


class ValidatedEvents(msgspec.Struct):
    validated_events: list[ValidatedEvent]
