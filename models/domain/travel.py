"""The hotel-rain cover of the travel surface (docs/travel.md): a stay's nights, the covers
offered for it, their wording and the quote's price. Pure: no I/O.

A night of the stay is a day of the RAINFALL_DAYTIME_HOURS index: the night of 10 December
is paid when rain between 08:00 and 20:00 (local time) on 10 December reaches the trigger.
A stay from check-in date A to check-out date B has the nights A … B − 1.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

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
class TravelPrice:
    risk_price: Decimal  # currency units, rounded half-even to the minor unit
    technical_rate: Decimal  # risk price per unit of maximum payout (max_payout × qty), 6 places
    expected_nights: Decimal  # expected nights paid, capped at qty (exact from the simulation)


def offered(night_counts: list[int]) -> bool:
    """Whether a stay's cover is offered: some simulated path pays a night. A cover no path
    pays has a premium of 0 at any amount, and is not sold (issue 24)."""
    return any(n > 0 for n in night_counts[1:])


def price(night_counts: list[int], max_payout: Decimal, qty: int, currency: str = CURRENCY) -> TravelPrice:
    """The risk price (expected payout) of `qty` nights at `max_payout` each, from the
    simulation's paths by nights at or above the trigger (`night_counts[k]`: paths with k
    such nights). Exact rational arithmetic on the counts: nothing is a float."""
    paths = sum(night_counts)
    if paths <= 0:
        raise ValueError("the coverage has no simulated paths")
    nights = sum(min(k, qty) * n for k, n in enumerate(night_counts))
    expected = Decimal(nights) / Decimal(paths)
    quantum = Decimal(1).scaleb(-minor_units(currency))
    risk = (max_payout * expected).quantize(quantum, rounding=ROUND_HALF_EVEN)
    rate = (expected / Decimal(qty)).quantize(RATE_PLACES, rounding=ROUND_HALF_EVEN)
    return TravelPrice(risk_price=risk, technical_rate=rate, expected_nights=expected)


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
    expected_loss_ratio: Decimal,
    client_ref: str,
    today: dt.date,
) -> QuoteDraft:
    """One line item holding the cover: quantity = max_payout units (a unit pays 1 INR per
    night counted, at most the stay's nights), sum insured = qty × max_payout, so the line
    item pays min(nights counted, qty) × max_payout. The premium is the risk price over the
    expected loss ratio."""
    currency = cover.currency
    sum_insured_minor = to_minor(max_payout * qty, currency)
    risk_minor = to_minor(priced.risk_price, currency)
    gross_minor = to_minor(
        (priced.risk_price / expected_loss_ratio).quantize(Decimal(1).scaleb(-minor_units(currency)), ROUND_HALF_EVEN),
        currency,
    )
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
    daytime rain reached the trigger."""

    trigger: Decimal
    night_counts: list[int]


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
