"""How figures are printed: money, percentages, index values, dates and times."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from reports.formatting import (
    MINUS,
    NBSP,
    format_coordinates,
    format_date,
    format_datetime,
    format_index,
    format_money,
    format_number,
    format_pct,
    format_period_short,
    format_probability,
)


@pytest.mark.parametrize(
    ("amount", "currency", "places", "expected"),
    [
        (Decimal("1234567.891"), "INR", 2, "₹1,234,567.89"),
        (Decimal("0.005"), "INR", 2, "₹0.01"),  # half up, not banker's rounding
        (Decimal("-1500"), "INR", 0, f"{MINUS}₹1,500"),
        (Decimal("999.5"), "USD", 0, f"USD{NBSP}1,000"),
        (Decimal("12"), "EUR", 2, f"EUR{NBSP}12.00"),
        (Decimal("-0.001"), "INR", 2, "₹0.00"),  # no negative zero
    ],
)
def test_money_has_symbol_or_code_and_thousands_separators(amount, currency, places, expected):
    assert format_money(amount, currency, places) == expected


def test_numbers_and_percentages():
    assert format_number(1234.5, 1) == "1,234.5"
    assert format_number(Decimal("1000000")) == "1,000,000"
    assert format_pct(Decimal("0.0685")) == "6.85%"
    assert format_pct(0.5, 0) == "50%"
    assert format_probability(0.2131) == "21.31%"
    assert format_probability(0.0004) == "0.0400%"
    assert format_probability(0) == "0%"


def test_index_values_keep_agreed_digits():
    assert format_index(Decimal("200"), "mm") == f"200{NBSP}mm"
    assert format_index(Decimal("33.5"), "°C") == f"33.5{NBSP}°C"
    assert format_index(Decimal("2E+2"), "mm") == f"200{NBSP}mm"
    assert format_index(140.83, "mm") == f"140.8{NBSP}mm"
    assert format_index(None, "mm") == "n/a"


def test_dates_periods_and_times():
    assert format_date(dt.date(2027, 9, 1)) == "1 Sep 2027"
    assert format_period_short(dt.date(2027, 9, 1), dt.date(2027, 9, 30)) == "Sep 2027"
    assert format_period_short(dt.date(2027, 12, 1), dt.date(2027, 12, 31)) == "Dec 2027"
    assert format_period_short(dt.date(2027, 1, 1), dt.date(2027, 12, 31)) == "1 Jan – 31 Dec 2027"
    assert format_period_short(dt.date(2027, 12, 15), dt.date(2028, 1, 14)) == "15 Dec 2027 – 14 Jan 2028"
    moment = dt.datetime(2026, 9, 2, 6, 45, tzinfo=dt.UTC)
    assert format_datetime(moment) == "2026-09-02 06:45 UTC"
    assert format_datetime(moment, "Asia/Kolkata") == "2026-09-02 06:45 UTC (12:15 IST)"
    late = dt.datetime(2026, 9, 2, 20, 0, tzinfo=dt.UTC)
    assert format_datetime(late, "Asia/Kolkata") == "2026-09-02 20:00 UTC (2026-09-03 01:30 IST)"
    assert format_datetime(moment, "No/Such_Zone") == "2026-09-02 06:45 UTC"


def test_coordinates():
    assert format_coordinates(12.9818, 77.59314) == f"12.9818°{NBSP}N, 77.5931°{NBSP}E"
    assert format_coordinates(-33.9, -18.4) == f"33.9000°{NBSP}S, 18.4000°{NBSP}W"
