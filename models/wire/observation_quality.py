"""Wire types of the quality checks' list and a data staff member's acceptance (issue 34;
docs/observations.md, "Quality checks")."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated

import msgspec

from models.wire.common import CamelStruct
from models.wire.settlement import Reason


class SuspectValue(CamelStruct):
    """A stored value (its latest revision) that is SUSPECT, and the check it failed
    (`check`: range | spike | flat-line | neighbours, or reported: its sender said so)."""

    monitoring_target_id: str
    data_set: str
    variable: str
    day: dt.date
    hour: int | None
    value: Decimal
    source: str
    provisional: bool
    revision: int
    check: str
    submitted_by: str
    received_at: dt.datetime


class MissingDays(CamelStruct):
    """A series with values in the month but not on every day of it (the missing-day check)."""

    monitoring_target_id: str
    data_set: str
    variable: str
    days: list[dt.date]


class QualityList(CamelStruct):
    month: str  # YYYY-MM
    suspect: list[SuspectValue]
    more: bool  # more SUSPECT values than listed (the first 5,000 are)
    missing: list[MissingDays]


class ValueRef(CamelStruct):
    """Which stored value: target, data set, variable, day and hour (absent: a daily value)."""

    monitoring_target_id: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    data_set: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    variable: Annotated[str, msgspec.Meta(min_length=1, max_length=30)]
    day: dt.date
    hour: int | None = None


class QualityAcceptance(CamelStruct):
    observations: Annotated[list[ValueRef], msgspec.Meta(min_length=1, max_length=5000)]
    reason: Annotated[Reason, msgspec.Meta(min_length=1)]  # why the values are right after all


class QualityAccepted(CamelStruct):
    accepted: int  # stored now as accepted (GOOD, quality check "accepted:<check>")
    already_accepted: int  # accepted before: nothing stored (a retried request)
    settlements_notified: int
