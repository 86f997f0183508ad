"""How numbers, money, dates and times are printed in every document and chart.

One place, so that the fact sheet, the charts and the policy schedule never disagree on how
"₹10,000.00" or "6.85%" looks.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

NBSP = "\u00a0"
MINUS = "\u2212"

# Currencies printed with a symbol; every other currency is printed with its ISO code.
_SYMBOLS = {"INR": "₹"}


def currency_symbol(currency: str) -> str:
    """"₹" for INR, otherwise the ISO code itself (e.g. "USD")."""
    return _SYMBOLS.get(currency, currency)


def _group(integer_digits: str) -> str:
    out = []
    for i, ch in enumerate(reversed(integer_digits)):
        if i and i % 3 == 0:
            out.append(",")
        out.append(ch)
    return "".join(reversed(out))


def format_number(value: Decimal | float | int, places: int = 0) -> str:
    """Thousands separators, ``places`` decimals, rounded half up, a real minus sign."""
    if isinstance(value, float) and not math.isfinite(value):
        return "n/a"
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    quantum = Decimal(1).scaleb(-places)
    d = d.quantize(quantum, rounding=ROUND_HALF_UP)
    if d == 0:
        d = abs(d)  # no "−0.00"
    sign = MINUS if d < 0 else ""
    text = f"{abs(d):f}"
    integer, _, fraction = text.partition(".")
    return sign + _group(integer) + ("." + fraction if places > 0 else "")


def format_money(amount: Decimal | float | int, currency: str, places: int = 2) -> str:
    """"₹12,345.00" for INR, "USD 12,345.00" (non-breaking space) for other currencies."""
    number = format_number(amount, places)
    sign = ""
    if number.startswith(MINUS):
        sign, number = MINUS, number[1:]
    symbol = currency_symbol(currency)
    sep = "" if symbol in _SYMBOLS.values() else NBSP
    return f"{sign}{symbol}{sep}{number}"


def format_pct(fraction: Decimal | float, places: int = 2) -> str:
    """A fraction as a percentage: 0.0685 → "6.85%"."""
    d = fraction if isinstance(fraction, Decimal) else Decimal(str(fraction))
    return format_number(d * 100, places) + "%"


def format_probability(p: float) -> str:
    """Probabilities as percentages with enough digits for small ones: 0.2131 → "21.31%",
    0.0004 → "0.040%"."""
    if p == 0:
        return "0%"
    places = 2 if p >= 0.01 else 3 if p >= 0.001 else 4
    return format_pct(p, places)


def decimal_places(value: Decimal) -> int:
    """Significant decimals of a Decimal: 180 → 0, 12.50 → 1."""
    exponent = value.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def format_index(value: Decimal | float | None, unit: str, places: int | None = None) -> str:
    """An index value with its unit: "180 mm", "12.5 km/h"; "n/a" when missing.

    Without ``places``, Decimals keep their own digits (contract terms print as agreed) and
    floats get one decimal.
    """
    if value is None:
        return "n/a"
    if places is None:
        places = decimal_places(value) if isinstance(value, Decimal) else 1
    return f"{format_number(value, places)}{NBSP}{unit}"


def format_date(d: dt.date) -> str:
    """"1 Sep 2026": no ambiguity between day-month and month-day readers."""
    return f"{d.day} {d:%b %Y}"


def format_period(start: dt.date, end: dt.date) -> str:
    return f"{format_date(start)} – {format_date(end)}"


def format_period_short(start: dt.date, end: dt.date) -> str:
    """"Sep 2027" for a whole calendar month, otherwise "1 Sep – 15 Oct 2027"."""
    next_day = end + dt.timedelta(days=1)
    if start.day == 1 and next_day.day == 1 and (next_day.month - start.month) % 12 == 1 and (end.year, end.month) == (start.year, start.month):
        return f"{start:%b %Y}"
    if start.year == end.year:
        return f"{start.day} {start:%b} – {format_date(end)}"
    return format_period(start, end)


def format_datetime(moment: dt.datetime, local_timezone: str | None = None) -> str:
    """"2026-08-20 09:30 UTC", plus the local time when a timezone is given and known:
    "2026-08-20 09:30 UTC (15:00 IST)"."""
    utc = moment.astimezone(dt.UTC)
    text = f"{utc:%Y-%m-%d %H:%M} UTC"
    if local_timezone:
        try:
            local = moment.astimezone(ZoneInfo(local_timezone))
        except (ZoneInfoNotFoundError, ValueError):
            return text
        day = "" if local.date() == utc.date() else f"{local:%Y-%m-%d} "
        text += f" ({day}{local:%H:%M} {local.tzname()})"
    return text


def format_coordinates(latitude: float, longitude: float) -> str:
    """"12.9818° N, 77.5931° E"."""
    ns = "N" if latitude >= 0 else "S"
    ew = "E" if longitude >= 0 else "W"
    return f"{abs(latitude):.4f}°{NBSP}{ns}, {abs(longitude):.4f}°{NBSP}{ew}"


# Advance widths of DejaVu Sans in em (from the font's hmtx table) for the characters that
# fill the tables; anything else counts as a wide-ish average. Bold is about 10 % wider.
_ADVANCE = {
    **dict.fromkeys("0123456789₹", 0.636),
    **dict.fromkeys(" ,.·", 0.318),
    **dict.fromkeys("≥≤×=", 0.838),
    "-": 0.361, "/": 0.337, "%": 0.95, "°": 0.5, "(": 0.39, ")": 0.39, "–": 0.5, ":": 0.337,
    **dict.fromkeys("iljI", 0.29), **dict.fromkeys("ftr", 0.39), "m": 0.974, "w": 0.818,
    **dict.fromkeys("MW", 0.93),
}


def text_width_em(text: str, bold: bool = False) -> float:
    """Width of ``text`` set in DejaVu Sans, in em (an upper estimate for letters)."""
    width = sum(_ADVANCE.get(ch, 0.64 if ch.isupper() else 0.62) for ch in text)
    return width * (1.1 if bold else 1.0)
