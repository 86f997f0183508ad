"""The hotel-rain cover of the travel surface (docs/travel.md): a stay's nights, the covers
offered for it, their wording and the quote's price. Pure: no I/O.

A night of the stay is a day of the RAINFALL_DAYTIME_HOURS index: the night of 10 December
is paid when rain between 08:00 and 20:00 (local time) on 10 December reaches the trigger.
A stay from check-in date A to check-out date B has the nights A … B − 1.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import uuid
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

import msgspec

from models.domain.index_catalog import BY_CODE
from models.domain.lifecycle import ID_NAMESPACE
from models.domain.money import from_minor, minor_units, to_minor
from models.domain.quotes import CoverSnapshot, LineItemDraft, QuoteDraft
from models.domain.terms import SiteRef

INDEX_CODE = "RAINFALL_DAYTIME_HOURS"
CURRENCY = "INR"
# The covers offered for every stay: a night pays when its daytime rain reaches this (mm).
TRIGGERS_MM = (Decimal(5), Decimal(10), Decimal(20))
TRIGGER_WORDS = {Decimal(5): "light", Decimal(10): "moderate", Decimal(20): "heavy"}
MAX_NIGHTS = 30
MAX_DAYS_AHEAD = 365  # the first night at most this many days after today
MAX_PAYOUT_PER_NIGHT = Decimal(1_000_000)  # INR
SERVED_RADIUS_KM = 25.0  # a place farther than this from every monitoring target is not served
IST = dt.timezone(dt.timedelta(hours=5, minutes=30))  # the targets' local time
RATE_PLACES = Decimal("0.000001")  # technical_rate: 6 decimal places, half-even
# A travel quote can be accepted until the end of the day (UTC) after the one it was made
# on, and never once its first night has begun (models.domain.lifecycle.quote_deadline).
QUOTE_VALIDITY_DAYS = 1


class TravelInputError(ValueError):
    """A bad request parameter: `field` names it (for the problem+json body)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Stay:
    """The nights of a stay, first to last (inclusive), as index days."""

    first_night: dt.date
    last_night: dt.date

    @property
    def nights(self) -> int:
        return (self.last_night - self.first_night).days + 1


_DURATION = re.compile(r"^P(\d+)D$")


def _local_date(text: str, field: str) -> dt.date:
    """A date, or the local (IST) date of a date-time with an offset or `Z`."""
    text = text.strip()
    try:
        if len(text) == 10:
            return dt.date.fromisoformat(text)
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise TravelInputError(field, f"{text!r} is not an ISO 8601 date or date-time") from None
    if moment.tzinfo is None:
        raise TravelInputError(field, f"{text!r} has no offset: give a date, or a date-time with an offset or Z")
    try:
        return moment.astimezone(IST).date()
    except OverflowError:  # 9999-12-31T23:00-05:00 is in the year 10000 in India
        raise TravelInputError(field, f"{text!r} is outside the years 1 to 9999 in Indian time") from None


def parse_stay(time_range: str | None, today: dt.date) -> Stay:
    """`<check-in>/<check-out>` (ISO 8601 interval of dates, or date-times with an offset or
    `Z`, taken in Indian time; or `<check-in>/P<n>D`) → the stay's nights. `today`: IST."""
    field = "time_range"
    if not time_range:
        raise TravelInputError(field, "is required: <check-in>/<check-out>, e.g. 2026-12-10/2026-12-13")
    parts = time_range.split("/")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise TravelInputError(field, f"{time_range!r} is not an ISO 8601 interval <start>/<end>")
    check_in = _local_date(parts[0], field)
    duration = _DURATION.match(parts[1].strip())
    if duration and int(duration.group(1)) > MAX_NIGHTS:
        raise TravelInputError(field, f"has {int(duration.group(1))} nights; at most {MAX_NIGHTS} are covered")
    try:
        check_out = check_in + dt.timedelta(days=int(duration.group(1))) if duration else _local_date(parts[1], field)
    except OverflowError:
        raise TravelInputError(field, f"{time_range!r} ends after the year 9999") from None
    if check_out < check_in:
        raise TravelInputError(field, f"ends ({check_out}) before it starts ({check_in})")
    if check_out == check_in:
        raise TravelInputError(field, "covers no night: check-out must be after check-in")
    if (check_out - check_in).days > MAX_NIGHTS:
        raise TravelInputError(field, f"has {(check_out - check_in).days} nights; at most {MAX_NIGHTS} are covered")
    if check_in <= today:
        raise TravelInputError(
            field, f"starts on {check_in}, which is not after today ({today}, India): cover is sold before the stay only"
        )
    if (check_in - today).days > MAX_DAYS_AHEAD:
        raise TravelInputError(field, f"starts more than {MAX_DAYS_AHEAD} days ahead")
    return Stay(check_in, check_out - dt.timedelta(days=1))


def parse_coordinate(value: str | None, field: str, bound: float) -> float:
    if value is None or value == "":
        raise TravelInputError(field, "is required (decimal degrees)")
    try:
        x = float(value)
    except ValueError:
        raise TravelInputError(field, f"{value!r} is not a number (decimal degrees)") from None
    if not (-bound <= x <= bound):  # also refuses NaN
        raise TravelInputError(field, f"{value} is out of range [-{bound:g}, {bound:g}]")
    return x


def travel_coverage_id(target_id: str, stay: Stay, trigger: Decimal) -> uuid.UUID:
    """The coverage of a stay and trigger at a target: the same for every request."""
    return uuid.uuid5(ID_NAMESPACE, f"travel:{target_id}:{stay.first_night}:{stay.last_night}:{trigger.normalize()}")


def _nights_text(stay: Stay) -> str:
    def day(d: dt.date) -> str:
        return f"{d.day} {d:%B %Y}"

    if stay.nights == 1:
        return f"the night of {day(stay.first_night)}"
    return f"each of the {stay.nights} nights from {day(stay.first_night)} to {day(stay.last_night)}"


def cover_name(trigger: Decimal, stay: Stay) -> str:
    return f"Hotel rain, {TRIGGER_WORDS.get(trigger, '')} ({trigger.normalize():f} mm), {stay.nights} night(s)".replace(", (", " (")


def cover_definition(trigger: Decimal, stay: Stay, target_id: str) -> str:
    start, end = BY_CODE[INDEX_CODE].hours or (0, 24)
    return (
        f"Pays a night when rain between {start:02d}:00 and {end:02d}:00 local time on that night's date reaches "
        f"{trigger.normalize():f} mm at monitoring target {target_id} (hourly rainfall, nearest automatic weather "
        f"station); {_nights_text(stay)} is covered. Each night paid pays the quote's max_payout, for at most "
        f"the quote's qty nights."
    )


@dataclass(frozen=True, slots=True)
class TravelLoads:
    """The risk load of a stay, on the catalogue's basis (activities/pricing/loading.py;
    settings PRICING_* and TRAVEL_MIN_PREMIUM): fractions, and the per-stay minimum in the
    currency's major units."""

    expense_ratio: Decimal = Decimal("0.20")
    uncertainty_multiplier: Decimal = Decimal("0.67")
    capital_cost_rate: Decimal = Decimal("0.06")
    capital_quantile: Decimal = Decimal("0.99")
    min_rate_on_line: Decimal = Decimal("0.01")
    min_premium: Decimal = Decimal("25")

    @classmethod
    def of(cls, settings) -> "TravelLoads":
        """From `models.settings.Settings`."""
        return cls(
            expense_ratio=settings.pricing_expense_ratio,
            uncertainty_multiplier=settings.pricing_uncertainty_multiplier,
            capital_cost_rate=settings.pricing_capital_cost_rate,
            capital_quantile=settings.pricing_capital_quantile,
            min_rate_on_line=settings.pricing_min_rate_on_line,
            min_premium=settings.travel_min_premium,
        )


@dataclass(frozen=True, slots=True)
class TravelPrice:
    """A stay's price (money in the currency's major units, rounded half-even to the minor
    unit; docs/travel.md, "POST /quotes").

    ``risk_price``: the premium to charge, ``max((EL + k_u sigma + r_c (VaR - EL)) / (1 - e),
    m qty max_payout, minimum per stay)``; ``technical_rate``: the expected loss per unit of
    maximum payout (``max_payout x qty``), 6 places."""

    risk_price: Decimal
    technical_rate: Decimal
    expected_nights: Decimal  # E[min(nights counted, qty)] (exact from the simulation, 28 digits)
    expected_loss: Decimal  # max_payout x expected_nights
    parameter_sd: Decimal  # sd of the expected loss over the bootstrap replicates (0: no band stored)
    pml: Decimal  # the payout at the capital quantile (VaR)
    uncertainty_load: Decimal
    capital_load: Decimal
    expenses: Decimal
    minimum_premium: Decimal
    floored: bool  # a minimum set the premium
    gross_rate: Decimal  # the premium before rounding per unit of maximum payout, 10 places


def offered(night_counts: list[int]) -> bool:
    """Whether a stay's cover is offered: some simulated path pays a night. A cover no path
    pays has a premium of 0 at any amount, and is not sold (issue 24)."""
    return any(n > 0 for n in night_counts[1:])


_EXACT = Context(prec=34, rounding=ROUND_HALF_EVEN)  # the loads' arithmetic: fixed, so exact and reproducible


def _expected_nights(night_counts: list[int], qty: int) -> Fraction:
    paths = sum(night_counts)
    if paths <= 0:
        raise ValueError("the coverage has no simulated paths")
    return Fraction(sum(min(k, qty) * n for k, n in enumerate(night_counts)), paths)


def _quantile_nights(night_counts: list[int], qty: int, quantile: Decimal) -> int:
    """The engine's VaR of min(nights, qty) (activities/pricing/montecarlo.py): with
    ``k = floor(N (1 - a))`` the k largest paths left out, the largest value among the rest."""
    paths = sum(night_counts)
    left_out = math.floor(paths * (1 - Fraction(quantile)))
    seen = 0
    for value in range(qty, -1, -1):
        seen += sum(n for k, n in enumerate(night_counts) if min(k, qty) == value)
        if seen > left_out:
            return value
    return 0


def _replicate_sd(replicate_counts: list[list[int]] | None, qty: int) -> Fraction | Decimal:
    """sd (ddof 1) of E_b[min(nights, qty)] over the replicates b; 0 without a band."""
    if not replicate_counts or len(replicate_counts) < 2:
        return Decimal(0)
    means = [_expected_nights(c, qty) for c in replicate_counts]
    mean = sum(means, Fraction(0)) / len(means)
    var = sum(((m - mean) ** 2 for m in means), Fraction(0)) / (len(means) - 1)
    return _EXACT.sqrt(_EXACT.divide(Decimal(var.numerator), Decimal(var.denominator)))


def price(
    night_counts: list[int],
    max_payout: Decimal,
    qty: int,
    loads: TravelLoads | None = None,
    replicate_counts: list[list[int]] | None = None,
    currency: str = CURRENCY,
) -> TravelPrice:
    """The price of `qty` nights at `max_payout` each, from the simulation's paths by nights at
    or above the trigger (`night_counts[k]`: paths with k such nights) and, for the parameter
    band, the same counts of each bootstrap replicate (`replicate_counts`). Exact: ratios of
    integers, a square root and the loads in a fixed 34-digit context; nothing is a float."""
    loads = loads or TravelLoads()
    quantum = Decimal(1).scaleb(-minor_units(currency))
    expected = _expected_nights(night_counts, qty)
    m = Decimal(max_payout)
    el = _EXACT.divide(_EXACT.multiply(m, expected.numerator), Decimal(expected.denominator))
    sd = _EXACT.multiply(m, _replicate_sd(replicate_counts, qty))
    pml = _EXACT.multiply(m, _quantile_nights(night_counts, qty, loads.capital_quantile))
    uncertainty = _EXACT.multiply(loads.uncertainty_multiplier, sd)
    capital_load = _EXACT.multiply(loads.capital_cost_rate, max(Decimal(0), _EXACT.subtract(pml, el)))
    technical = _EXACT.add(_EXACT.add(el, uncertainty), capital_load)
    loaded = _EXACT.divide(technical, _EXACT.subtract(1, loads.expense_ratio))
    minimum = max(_EXACT.multiply(_EXACT.multiply(loads.min_rate_on_line, m), qty), loads.min_premium)
    gross = max(loaded, minimum)

    def cents(x: Decimal) -> Decimal:
        return x.quantize(quantum, rounding=ROUND_HALF_EVEN)

    rate = _EXACT.divide(Decimal(expected.numerator), Decimal(expected.denominator * qty))
    return TravelPrice(
        risk_price=cents(gross),
        technical_rate=rate.quantize(RATE_PLACES, rounding=ROUND_HALF_EVEN),
        expected_nights=_EXACT.divide(Decimal(expected.numerator), Decimal(expected.denominator)),
        expected_loss=cents(el),
        parameter_sd=cents(sd),
        pml=cents(pml),
        uncertainty_load=cents(uncertainty),
        capital_load=cents(capital_load),
        expenses=cents(_EXACT.subtract(gross, technical)),
        minimum_premium=cents(minimum),
        floored=minimum > loaded,
        gross_rate=_EXACT.divide(gross, _EXACT.multiply(m, qty)).quantize(Decimal("1e-10"), rounding=ROUND_HALF_EVEN),
    )


def build_travel_quote(
    *,
    quote_id: uuid.UUID,
    line_item_id: uuid.UUID,
    tenant_id: str,
    monitoring_target_id: str,
    cover: CoverSnapshot,
    max_payout: Decimal,
    qty: int,
    priced: TravelPrice,
    client_ref: str,
    today: dt.date,
) -> QuoteDraft:
    """One line item holding the cover: quantity = max_payout units (a unit pays 1 INR per
    night counted, at most the stay's nights), sum insured = qty × max_payout, so the line
    item pays min(nights counted, qty) × max_payout. The premium is the quote's risk price
    (the loaded premium), its risk premium the expected loss."""
    currency = cover.currency
    sum_insured_minor = to_minor(max_payout * qty, currency)
    risk_minor = to_minor(priced.expected_loss, currency)
    gross_minor = to_minor(priced.risk_price, currency)
    item = LineItemDraft(
        id=line_item_id,
        position=0,
        start=cover.start,
        end=cover.end,
        currency=currency,
        quantity=max_payout,
        sum_insured_minor=sum_insured_minor,
        total_sum_insured_minor=sum_insured_minor,
        min_payout_minor=0,
        payout_per_unit_minor=to_minor(max_payout * from_minor(cover.payout_per_unit_minor, currency), currency),
        premium_minor=gross_minor,
        covers=[cover],
    )
    return QuoteDraft(
        id=quote_id,
        tenant_id=tenant_id,
        kind="TRAVEL",
        name=f"Hotel rain {cover.start}..{cover.end}",
        monitoring_target_id=monitoring_target_id,
        risk_period_from=cover.start,
        risk_period_to=cover.end,
        currency=currency,
        sum_insured_minor=sum_insured_minor,
        total_sum_insured_minor=sum_insured_minor,
        gross_premium_minor=gross_minor,
        risk_premium_minor=risk_minor,
        external_ref=client_ref,
        valid_until=today + dt.timedelta(days=QUOTE_VALIDITY_DAYS),
        line_items=[item],
    )


# --- a stay's simulated nights (the pricing activity's result, recorded by the store) ---------


class StayNights(msgspec.Struct, frozen=True):
    """One trigger's simulated distribution: `night_counts[k]` paths had k nights whose
    daytime rain reached the trigger; `replicate_counts[b]` the same on bootstrap replicate b
    of the target's model (the parameter band; empty for stays priced before 2026.4)."""

    trigger: Decimal
    night_counts: list[int]
    replicate_counts: list[list[int]] = []


class PricedStay(msgspec.Struct, frozen=True):
    site: SiteRef
    first_night: dt.date
    last_night: dt.date
    by_trigger: list[StayNights]
    simulations: int  # paths
    seed: int
    model_version: str
    data_hash: str
    workflow_id: str = ""
