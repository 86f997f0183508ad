"""The sellable window (docs/catalogue.md): cover is sold for whole calendar months from the
first day of next month through the last day of the `SELLABLE_MONTHS`-th month (24: on
2026-11-26, 2026-12-01 to 2028-11-30). "Today" is India's date (models.clock.business_today),
never the host's local date, so every host agrees on the window. Catalogue periods (`from`/`to`) and quote periods
(`riskPeriodFrom`/`riskPeriodTo`) outside it are a 400 naming the parameter: nothing is
created or priced for them."""

from __future__ import annotations

import datetime as dt
import re

from api.problems import InvalidInput
from models.clock import business_today

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def first_of_next_month(day: dt.date) -> dt.date:
    return dt.date(day.year + (day.month == 12), day.month % 12 + 1, 1)


def add_months(first: dt.date, months: int) -> dt.date:
    """The first day of the month `months` after the month starting on `first`."""
    index = first.year * 12 + first.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def sellable_window(months: int, today: dt.date | None = None) -> tuple[dt.date, dt.date]:
    """(first sellable day, last sellable day), both inclusive; `today`: India's date unless given."""
    first = first_of_next_month(today or business_today())
    return first, add_months(first, months) - dt.timedelta(days=1)


def parse_day(value: str | None, field: str) -> dt.date | None:
    """A `YYYY-MM-DD` query parameter; anything else (2027-02-29, 27-06-01) is a 400 naming it."""
    if value is None:
        return None
    try:
        if not _ISO_DAY.match(value):
            raise ValueError
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InvalidInput.of_field(field, f"{value!r} is not a date (YYYY-MM-DD)") from None


def check_sellable(day: dt.date, field: str, window: tuple[dt.date, dt.date]) -> None:
    first, last = window
    if not first <= day <= last:
        raise InvalidInput.of_field(
            field, f"{day} is outside the sellable window {first} to {last} (from next month, {_months(window)} months ahead)"
        )


def _months(window: tuple[dt.date, dt.date]) -> int:
    first, last = window
    return (last.year - first.year) * 12 + last.month - first.month + 1
