"""Risk periods as sequences of calendar-month slots.

A risk period runs from ``risk_start`` to ``risk_end``, both dates inclusive (a March cover is
2026-03-01 … 2026-03-31). It is cut into calendar-month slots; a slot's ``fraction`` is the
share of the month's days inside the period (days / days in month).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

MAX_SLOTS = 25  # a joint pricing run may span at most 25 calendar months


@dataclass(frozen=True, slots=True)
class MonthSlot:
    """One calendar month of a risk period. ``first_day``/``last_day`` are 1-based, inclusive."""

    year: int
    month: int  # 1..12
    first_day: int
    last_day: int
    days_in_month: int

    @property
    def covered_days(self) -> int:
        return self.last_day - self.first_day + 1

    @property
    def fraction(self) -> float:
        """Share of the month's days inside the period (dimensionless, 0 < f ≤ 1)."""
        return self.covered_days / self.days_in_month

    @property
    def index(self) -> int:
        """Months since January of year 0 (orders slots across years)."""
        return self.year * 12 + self.month - 1


def month_slots(risk_start: date, risk_end: date) -> tuple[MonthSlot, ...]:
    """Cut ``[risk_start, risk_end]`` (inclusive) into calendar-month slots."""
    if risk_end < risk_start:
        raise ValueError(f"risk_end {risk_end} is before risk_start {risk_start}")
    out = []
    d = risk_start
    while d <= risk_end:
        dim = calendar.monthrange(d.year, d.month)[1]
        month_end = date(d.year, d.month, dim)
        last = min(month_end, risk_end)
        out.append(MonthSlot(d.year, d.month, d.day, last.day, dim))
        d = last + timedelta(days=1)
    if len(out) > MAX_SLOTS:
        raise ValueError(f"risk period spans {len(out)} months; at most {MAX_SLOTS} supported")
    return tuple(out)


def union_slots(periods: list[tuple[date, date]]) -> tuple[MonthSlot, ...]:
    """Whole-month slots from the earliest start month to the latest end month."""
    start = min(p[0] for p in periods)
    end = max(p[1] for p in periods)
    first = date(start.year, start.month, 1)
    last = date(end.year, end.month, calendar.monthrange(end.year, end.month)[1])
    return month_slots(first, last)
