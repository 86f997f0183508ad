"""Dates from a request, checked against the service's calendar (models/domain/dates.py):
400 problem+json naming the field outside it, before anything computes with the date."""

from __future__ import annotations

import datetime as dt

from api.problems import InvalidInput
from models.domain.dates import day_outside


def checked_day(day: dt.date | None, field: str) -> dt.date | None:
    """`day` (None passes) if inside the service's calendar; InvalidInput naming `field` otherwise."""
    if day is not None and (why := day_outside(day)):
        raise InvalidInput.of_field(field, why)
    return day
