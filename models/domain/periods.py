"""Dates of risk periods: calendar-month slots, UTC day bounds, the spec's period labels."""

from __future__ import annotations

import datetime as dt

from models.domain.terms import CoverageSlot


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=dt.timezone.utc)


def day_end(day: dt.date) -> dt.datetime:
    """Last millisecond of the day: risk periods include their end date."""
    return dt.datetime.combine(day, dt.time(23, 59, 59, 999000), tzinfo=dt.timezone.utc)


def period_label(start: dt.date, end: dt.date) -> str:
    """`DD-MM-YYYY - DD-MM-YYYY` (tenant-surface names of quotes and line items)."""
    return f"{start:%d-%m-%Y} - {end:%d-%m-%Y}"


def is_whole_month(start: dt.date, end: dt.date) -> bool:
    """[start, end] is one whole calendar month: the catalogue's period (a partial one is made
    to order for a quote, docs/catalogue.md "Partial periods")."""
    following = end + dt.timedelta(days=1)
    return start.day == 1 and following.day == 1 and (start.year, start.month) == (end.year, end.month)


def coverage_period_label(start: dt.date, end: dt.date) -> str:
    """"Dec 2026" for a whole calendar month; any other period with its dates,
    "01 Dec 2026 - 28 Dec 2026", so it never reads like the month's cover."""
    return f"{start:%b %Y}" if is_whole_month(start, end) else f"{start:%d %b %Y} - {end:%d %b %Y}"


def dated_label(label: str, start: dt.date, end: dt.date) -> str | None:
    """A coverage label written before issue 33 for a partial period with its month's words
    ("… · Dec 2026" for 1-28 Dec) with its dates instead; None when it needs no change."""
    head, sep, period = label.rpartition(" · ")
    if not sep or is_whole_month(start, end) or period != f"{start:%b %Y}":
        return None
    return f"{head} · {coverage_period_label(start, end)}"


def month_slots(index_codes: list[str], first_month: dt.date, months: int) -> list[CoverageSlot]:
    """Calendar-month slots for each index, starting at the month of `first_month`."""
    slots = []
    year, month = first_month.year, first_month.month
    for _ in range(months):
        start = dt.date(year, month, 1)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        end = dt.date(year, month, 1) - dt.timedelta(days=1)
        slots.extend(CoverageSlot(index_code=code, start=start, end=end) for code in index_codes)
    return slots
