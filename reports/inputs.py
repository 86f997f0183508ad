"""What the document renderers need, and nothing more.

These types are deliberately decoupled from the pricing engine, the database tables and the
wire Structs: the activity that renders a document maps whatever it has onto them. They are
frozen dataclasses built from plain values (str, int, float, Decimal, date, datetime, enum,
tuples), so msgspec (and therefore the Temporal data converter) encodes and decodes them as
they are.

Conventions, so that nobody has to guess a unit:

* Money is a ``Decimal`` in the major unit of the enclosing object's ``currency`` (ISO 4217
  code, e.g. ``"INR"``): rupees, not paise. Floats are refused for money.
* Percentages are fractions: ``Decimal("0.0685")`` (or ``0.0685`` for probabilities) means
  6.85 %.
* Index values (trigger, exit, observations) are in the cover's ``unit`` (mm, km/h, °C...).
  Contract terms (trigger, exit) are ``Decimal`` because they are agreed numbers; statistical
  values (observations, fitted quantiles, simulated losses in charts) are ``float``.
* Dates are calendar dates, risk periods are inclusive at both ends; date-times must be
  timezone-aware.
"""

from __future__ import annotations

import datetime as dt
import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from models.domain.payout import curve_points

__all__ = [
    "AggregatedPricing",
    "Approval",
    "BandDriverRow",
    "BurnRow",
    "BurnViewRow",
    "CalibrationFit",
    "Convergence",
    "ConvergencePoint",
    "CoverFacts",
    "DataBasisFacts",
    "DataSource",
    "Direction",
    "LadderRungFacts",
    "ExceedancePoint",
    "FactSheetInput",
    "HistoricalYear",
    "LossDistribution",
    "MonthlyFit",
    "NamedValue",
    "Party",
    "PayoutCurve",
    "PayoutPoint",
    "PolicyLineItem",
    "PolicyScheduleInput",
    "QuantilePair",
    "QuoteCover",
    "QuoteDocumentInput",
    "ReserveLine",
    "RiskMetrics",
    "SettlementLadderFacts",
    "TechnicalPricingReportInput",
]


class Direction(enum.StrEnum):
    """Which side of the trigger pays."""

    ABOVE = "ABOVE"  # pays when the index is at or above the trigger (excess rain, wind, heat)
    BELOW = "BELOW"  # pays when the index is at or below the trigger (deficit rain, frost)


# --- validation helpers -------------------------------------------------------------------


def _decimal(owner: object, *names: str) -> None:
    """Money and contract terms must be exact: Decimal, finite."""
    for name in names:
        value = getattr(owner, name)
        if value is None:
            continue
        if not isinstance(value, Decimal):
            raise TypeError(
                f"{type(owner).__name__}.{name} must be a Decimal, got {type(value).__name__}"
            )
        if not value.is_finite():
            raise ValueError(f"{type(owner).__name__}.{name} must be finite, got {value}")


def _finite(owner: object, *names: str) -> None:
    for name in names:
        value = getattr(owner, name)
        if value is None:
            continue
        if isinstance(value, Decimal):
            ok = value.is_finite()
        else:
            ok = isinstance(value, (int, float)) and math.isfinite(value)
        if not ok:
            raise ValueError(f"{type(owner).__name__}.{name} must be a finite number, got {value!r}")


def _probability(owner: object, *names: str) -> None:
    _finite(owner, *names)
    for name in names:
        value = getattr(owner, name)
        if value is not None and not 0 <= value <= 1:
            raise ValueError(f"{type(owner).__name__}.{name} is a probability in [0, 1], got {value}")


def _currency(owner: object, currency: str) -> None:
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isalpha() and currency.isupper()):
        raise ValueError(f"{type(owner).__name__}.currency must be an ISO 4217 code, got {currency!r}")


def _aware(owner: object, *names: str) -> None:
    for name in names:
        value = getattr(owner, name)
        if value is not None and (not isinstance(value, dt.datetime) or value.utcoffset() is None):
            raise ValueError(f"{type(owner).__name__}.{name} must be a timezone-aware datetime")


def _same_currency(owner: object, currency: str, covers: Iterable[CoverFacts]) -> None:
    for cover in covers:
        if cover.currency != currency:
            raise ValueError(
                f"{type(owner).__name__}: cover {cover.coverage_id} is in {cover.currency}, "
                f"the document in {currency}"
            )


# --- parties and covers --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Party:
    """A party named on a document: insurer (risk carrier), customer/policyholder, intermediary."""

    name: str
    address_lines: tuple[str, ...] = ()
    contact_name: str | None = None
    email: str | None = None
    phone: str | None = None
    tax_id: str | None = None  # e.g. a GSTIN; printed as given
    reference: str | None = None  # the party's id in our records


@dataclass(frozen=True, slots=True)
class DataBasisFacts:
    """The data a cover is paid on and the data it is priced on, and how the one maps to the
    other (activities/pricing/basis.py): what a buyer and a reinsurer need to see that the
    price and the payout measure the same thing."""

    settlement_data_set: str  # id, e.g. "IMD-TMAX-1DEG"
    settlement_data: str  # in words
    settlement_latency: str  # when provisional and final values come, in words
    pricing_data_set: str  # id of the record the price is fitted on
    pricing_data: str  # in words
    mapping: str  # in words
    identity: bool  # the pricing record is the settlement product itself
    settlement_final: str = ""  # when values are final, in a few words
    summary: str = ""  # the mapping in a few words


@dataclass(frozen=True, slots=True)
class LadderRungFacts:
    """One rung of a cover's source ladder: where a day's value comes from."""

    rung: str  # FINAL | PROVISIONAL | FALLBACK
    data_set: str  # id, e.g. "IMD-RF-DAILY"
    product: str  # the product, its publisher and when it comes, in words


@dataclass(frozen=True, slots=True)
class SettlementLadderFacts:
    """A cover's settlement basis, frozen when it was sold (issue 34; docs/settlement.md,
    "Settlement basis"): the rungs a day's value is taken from, highest first, and when the
    first (INITIAL) payment and the true-up (FINAL) come at the latest."""

    rungs: tuple[LadderRungFacts, ...]
    calculation_deadline_days: int  # days after the period's last day
    calculation_deadline: dt.date  # the INITIAL payment's latest day
    true_up_window_days: int
    true_up_deadline: dt.date  # the FINAL settlement's latest day, on the best values then
    initial_rule: str  # how the first payment is reduced, in words
    calibration: str = ""  # how the fallback is mapped to the primary, in words ("" without one)


@dataclass(frozen=True, slots=True)
class CoverFacts:
    """One priced cover: where, when, what index, and how it pays.

    Payout structure as printed: nothing unless the index reaches the trigger (at or above it
    for ``ABOVE``, at or below for ``BELOW``); at the trigger ``min_payout``; then
    ``payout_per_unit`` for each index unit beyond the trigger; never more than ``limit``
    (reached at ``exit`` when there is one). All money is per unit of cover (quantity 1).
    """

    coverage_id: str
    label: str  # short human name, e.g. "Excess rainfall, September 2026"
    index_name: str  # e.g. "Monthly total rainfall"
    index_description: str  # plain words: what is measured and how it is aggregated
    unit: str  # index unit, e.g. "mm"
    direction: Direction
    monitoring_target_id: str
    monitoring_target_name: str
    latitude: float  # degrees north
    longitude: float  # degrees east
    risk_period_start: dt.date
    risk_period_end: dt.date  # inclusive
    trigger: Decimal  # index unit
    exit: Decimal | None  # index unit; None when the payout only stops at the limit
    min_payout: Decimal  # money, paid when the trigger is reached
    payout_per_unit: Decimal  # money per index unit beyond the trigger
    limit: Decimal  # money, maximum payout of the cover
    currency: str
    premium_indication_pct: Decimal  # fraction of the limit, e.g. Decimal("0.0685")
    gross_premium: Decimal  # money per unit of cover
    pin_codes: tuple[str, ...] = ()  # postal codes mapped to the monitoring target
    data_source: str | None = None  # who measures the index, in plain words
    risk_carrier: str | None = None
    data_basis: DataBasisFacts | None = None  # what it is paid on and priced on
    # the source ladder and deadlines it settles on; None: sold before the ladder (final values only)
    settlement_ladder: SettlementLadderFacts | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.direction, Direction):
            raise TypeError("CoverFacts.direction must be a Direction")
        _currency(self, self.currency)
        _decimal(self, "min_payout", "payout_per_unit", "limit", "gross_premium")
        _decimal(self, "trigger", "exit", "premium_indication_pct")
        _finite(self, "latitude", "longitude")
        if self.risk_period_end < self.risk_period_start:
            raise ValueError("CoverFacts: risk period ends before it starts")
        if self.limit <= 0 or self.min_payout < 0 or self.payout_per_unit < 0:
            raise ValueError("CoverFacts: limit must be positive, payouts non-negative")
        if self.min_payout > self.limit:
            raise ValueError("CoverFacts: min_payout exceeds the limit")
        if self.exit is not None:
            wrong_side = self.exit <= self.trigger if self.direction is Direction.ABOVE else self.exit >= self.trigger
            if wrong_side:
                raise ValueError(f"CoverFacts: exit {self.exit} is on the wrong side of trigger {self.trigger}")


@dataclass(frozen=True, slots=True)
class PayoutPoint:
    index_value: float  # index unit
    payout: float  # money per unit of cover


@dataclass(frozen=True, slots=True)
class PayoutCurve:
    """Payout as a function of the index, as piecewise-linear points sorted by index value.

    A jump (the minimum payout at the trigger) is two points with the same index value.
    """

    points: tuple[PayoutPoint, ...]

    def __post_init__(self) -> None:
        if len(self.points) < 2:
            raise ValueError("PayoutCurve needs at least two points")
        xs = [p.index_value for p in self.points]
        if any(b < a for a, b in zip(xs, xs[1:])):
            raise ValueError("PayoutCurve points must be sorted by index value")
        for p in self.points:
            _finite(p, "index_value", "payout")


def payout_curve_of(cover: CoverFacts) -> PayoutCurve:
    """The cover's payout curve: the corners of the one payout rule (models/domain/payout.py)."""
    points = curve_points(
        direction=cover.direction.value,
        trigger=cover.trigger,
        payout_per_unit=cover.payout_per_unit,
        limit=cover.limit,
        min_payout=cover.min_payout,
        exit=cover.exit,
    )
    return PayoutCurve(points=tuple(PayoutPoint(index_value=float(x), payout=float(y)) for x, y in points))


@dataclass(frozen=True, slots=True)
class HistoricalYear:
    """The index over the cover's risk period in a past year, and what the cover would have paid."""

    year: int
    index_value: float | None  # index unit; None when the data are missing for that year
    payout: Decimal  # money per unit of cover

    def __post_init__(self) -> None:
        _decimal(self, "payout")
        _finite(self, "index_value")


# --- pricing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RiskMetrics:
    """Monte Carlo results for one cover (per unit of cover) or for a whole quote.

    Money is in the currency of the document; probabilities are fractions.
    """

    expected_loss: Decimal  # EL, mean simulated payout
    standard_deviation: Decimal  # σ of the simulated payout
    standard_error: Decimal  # standard error of the EL estimate, σ / √N
    p_attach: float  # P(payout > 0)
    p_exhaust: float  # P(payout = limit)
    var_99: Decimal  # 99 % quantile of the payout
    tvar_99: Decimal  # mean payout beyond the 99 % quantile
    var_995: Decimal
    tvar_995: Decimal
    risk_premium: Decimal  # EL plus the risk loading
    gross_premium: Decimal  # risk premium plus expense and profit loadings
    expected_loss_ratio: Decimal  # fraction, EL / gross premium
    simulations: int  # N
    seed: int
    model_version: str
    data_hash: str  # hash of the calibration data set, as printed
    loading_note: str | None = None  # how risk and gross premium follow from EL, in one line
    # The risk load's parts (label, money, note), EL first; empty: the EL / ELR form above
    premium_parts: tuple[tuple[str, Decimal, str], ...] = ()
    # The review's checks (label, value, note): parameter band, burn against model, scale
    checks: tuple[tuple[str, str, str], ...] = ()

    def __post_init__(self) -> None:
        _decimal(
            self,
            "expected_loss",
            "standard_deviation",
            "standard_error",
            "var_99",
            "tvar_99",
            "var_995",
            "tvar_995",
            "risk_premium",
            "gross_premium",
            "expected_loss_ratio",
        )
        _probability(self, "p_attach", "p_exhaust")
        if self.simulations <= 0:
            raise ValueError("RiskMetrics.simulations must be positive")


@dataclass(frozen=True, slots=True)
class ExceedancePoint:
    loss: float  # money
    probability: float  # P(payout > loss), fraction


@dataclass(frozen=True, slots=True)
class LossDistribution:
    """Simulated payouts, binned.

    ``counts[i]`` is the number of simulations with a positive payout in
    ``(bin_edges[i], bin_edges[i + 1]]``; simulations without any payout are counted in
    ``zero_count`` only, because for a parametric cover they usually dwarf everything else.
    """

    bin_edges: tuple[float, ...]  # money, ascending, len(counts) + 1
    counts: tuple[int, ...]
    zero_count: int
    exceedance: tuple[ExceedancePoint, ...]  # sorted by loss

    def __post_init__(self) -> None:
        if len(self.bin_edges) != len(self.counts) + 1 or not self.counts:
            raise ValueError("LossDistribution: need len(bin_edges) == len(counts) + 1 >= 2")
        if any(b <= a for a, b in zip(self.bin_edges, self.bin_edges[1:])):
            raise ValueError("LossDistribution: bin edges must increase")
        if min(self.counts) < 0 or self.zero_count < 0:
            raise ValueError("LossDistribution: counts must be non-negative")
        for p in self.exceedance:
            _probability(p, "probability")

    @property
    def simulations(self) -> int:
        return self.zero_count + sum(self.counts)


@dataclass(frozen=True, slots=True)
class ConvergencePoint:
    simulations: int  # N so far
    estimate: float  # money, running EL estimate
    standard_error: float  # money, its standard error (spread of the batch means / sqrt(k))
    # money: half-width of the 95 % interval, t(k-1, 0.975) x standard error for k batch
    # means (2.13 x at 16 batches, not 2); None: ±2 standard errors
    half_width_95: float | None = None

    @property
    def interval_half_width(self) -> float:
        return 2 * self.standard_error if self.half_width_95 is None else self.half_width_95


@dataclass(frozen=True, slots=True)
class Convergence:
    points: tuple[ConvergencePoint, ...]  # sorted by N

    def __post_init__(self) -> None:
        if not self.points:
            raise ValueError("Convergence needs at least one point")
        ns = [p.simulations for p in self.points]
        if ns != sorted(ns) or ns[0] <= 0:
            raise ValueError("Convergence points must be sorted by a positive N")


@dataclass(frozen=True, slots=True)
class NamedValue:
    """A named number: a distribution parameter or a goodness-of-fit statistic."""

    name: str
    value: float
    unit: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class MonthlyFit:
    """Observed against fitted statistics of the index for one calendar month (index unit)."""

    month: int  # 1..12
    observed_mean: float
    fitted_mean: float
    observed_p10: float | None = None
    observed_p90: float | None = None
    fitted_p10: float | None = None
    fitted_p90: float | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.month <= 12:
            raise ValueError("MonthlyFit.month is 1..12")


@dataclass(frozen=True, slots=True)
class QuantilePair:
    """One point of a QQ plot for the cover's risk-period index (index unit)."""

    probability: float
    observed: float
    fitted: float


@dataclass(frozen=True, slots=True)
class DataSource:
    id: str
    description: str
    data_set: str
    period: str  # e.g. "1901–2015"
    attribution: str = ""
    records: int | None = None


@dataclass(frozen=True, slots=True)
class CalibrationFit:
    """How the index model was calibrated, and how well it fits."""

    distribution: str  # e.g. "Zero-inflated gamma"
    method: str  # e.g. "maximum likelihood per calendar month, location 0"
    parameters: tuple[NamedValue, ...]  # for the cover's risk period
    data_sources: tuple[DataSource, ...]
    monthly: tuple[MonthlyFit, ...] = ()
    quantiles: tuple[QuantilePair, ...] = ()
    statistics: tuple[NamedValue, ...] = ()  # goodness of fit, e.g. Kolmogorov–Smirnov D


@dataclass(frozen=True, slots=True)
class BurnViewRow:
    """The cover's burn on one view of the record that does not share the model's projection
    (full record, last 30 years, detrended record): rates are fractions of the limit."""

    name: str
    first_year: int
    last_year: int
    burn_rate: float
    burn_se_rate: float
    frequency: float  # share of the years with a payout
    basis: str
    holds: bool  # above the band by more than its sampling error: the price is held

    def __post_init__(self) -> None:
        _finite(self, "burn_rate", "burn_se_rate", "frequency")


@dataclass(frozen=True, slots=True)
class BandDriverRow:
    """One driver of the expected loss's parameter band: the EL at its 5 % and 95 % points
    (money per unit of cover), its standard deviation and its share of the band's variance."""

    name: str
    low: Decimal
    high: Decimal
    sd: Decimal
    share: float
    note: str

    def __post_init__(self) -> None:
        _decimal(self, "low", "high", "sd")
        _finite(self, "share")


@dataclass(frozen=True, slots=True)
class BurnRow:
    """One year of the burn analysis: the historical index and the payout it would have caused."""

    year: int
    index_value: float | None  # index unit; None when missing
    payout: Decimal  # money per unit of cover
    adjusted_index_value: float | None = None  # e.g. detrended; printed when any row has one

    def __post_init__(self) -> None:
        _decimal(self, "payout")
        _finite(self, "index_value", "adjusted_index_value")


# --- documents --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Approval:
    """Four eyes on an actuary's rerun (issue 24): who ran it, and who published it (None:
    a candidate not yet published, which quotes do not use)."""

    run_by: str
    published_by: str | None = None

    @property
    def candidate(self) -> bool:
        return self.published_by is None

    @property
    def line(self) -> str:
        if self.candidate:
            return f"Run by {self.run_by} · candidate, not yet published: quotes use the coverage's published price"
        return f"Run by {self.run_by} · Published by {self.published_by}"


@dataclass(frozen=True, slots=True)
class FactSheetInput:
    """The buyer's one- or two-page summary of a cover."""

    cover: CoverFacts
    payout_curve: PayoutCurve
    history: tuple[HistoricalYear, ...]  # sorted by year
    document_id: str
    issued_at: dt.datetime  # printed and written into the PDF metadata (keeps output reproducible)
    pricing_version: str | None = None
    issuer: str | None = None  # who publishes the fact sheet, printed in the footer
    approval: Approval | None = None  # an actuary's rerun: who ran and who published it

    def __post_init__(self) -> None:
        _aware(self, "issued_at")


@dataclass(frozen=True, slots=True)
class TechnicalPricingReportInput:
    """Everything an actuary needs to review the price of one cover."""

    cover: CoverFacts
    payout_curve: PayoutCurve
    metrics: RiskMetrics  # per unit of cover, in cover.currency
    loss_distribution: LossDistribution
    convergence: Convergence
    calibration: CalibrationFit
    burn_rows: tuple[BurnRow, ...]  # sorted by year
    document_id: str
    issued_at: dt.datetime
    pricing_version: str | None = None
    notes: tuple[str, ...] = ()  # assumptions and caveats, one paragraph each
    approval: Approval | None = None  # an actuary's rerun: who ran and who published it
    # pricing-2026.4 on: the burn on three views of the record, the band by driver, and why
    # the price is held for an actuary (None: it is not)
    burn_views: tuple[BurnViewRow, ...] = ()
    band_drivers: tuple[BandDriverRow, ...] = ()
    hold_reason: str | None = None
    band_high: Decimal | None = None  # the top of the band with every driver (money per unit)
    # The settlement data set's own basis risk over recent covers (issue 34; models/domain/
    # basis_risk.py `report_sentence`): "" when it has no source ladder.
    data_basis_risk: str = ""

    def __post_init__(self) -> None:
        _aware(self, "issued_at")


@dataclass(frozen=True, slots=True)
class QuoteCover:
    """A cover as offered in a quote, with its quantity and price."""

    cover: CoverFacts
    quantity: Decimal  # units of cover
    sum_insured: Decimal  # money, maximum payout of this cover in the quote (quantity × limit)
    premium: Decimal  # money, gross premium for this cover in the quote
    line_item: str | None = None  # e.g. the month label "01-09-2026 - 30-09-2026"
    expected_loss: Decimal | None = None  # money, for this cover in the quote (quantity included)

    def __post_init__(self) -> None:
        _decimal(self, "quantity", "sum_insured", "premium", "expected_loss")


@dataclass(frozen=True, slots=True)
class AggregatedPricing:
    """Joint pricing of all covers in a quote (money in the quote's currency)."""

    metrics: RiskMetrics
    loss_distribution: LossDistribution | None = None  # of the total annual payout


@dataclass(frozen=True, slots=True)
class QuoteDocumentInput:
    quote_id: str
    quote_name: str
    currency: str
    insurer: Party  # risk carrier
    customer: Party
    covers: tuple[QuoteCover, ...]
    total_sum_insured: Decimal
    gross_premium: Decimal
    pricing: AggregatedPricing
    issued_at: dt.datetime
    # The last (UTC) day the quote can be accepted, as the service enforces it (the API's
    # `validUntil`): acceptance closes at 00:00 UTC the day after (`acceptance_closes_at`).
    valid_until: dt.date
    intermediary: Party | None = None
    external_ref: str | None = None
    state: str | None = None  # e.g. "completed"
    conditions: tuple[str, ...] = ()  # subjectivities and conditions, one paragraph each
    local_timezone: str | None = None  # IANA name, e.g. "Asia/Kolkata": the closing time is also shown in it

    @property
    def acceptance_closes_at(self) -> dt.datetime:
        """The first moment the quote can no longer be accepted: 00:00 UTC after `valid_until`."""
        return dt.datetime.combine(self.valid_until + dt.timedelta(days=1), dt.time(0), tzinfo=dt.timezone.utc)

    def __post_init__(self) -> None:
        _currency(self, self.currency)
        _decimal(self, "total_sum_insured", "gross_premium")
        _aware(self, "issued_at")
        if not self.covers:
            raise ValueError("QuoteDocumentInput needs at least one cover")
        _same_currency(self, self.currency, (c.cover for c in self.covers))


@dataclass(frozen=True, slots=True)
class PolicyLineItem:
    """One line item of a policy (one month on the tenant surface) and its covers."""

    line_item_id: str
    name: str  # e.g. "01-09-2026 - 30-09-2026"
    quantity: Decimal  # units of cover
    sum_insured: Decimal  # money per unit
    total_sum_insured: Decimal  # money, quantity × sum_insured
    covers: tuple[CoverFacts, ...]
    min_payout: Decimal | None = None  # money, as on the line item (tenant surface)
    payout_per_unit: Decimal | None = None  # money per index unit, as on the line item
    premium: Decimal | None = None  # money, gross premium of the line item

    def __post_init__(self) -> None:
        _decimal(self, "quantity", "sum_insured", "total_sum_insured", "min_payout", "payout_per_unit", "premium")
        if not self.covers:
            raise ValueError("PolicyLineItem needs at least one cover")


@dataclass(frozen=True, slots=True)
class PolicyScheduleInput:
    policy_id: str
    policy_name: str
    status: str  # e.g. "ACCEPTED"
    currency: str
    insurer: Party
    policy_holder: Party
    line_items: tuple[PolicyLineItem, ...]
    inception_date: dt.date
    expiry_date: dt.date
    total_sum_insured: Decimal
    gross_premium: Decimal
    issued_at: dt.datetime
    activated_at: dt.datetime | None = None
    canceled_at: dt.datetime | None = None  # a cancelled policy's schedule says so, with the date
    signature_confirmed: bool = False
    risk_premium: Decimal | None = None
    intermediary: Party | None = None
    quote_id: str | None = None
    external_ref: str | None = None
    exclusions: tuple[str, ...] = ()
    local_timezone: str | None = None  # IANA name, e.g. "Asia/Kolkata": times are also shown in it
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        _currency(self, self.currency)
        _decimal(self, "total_sum_insured", "gross_premium", "risk_premium")
        _aware(self, "issued_at", "activated_at", "canceled_at")
        if not self.line_items:
            raise ValueError("PolicyScheduleInput needs at least one line item")
        if self.expiry_date < self.inception_date:
            raise ValueError("PolicyScheduleInput: expiry before inception")
        _same_currency(self, self.currency, (c for li in self.line_items for c in li.covers))


@dataclass(frozen=True)
class ClaimDay:
    day: dt.date
    value: Decimal  # the day's index value (mm, °C, km/h)
    counted: bool = False  # daily-count index: the day reached the trigger
    rung: str = "FINAL"  # FINAL | PROVISIONAL | FALLBACK: where the value came from
    source: str = ""  # the data set and its source ("IMD-RF-DAILY · IMD"); a fallback's own value too


@dataclass(frozen=True)
class ClaimReportInput:
    """One validated parametric event, explained: the index path, the data, the arithmetic."""

    event_id: str
    policy_id: str
    policy_name: str
    tenant_name: str
    kind: str  # SETTLEMENT | ADJUSTMENT
    event_type: str
    validated_day: dt.date
    index_name: str
    unit: str
    aggregation: str  # SUM | MAX | DAILY_COUNT
    monitoring_target_id: str
    period_start: dt.date
    period_end: dt.date
    direction: str
    trigger: Decimal
    exit: Decimal | None
    index_value: Decimal
    data_set: str
    revision: int
    simulated: bool
    currency: str
    paid: Decimal  # this event's amount (an adjustment: the difference)
    path: tuple[ClaimDay, ...]
    arithmetic: tuple[tuple[str, str], ...]  # (step, value) rows
    text: str
    issued_at: dt.datetime
    data_set_description: str = ""  # the data set settled on, in words
    stage: str = "FINAL"  # INITIAL (first payment, on provisional values less their error) | FINAL
    snapshot_sha256: str = ""  # the settlement snapshot's hash ("" for events settled before snapshots)


# --- portfolio risk report ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PortfolioSlice:
    """In-force totals of one slice of the book: a monitoring target, a risk month or a peril."""

    key: str  # the target's id, the month (YYYY-MM) or the peril (RAINFALL...)
    name: str  # as a person reads it: the target's name, "Jul 2027", "Rainfall"
    insured: Decimal  # the most its line items can pay
    premium: Decimal  # gross
    expected_loss: Decimal  # simulated
    standard_error: Decimal  # of the expected loss
    line_items: int

    def __post_init__(self) -> None:
        _decimal(self, "insured", "premium", "expected_loss", "standard_error")


@dataclass(frozen=True, slots=True)
class ReturnPeriodLoss:
    """A point of an exceedance curve: the loss exceeded once in ``return_period`` years and
    the mean loss in those years (TVaR), each with its Monte Carlo standard error."""

    return_period: int  # years
    loss: Decimal
    standard_error: Decimal
    tvar: Decimal
    tvar_standard_error: Decimal

    def __post_init__(self) -> None:
        _decimal(self, "loss", "standard_error", "tvar", "tvar_standard_error")
        if self.return_period <= 1:
            raise ValueError("ReturnPeriodLoss.return_period must be more than one year")


@dataclass(frozen=True, slots=True)
class AsIfYearLoss:
    """A year of the record applied to today's book: what it would pay, by target (the paying
    targets, largest first; their losses add up to ``loss``)."""

    year: int
    loss: Decimal
    by_target: tuple[tuple[str, Decimal], ...]  # (monitoring target id, loss)

    def __post_init__(self) -> None:
        _decimal(self, "loss")
        for _, amount in self.by_target:
            if not isinstance(amount, Decimal):
                raise TypeError("AsIfYearLoss.by_target amounts must be Decimals")
        if sum((a for _, a in self.by_target), Decimal(0)) != self.loss:
            raise ValueError(f"AsIfYearLoss {self.year}: the targets' losses do not add up to the year's")


@dataclass(frozen=True, slots=True)
class ReserveLine:
    """The claims reserve of one data set and month (docs/portfolio.md, "Owed but not yet
    paid"): what is still owed on its ended covers not settled FINAL, and what was paid."""

    data_set: str
    month: str  # YYYY-MM, the covers' period start
    owed: Decimal
    paid: Decimal
    open_covers: int
    by_state: tuple[tuple[str, int], ...]  # (WAITING | INITIAL | FLAGGED | DISPUTED, covers)

    def __post_init__(self) -> None:
        _decimal(self, "owed", "paid")


@dataclass(frozen=True, slots=True)
class PortfolioReportInput:
    """The book's risk for its risk carrier: one stored result of the portfolio run (the
    PortfolioView of `GET /internal/portfolio`, docs/portfolio.md) with the names a person
    reads. Build it from the stored JSON with ``portfolio_report_input``."""

    report_id: str  # the document's id (its file id)
    scope: str  # "Whole book" or the tenant's name
    tenant_id: str | None  # None: the whole book
    version: int  # the scope's result version
    book_hash: str
    as_of: dt.date  # line items whose period ended before it are not in the book
    computed_at: dt.datetime
    workflow_id: str  # the run that computed it
    currency: str
    policies: int
    line_items: int
    insured: Decimal
    premium: Decimal
    expected_loss: Decimal
    expected_loss_standard_error: Decimal
    by_target: tuple[PortfolioSlice, ...]
    by_month: tuple[PortfolioSlice, ...]
    by_peril: tuple[PortfolioSlice, ...]
    aep: tuple[ReturnPeriodLoss, ...]
    oep: tuple[ReturnPeriodLoss, ...]
    as_if_years: tuple[AsIfYearLoss, ...]  # the worst, worst first
    record_years: int  # years of the record applied
    record_first_year: int | None
    record_last_year: int | None
    unrecorded_line_items: int  # line items with a cover the record has no values for
    paths: int
    batches: int
    seed: int
    method: str
    model_version: str
    dependence: str
    occurrence: str
    issuer: str  # the risk carrier the report is for
    issued_at: dt.datetime
    target_names: tuple[tuple[str, str], ...] = ()  # (target id, name) for the as-if years' targets
    other_currency_policies: int = 0
    # The claims reserve as of `as_of` (issue 34); None: a result stored before it.
    reserve: tuple[ReserveLine, ...] | None = None
    reserve_method: str = ""

    def __post_init__(self) -> None:
        _currency(self, self.currency)
        _decimal(self, "insured", "premium", "expected_loss", "expected_loss_standard_error")
        _aware(self, "computed_at", "issued_at")
        for curve in (self.aep, self.oep):
            periods = [p.return_period for p in curve]
            if periods != sorted(set(periods)):
                raise ValueError("PortfolioReportInput: a curve's return periods must increase")

    def target_name(self, target_id: str) -> str:
        return dict(self.target_names).get(target_id) or next(
            (t.name for t in self.by_target if t.key == target_id), target_id)


_PERILS = {"RAINFALL": "Rainfall", "WIND": "Wind", "TEMPERATURE": "Temperature"}


def portfolio_report_input(
    result: dict,
    *,
    report_id: str,
    scope: str,
    tenant_id: str | None,
    version: int,
    book_hash: str,
    as_of: dt.date,
    computed_at: dt.datetime,
    workflow_id: str,
    issuer: str,
    issued_at: dt.datetime,
    target_names: dict[str, str] | None = None,
) -> PortfolioReportInput:
    """The report's input from a stored portfolio result: ``result`` is the PortfolioView's
    JSON as models/db/portfolio.py stores it (camelCase, money as ``{"amount": "12.50",
    "currency": "INR"}``); the rest is the result's row and the names a person reads."""
    names = target_names or {}

    def money(m: dict) -> Decimal:
        return Decimal(str(m["amount"]))

    def month_name(key: str) -> str:
        return dt.date.fromisoformat(f"{key}-01").strftime("%b %Y")

    def slices(rows: list[dict], key: str, name) -> tuple[PortfolioSlice, ...]:
        return tuple(PortfolioSlice(
            key=r[key], name=name(r[key]), insured=money(r["insured"]), premium=money(r["premium"]),
            expected_loss=money(r["expectedLoss"]), standard_error=money(r["standardError"]), line_items=r["lineItems"],
        ) for r in rows)

    def curve(rows: list[dict]) -> tuple[ReturnPeriodLoss, ...]:
        return tuple(ReturnPeriodLoss(
            return_period=r["returnPeriod"], loss=money(r["loss"]), standard_error=money(r["standardError"]),
            tvar=money(r["tvar"]), tvar_standard_error=money(r["tvarStandardError"]),
        ) for r in rows)

    reserve = result.get("reserve")
    record, sim = result["asIfRecord"], result["simulation"]
    years = tuple(AsIfYearLoss(
        year=y["year"], loss=money(y["loss"]),
        by_target=tuple((t["monitoringTargetId"], money(t["loss"])) for t in y["byTarget"]),
    ) for y in result["asIfYears"])
    return PortfolioReportInput(
        report_id=report_id, scope=scope, tenant_id=tenant_id, version=version, book_hash=book_hash, as_of=as_of,
        computed_at=computed_at, workflow_id=workflow_id, currency=result["currency"], policies=result["policies"],
        line_items=result["lineItems"], insured=money(result["insured"]), premium=money(result["premium"]),
        expected_loss=money(result["expectedLoss"]),
        expected_loss_standard_error=money(result["expectedLossStandardError"]),
        by_target=slices(result["byTarget"], "monitoringTargetId", lambda k: names.get(k, k)),
        by_month=slices(result["byMonth"], "month", month_name),
        by_peril=slices(result["byPeril"], "peril", lambda k: _PERILS.get(k, k.title())),
        aep=curve(result["aep"]), oep=curve(result["oep"]), as_if_years=years,
        record_years=record["years"], record_first_year=record["firstYear"], record_last_year=record["lastYear"],
        unrecorded_line_items=record["unrecordedLineItems"], paths=sim["paths"], batches=sim["batches"],
        seed=sim["seed"], method=sim["method"], model_version=sim["modelVersion"], dependence=sim["dependence"],
        occurrence=sim["occurrence"], issuer=issuer, issued_at=issued_at,
        target_names=tuple(sorted(names.items())),
        other_currency_policies=result.get("otherCurrencyPolicies", 0),
        reserve=None if reserve is None else tuple(ReserveLine(
            data_set=r["dataSet"], month=r["month"], owed=money(r["owed"]), paid=money(r["paid"]),
            open_covers=r["openCovers"], by_state=tuple(sorted(r["byState"].items())),
        ) for r in reserve["rows"]),
        reserve_method="" if reserve is None else reserve["method"],
    )
