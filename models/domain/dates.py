"""The calendar the service works in: 1900-01-01 to 2199-12-31 (issue 33, section 6).

Every date, month or date-time a client sends (path, query, body, CSV, command line) is
checked against this range before anything computes with it, and refused in words naming
its field outside it. At the edges of Python's calendar (years 1 and 9999) the next day or
the month after does not exist: `GET /internal/bordereaux/9999-12/risk.csv` answered 500
(`year 10000 is out of range`), a capacity limit for month 9999-12 or 0000-01 too, and one for
0001-01 was stored.

Routes narrow this further with ranges of their own (the sellable window of quotes and the
catalogue, observations never in the future, bordereaux from 2000 and only for months that
have ended); this one is what no input ever leaves.
"""

from __future__ import annotations

import datetime as dt

FIRST_DAY = dt.date(1900, 1, 1)  # the oldest observations taken (India's gridded records begin 1901)
LAST_DAY = dt.date(2199, 12, 31)  # far past anything sold (at most 24 months ahead) or observed (never ahead)


def day_outside(day: dt.date) -> str | None:
    """Why `day` is outside the service's calendar, in words; None inside it."""
    if FIRST_DAY <= day <= LAST_DAY:
        return None
    return f"{day.isoformat()} is outside the dates this service takes ({FIRST_DAY} to {LAST_DAY})"


def month_outside(year: int, month: int) -> str | None:
    """Why month `year`-`month` (1-12) is outside the service's calendar; None inside it."""
    if (FIRST_DAY.year, FIRST_DAY.month) <= (year, month) <= (LAST_DAY.year, LAST_DAY.month):
        return None
    return (f"{year:04d}-{month:02d} is outside the months this service takes "
            f"({FIRST_DAY:%Y-%m} to {LAST_DAY:%Y-%m})")
