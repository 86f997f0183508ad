"""Wire formats of dates and times the spec fixes."""

from __future__ import annotations

import datetime as dt


def iso_millis(value: dt.datetime) -> str:
    """`YYYY-MM-DDThh:mm:ss.SSS+00:00` in UTC (the internal surface's date-time form)."""
    value = value.astimezone(dt.timezone.utc) if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}+00:00"


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=dt.timezone.utc)


def day_end(day: dt.date) -> dt.datetime:
    """Last millisecond of the day: risk periods include their end date."""
    return dt.datetime.combine(day, dt.time(23, 59, 59, 999000), tzinfo=dt.timezone.utc)


def period_label(start: dt.date, end: dt.date) -> str:
    """`DD-MM-YYYY - DD-MM-YYYY` (tenant-surface names of quotes and line items)."""
    return f"{start:%d-%m-%Y} - {end:%d-%m-%Y}"
