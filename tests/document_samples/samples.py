"""Realistic sample inputs for every document, for tests, the benchmark and layout reviews.

The story: a farmer producer company near Bengaluru GPO (pin code 560001) buys a 2027 policy
in INR with 12 monthly line items, each holding two covers on the same monitoring target:

* excess rainfall (monthly total rainfall at or above a trigger, ₹10,000 limit per unit),
  priced on a zero-inflated gamma fitted to 115 years of real IMD rainfall for the South
  Interior Karnataka subdivision (``sample_data.py``);
* heat (monthly maximum temperature at or above a trigger, ₹5,000 limit per unit), on a toy
  normal model with illustrative triggers.

The pricing is a small pure-Python Monte Carlo with fixed seeds, so the figures in the
documents are internally consistent (EL, σ, VaR, histogram and convergence all come from the
same runs). It is a stand-in for the pricing engine, not a copy of it; what each cover pays
comes from the one payout rule (models/domain/payout.py).
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import hashlib
import math
import random
import uuid
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from functools import cache

from models.domain.payout import linear_payout
from reports.inputs import (
    AggregatedPricing,
    BurnRow,
    CalibrationFit,
    ClaimDay,
    ClaimReportInput,
    Convergence,
    ConvergencePoint,
    CoverFacts,
    DataSource,
    Direction,
    ExceedancePoint,
    FactSheetInput,
    HistoricalYear,
    LossDistribution,
    MonthlyFit,
    NamedValue,
    Party,
    PolicyLineItem,
    PolicyScheduleInput,
    QuantilePair,
    QuoteCover,
    QuoteDocumentInput,
    RiskMetrics,
    TechnicalPricingReportInput,
    payout_curve_of,
)
from tests.document_samples import sample_data as data

__all__ = [
    "ISSUED_AT",
    "heat_cover",
    "payout",
    "payout_curve",
    "rain_cover",
    "sample_fact_sheet_input",
    "sample_policy_schedule_input",
    "sample_portfolio_report_input",
    "sample_quote_document_input",
    "sample_technical_pricing_report_input",
]

CURRENCY = "INR"
YEAR = 2027
ISSUED_AT = dt.datetime(2026, 8, 20, 9, 30, tzinfo=dt.UTC)
_NS = uuid.UUID("0b7d5f4e-2c1a-4c8e-9a57-8f2d4b1e6a30")

TARGET_ID = "IN-G025-N12875-E77625"
TARGET_NAME = "Bengaluru GPO (pin code 560001), Karnataka"
LATITUDE, LONGITUDE = 12.9818, 77.59314
PIN_CODES = ("560001", "560002", "560009", "560025", "560027", "560052")

RAIN_LIMIT, RAIN_MIN = Decimal("10000"), Decimal("1000")
HEAT_LIMIT, HEAT_MIN, HEAT_PER_DEGREE = Decimal("5000"), Decimal("500"), Decimal("1500")
QUANTITY = Decimal("10")

SEED_COVER = 20270901
SEED_PORTFOLIO = 20270101
N_COVER = 20_000
N_PORTFOLIO = 4_000
RISK_LOAD_SIGMA = 0.15  # risk premium = EL + 0.15 σ
EXPENSE_RATIO = 0.20  # gross premium = risk premium / (1 − 0.20)
LOADING_NOTE = "Risk premium = EL + 0.15 σ; gross premium = risk premium / (1 − 20% expenses and profit)."
MODEL_VERSION = "rain-zigamma 1.3.0 · heat-normal 0.2.0 (sample)"

RISK_CARRIER = "Deccan Parametric Insurance Ltd."
IMD_SOURCE = DataSource(
    id="IMD",
    description="India Meteorological Department, monthly rainfall per meteorological subdivision",
    data_set="IMD-RF-MONTHLY · South Interior Karnataka",
    period="1901–2015",
    attribution="Open Government Data Platform India (data.gov.in), Government Open Data License – India",
    records=115 * 12,
)


def _uuid(*parts: object) -> str:
    return str(uuid.uuid5(_NS, "/".join(map(str, parts))))


def _money(x: float | Decimal) -> Decimal:
    return Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _month(month: int, year: int = YEAR) -> tuple[dt.date, dt.date]:
    start = dt.date(year, month, 1)
    nxt = dt.date(year + month // 12, month % 12 + 1, 1)
    return start, nxt - dt.timedelta(days=1)


def line_item_name(start: dt.date, end: dt.date) -> str:
    """The tenant surface's month label, ``DD-MM-YYYY - DD-MM-YYYY``."""
    return f"{start:%d-%m-%Y} - {end:%d-%m-%Y}"


# --- covers ------------------------------------------------------------------------------------


def _ladder(index_code: str, data_set: str, end: dt.date):
    """The settlement basis a cover sold now gets (issue 34), as the documents show it."""
    from activities.document_inputs import ladder_facts
    from models.domain.settlement_basis import basis_for

    return ladder_facts(basis_for(index_code, data_set), end)


def rain_cover(month: int, *, deficit: bool = False) -> CoverFacts:
    """The excess-rainfall cover of a calendar month (or, with ``deficit``, a September
    rainfall-deficit cover), unpriced: premium fields are zero until ``_priced``."""
    start, end = _month(month)
    month_name = f"{start:%B %Y}"
    if deficit:
        trigger, per_mm = Decimal("80"), Decimal("150")
        exit_ = trigger - (RAIN_LIMIT - RAIN_MIN) / per_mm
        return CoverFacts(
            coverage_id=_uuid("deficit", start),
            label=f"Rainfall deficit, {month_name}",
            index_name="Monthly total rainfall",
            index_description="Total rainfall over the risk period (sum of daily rainfall), deficit cover",
            unit="mm",
            direction=Direction.BELOW,
            monitoring_target_id=TARGET_ID,
            monitoring_target_name=TARGET_NAME,
            latitude=LATITUDE,
            longitude=LONGITUDE,
            risk_period_start=start,
            risk_period_end=end,
            trigger=trigger,
            exit=exit_,
            min_payout=RAIN_MIN,
            payout_per_unit=per_mm,
            limit=RAIN_LIMIT,
            currency=CURRENCY,
            premium_indication_pct=Decimal("0"),
            gross_premium=Decimal("0"),
            pin_codes=PIN_CODES,
            data_source="India Meteorological Department (IMD) daily gridded rainfall, 0.25° grid",
            risk_carrier=RISK_CARRIER,
            settlement_ladder=_ladder("RAINFALL_DEFICIT", "IMD-RF-DAILY", end),
        )
    trigger_s, per_mm_s = data.RAIN_TERMS[month]
    trigger, per_mm = Decimal(trigger_s), Decimal(per_mm_s)
    return CoverFacts(
        coverage_id=_uuid("rain", start),
        label=f"Excess rainfall, {month_name}",
        index_name="Monthly total rainfall",
        index_description="Total rainfall over the risk period (sum of daily rainfall), excess cover",
        unit="mm",
        direction=Direction.ABOVE,
        monitoring_target_id=TARGET_ID,
        monitoring_target_name=TARGET_NAME,
        latitude=LATITUDE,
        longitude=LONGITUDE,
        risk_period_start=start,
        risk_period_end=end,
        trigger=trigger,
        exit=trigger + (RAIN_LIMIT - RAIN_MIN) / per_mm,
        min_payout=RAIN_MIN,
        payout_per_unit=per_mm,
        limit=RAIN_LIMIT,
        currency=CURRENCY,
        premium_indication_pct=Decimal("0"),
        gross_premium=Decimal("0"),
        pin_codes=PIN_CODES,
        data_source="India Meteorological Department (IMD) daily gridded rainfall, 0.25° grid",
        risk_carrier=RISK_CARRIER,
        settlement_ladder=_ladder("RAINFALL_MONTHLY_TOTAL", "IMD-RF-DAILY", end),
    )


def heat_cover(month: int) -> CoverFacts:
    """The heat cover of a calendar month, unpriced."""
    start, end = _month(month)
    trigger = Decimal(data.HEAT_TERMS[month][0])
    return CoverFacts(
        coverage_id=_uuid("heat", start),
        label=f"Heat, {start:%B %Y}",
        index_name="Maximum temperature",
        index_description="Highest daily maximum 2 m air temperature over the risk period",
        unit="°C",
        direction=Direction.ABOVE,
        monitoring_target_id=TARGET_ID,
        monitoring_target_name=TARGET_NAME,
        latitude=LATITUDE,
        longitude=LONGITUDE,
        risk_period_start=start,
        risk_period_end=end,
        trigger=trigger,
        exit=trigger + (HEAT_LIMIT - HEAT_MIN) / HEAT_PER_DEGREE,
        min_payout=HEAT_MIN,
        payout_per_unit=HEAT_PER_DEGREE,
        limit=HEAT_LIMIT,
        currency=CURRENCY,
        premium_indication_pct=Decimal("0"),
        gross_premium=Decimal("0"),
        pin_codes=PIN_CODES,
        data_source="Reanalysis surface fields, hourly 2 m temperature",
        risk_carrier=RISK_CARRIER,
    )


def payout(cover: CoverFacts, index_value: float) -> float:
    """Payout per unit of cover (money) for an index value: the project's payout rule, float
    twin (models/domain/payout.py), exit included."""
    return float(
        linear_payout(
            index_value,
            direction=cover.direction.value,
            trigger=float(cover.trigger),
            payout_per_unit=float(cover.payout_per_unit),
            limit=float(cover.limit),
            min_payout=float(cover.min_payout),
            exit=None if cover.exit is None else float(cover.exit),
        )
    )


payout_curve = payout_curve_of  # the curve documents show (reports/inputs.py)


# --- the toy Monte Carlo -------------------------------------------------------------------------


def _fit(month: int) -> tuple[float, float, float]:
    row = data.MONTHLY_FIT[month - 1]
    return row[4], row[5], row[6]  # p0, shape, scale


def _draw_rain(rng: random.Random, month: int) -> float:
    p0, shape, scale = _fit(month)
    return 0.0 if rng.random() < p0 else rng.gammavariate(shape, scale)


def _draw_heat(rng: random.Random, month: int) -> float:
    return rng.gauss(data.HEAT_TERMS[month][1], data.HEAT_SD_C)


def _tail(sorted_losses: Sequence[float], q: float) -> tuple[float, float]:
    """VaR_q (the q-quantile) and TVaR_q (mean of the worst (1 − q) share)."""
    n = len(sorted_losses)
    k = min(n - 1, max(0, math.ceil(q * n) - 1))
    tail = sorted_losses[int(math.floor(q * n)) :] or sorted_losses[-1:]
    return sorted_losses[k], sum(tail) / len(tail)


def _metrics(losses: Sequence[float], limit: float, seed: int, data_hash: str, gross: float | None = None, risk: float | None = None) -> RiskMetrics:
    n = len(losses)
    mean = sum(losses) / n
    sd = math.sqrt(max(sum((x - mean) ** 2 for x in losses) / (n - 1), 0.0))
    s = sorted(losses)
    var99, tvar99 = _tail(s, 0.99)
    var995, tvar995 = _tail(s, 0.995)
    risk_premium = risk if risk is not None else mean + RISK_LOAD_SIGMA * sd
    gross_premium = gross if gross is not None else risk_premium / (1 - EXPENSE_RATIO)
    return RiskMetrics(
        expected_loss=_money(mean),
        standard_deviation=_money(sd),
        standard_error=_money(sd / math.sqrt(n)),
        p_attach=sum(1 for x in losses if x > 0) / n,
        p_exhaust=sum(1 for x in losses if x >= limit - 1e-6) / n,
        var_99=_money(var99),
        tvar_99=_money(tvar99),
        var_995=_money(var995),
        tvar_995=_money(tvar995),
        risk_premium=_money(risk_premium),
        gross_premium=_money(gross_premium),
        expected_loss_ratio=(Decimal(str(mean)) / _money(gross_premium)).quantize(Decimal("0.0001")) if gross_premium else Decimal("0"),
        simulations=n,
        seed=seed,
        model_version=MODEL_VERSION,
        data_hash=data_hash,
        loading_note=LOADING_NOTE,
    )


def _loss_distribution(losses: Sequence[float], top: float, bins: int = 20) -> LossDistribution:
    edges = tuple(top * i / bins for i in range(bins + 1))
    counts = [0] * bins
    zero = 0
    for x in losses:
        if x <= 0:
            zero += 1
        else:
            counts[min(bins - 1, max(0, math.ceil(x / top * bins) - 1))] += 1
    s = sorted(losses)
    n = len(s)
    grid = sorted({0.0, *(top * i / 50 for i in range(51)), *s[-200:]})
    exceedance = tuple(ExceedancePoint(x, (n - bisect.bisect_right(s, x)) / n) for x in grid)
    return LossDistribution(edges, tuple(counts), zero, exceedance)


def _convergence(losses: Sequence[float]) -> Convergence:
    points = []
    total = total_sq = 0.0
    checkpoints = sorted({int(round(100 * 2 ** (k / 2))) for k in range(40)} | {len(losses)})
    checkpoints = [c for c in checkpoints if c <= len(losses)]
    j = 0
    for i, x in enumerate(losses, 1):
        total += x
        total_sq += x * x
        if i == checkpoints[j]:
            mean = total / i
            var = max(total_sq / i - mean * mean, 0.0) * i / max(i - 1, 1)
            points.append(ConvergencePoint(i, mean, math.sqrt(var / i)))
            j += 1
            if j == len(checkpoints):
                break
    return Convergence(tuple(points))


def _data_hash() -> str:
    blob = "\n".join(f"{y},{v:.1f}" for y, v in data.SEPTEMBER_RAINFALL_MM).encode()
    return "sha256:" + hashlib.sha256(blob).hexdigest()


def _priced(cover: CoverFacts, metrics: RiskMetrics) -> CoverFacts:
    return dataclasses.replace(
        cover,
        gross_premium=metrics.gross_premium,
        premium_indication_pct=(metrics.gross_premium / cover.limit).quantize(Decimal("0.0001")),
    )


@cache
def _cover_run(deficit: bool) -> tuple[CoverFacts, tuple[float, ...], RiskMetrics]:
    """The September rainfall cover priced on its own run (N_COVER simulations)."""
    cover = rain_cover(9, deficit=deficit)
    rng = random.Random(SEED_COVER + deficit)
    losses = tuple(payout(cover, _draw_rain(rng, 9)) for _ in range(N_COVER))
    metrics = _metrics(losses, float(cover.limit), SEED_COVER + deficit, _data_hash())
    return _priced(cover, metrics), losses, metrics


@cache
def _portfolio() -> tuple[tuple[tuple[CoverFacts, RiskMetrics], ...], tuple[float, ...]]:
    """All 24 covers of the sample year priced jointly: per-cover metrics and annual totals
    per unit of each cover (months independent, one rain and one temperature draw a month)."""
    covers = [c for m in range(1, 13) for c in (rain_cover(m), heat_cover(m))]
    rng = random.Random(SEED_PORTFOLIO)
    per_cover: list[list[float]] = [[] for _ in covers]
    totals = []
    for _ in range(N_PORTFOLIO):
        year_total = 0.0
        for m in range(1, 13):
            rain, heat = _draw_rain(rng, m), _draw_heat(rng, m)
            for k, value in ((2 * (m - 1), rain), (2 * (m - 1) + 1, heat)):
                x = payout(covers[k], value)
                per_cover[k].append(x)
                year_total += x
        totals.append(year_total)
    priced = []
    for cover, losses in zip(covers, per_cover):
        if cover.risk_period_start.month == 9 and cover.unit == "mm":
            priced_cover, _, metrics = _cover_run(False)  # the fact sheet's cover keeps one price
        else:
            metrics = _metrics(losses, float(cover.limit), SEED_PORTFOLIO, _data_hash())
            priced_cover = _priced(cover, metrics)
        priced.append((priced_cover, metrics))
    return tuple(priced), tuple(totals)


# --- documents ------------------------------------------------------------------------------------


def sample_fact_sheet_input(*, deficit: bool = False) -> FactSheetInput:
    """The buyer's fact sheet of the September 2027 excess-rainfall cover (or the deficit one)."""
    cover, _, _ = _cover_run(deficit)
    history = tuple(HistoricalYear(y, v, _money(payout(cover, v))) for y, v in data.SEPTEMBER_RAINFALL_MM)
    return FactSheetInput(
        cover=cover,
        payout_curve=payout_curve(cover),
        history=history,
        document_id=_uuid("fact-sheet", cover.coverage_id),
        issued_at=ISSUED_AT,
        pricing_version="v3",
        issuer=RISK_CARRIER,
    )


def _calibration() -> CalibrationFit:
    p0, shape, scale = _fit(9)
    return CalibrationFit(
        distribution="Zero-inflated gamma",
        method="Maximum likelihood per calendar month: gamma (location 0) on positive totals, point mass at zero for dry months",
        parameters=(
            NamedValue("P(no rain)", p0, note="share of years with 0 mm"),
            NamedValue("Shape k", shape),
            NamedValue("Scale θ", scale, "mm"),
            NamedValue("Mean k·θ", shape * scale * (1 - p0), "mm"),
        ),
        data_sources=(
            IMD_SOURCE,
            DataSource(
                id="POST",
                description="India Post pin code directory, post-office coordinates → pin code centroids",
                data_set="india_pincode_centroids (robust median per pin code)",
                period="Oct 2025",
                attribution="Department of Posts, via data.gov.in, Government Open Data License – India",
                records=19_586,
            ),
        ),
        monthly=tuple(MonthlyFit(r[0], r[1], r[7], r[2], r[3], r[8], r[9]) for r in data.MONTHLY_FIT),
        quantiles=tuple(QuantilePair(q, o, f) for q, o, f in data.SEPTEMBER_QQ),
        statistics=(
            NamedValue("Kolmogorov–Smirnov D", data.SEPTEMBER_KS[0], note=f"p-value {data.SEPTEMBER_KS[1]:.2f}"),
            NamedValue("Years of data", 115),
        ),
    )


def sample_technical_pricing_report_input() -> TechnicalPricingReportInput:
    """The actuary's report on the September 2027 excess-rainfall cover."""
    cover, losses, metrics = _cover_run(False)
    burn = tuple(BurnRow(y, v, _money(payout(cover, v))) for y, v in data.SEPTEMBER_RAINFALL_MM)
    return TechnicalPricingReportInput(
        cover=cover,
        payout_curve=payout_curve(cover),
        metrics=metrics,
        loss_distribution=_loss_distribution(losses, float(cover.limit)),
        convergence=_convergence(losses),
        calibration=_calibration(),
        burn_rows=burn,
        document_id=_uuid("technical-pricing-report", cover.coverage_id),
        issued_at=ISSUED_AT,
        pricing_version="v3",
        notes=(
            "The index is the subdivision-average monthly total; the cover settles on the 0.25° grid cell "
            "holding the pin code centroid, whose variance is larger. A basis-risk adjustment is not applied in this sample.",
            "Years are treated as independent and identically distributed; no trend adjustment (115 years, no "
            "significant linear trend in September totals).",
        ),
    )


INSURER = Party(
    name=RISK_CARRIER,
    address_lines=("14 Residency Road", "Bengaluru 560025", "Karnataka, India"),
    contact_name="Underwriting desk",
    email="underwriting@deccan-parametric.example",
    phone="+91 80 4000 1200",
    tax_id="GSTIN 29AABCD1234E1Z5",
)
CUSTOMER = Party(
    name="Hebbal Growers Farmer Producer Company Ltd.",
    address_lines=("22 Bellary Road, Hebbal", "Bengaluru 560024", "Karnataka, India"),
    contact_name="Finance office",
    email="accounts@hebbal-growers.example",
    phone="+91 80 2333 4455",
    tax_id="GSTIN 29AAFCH5678K1Z2",
    reference=_uuid("customer", "hebbal"),
)
INTERMEDIARY = Party(
    name="Kaveri Risk Brokers Pvt. Ltd.",
    address_lines=("3rd floor, 8 MG Road", "Bengaluru 560001", "Karnataka, India"),
    contact_name="Placement team",
    email="placements@kaveri-brokers.example",
    phone="+91 80 4111 7788",
)


def sample_quote_document_input() -> QuoteDocumentInput:
    """A fast quote for all 24 covers of 2027, 10 units each."""
    priced, totals = _portfolio()
    covers = []
    # A line item (a month) pays at most its sum insured, whichever of its covers pays: one
    # limit of its first (rainfall) cover per unit.
    item_sum = {}
    for cover, _ in priced:
        item_sum.setdefault(line_item_name(cover.risk_period_start, cover.risk_period_end), cover.limit * QUANTITY)
    for cover, metrics in priced:
        covers.append(
            QuoteCover(
                cover=cover,
                quantity=QUANTITY,
                sum_insured=item_sum[line_item_name(cover.risk_period_start, cover.risk_period_end)],
                premium=cover.gross_premium * QUANTITY,
                line_item=line_item_name(cover.risk_period_start, cover.risk_period_end),
                expected_loss=metrics.expected_loss * QUANTITY,
            )
        )
    q = float(QUANTITY)
    annual = tuple(t * q for t in totals)
    gross = sum((c.premium for c in covers), Decimal(0))
    risk = sum((m.risk_premium * QUANTITY for _, m in priced), Decimal(0))
    total_si = sum(item_sum.values(), Decimal(0))
    metrics = _metrics(annual, float(total_si), SEED_PORTFOLIO, _data_hash(), gross=float(gross), risk=float(risk))
    top = max(annual) * 1.05 or 1.0
    step = 10 ** math.floor(math.log10(top / 20))
    top = math.ceil(top / step / 20) * step * 20
    return QuoteDocumentInput(
        quote_id=_uuid("quote", "hebbal", YEAR),
        quote_name="Hebbal Growers — rainfall and heat 2027",
        currency=CURRENCY,
        insurer=INSURER,
        customer=CUSTOMER,
        intermediary=INTERMEDIARY,
        covers=tuple(covers),
        total_sum_insured=total_si,
        gross_premium=gross,
        pricing=AggregatedPricing(metrics=metrics, loss_distribution=_loss_distribution(annual, top)),
        issued_at=ISSUED_AT,
        valid_until=(ISSUED_AT + dt.timedelta(days=30)).date(),
        external_ref="HGFPC-2027-RAIN-HEAT",
        state="completed",
        local_timezone="Asia/Kolkata",
        conditions=(
            "Prices are valid until the date above and for the quantities shown; another quantity or another "
            "risk period needs a new quote.",
            "Payouts are settled on the index published by the data source for the monitoring target, not on "
            "an assessment of actual loss (basis risk stays with the policyholder).",
            "Cover starts only when the policy is accepted and activated before the first risk period begins.",
        ),
    )


def sample_policy_schedule_input() -> PolicyScheduleInput:
    """The policy issued from the sample quote: 12 line items × 2 covers, activated."""
    priced, _ = _portfolio()
    quote = sample_quote_document_input()
    items = []
    for m in range(12):
        (rain, _), (heat, _) = priced[2 * m], priced[2 * m + 1]
        per_unit = rain.limit  # the line item pays at most one limit per unit, whichever cover pays
        items.append(
            PolicyLineItem(
                line_item_id=_uuid("policy-line-item", m),
                name=line_item_name(rain.risk_period_start, rain.risk_period_end),
                quantity=QUANTITY,
                sum_insured=per_unit,
                total_sum_insured=per_unit * QUANTITY,
                covers=(rain, heat),
                premium=(rain.gross_premium + heat.gross_premium) * QUANTITY,
            )
        )
    activated = dt.datetime(2026, 9, 2, 6, 45, 12, tzinfo=dt.UTC)
    return PolicyScheduleInput(
        policy_id=_uuid("policy", "hebbal", YEAR),
        policy_name=line_item_name(dt.date(YEAR, 1, 1), dt.date(YEAR, 12, 31)),
        status="ACCEPTED",
        currency=CURRENCY,
        insurer=INSURER,
        policy_holder=CUSTOMER,
        intermediary=INTERMEDIARY,
        line_items=tuple(items),
        inception_date=dt.date(YEAR, 1, 1),
        expiry_date=dt.date(YEAR, 12, 31),
        total_sum_insured=sum((i.total_sum_insured for i in items), Decimal(0)),
        gross_premium=quote.gross_premium,
        risk_premium=quote.pricing.metrics.risk_premium,
        issued_at=activated + dt.timedelta(minutes=1),
        activated_at=activated,
        signature_confirmed=True,
        quote_id=quote.quote_id,
        external_ref="HGFPC-POL-2027-001",
        local_timezone="Asia/Kolkata",
        exclusions=(
            "No payout where sanctions law prohibits it.",
            "An index value published after a cover's true-up (FINAL) settlement does not change it, except to "
            "correct a publication error of the data source.",
        ),
        notes=(
            "Monitoring of each cover starts automatically at the start of its risk period; no claim is needed. "
            "A cover on a source ladder pays a first amount within days of the end of its risk period and trues "
            "it up on final values (Settlement basis); the others settle once final values are published.",
        ),
    )


def sample_claim_report_input() -> ClaimReportInput:
    """The claim report of the July 2027 excess-rainfall cover: a wet month (31 days of rain
    adding up to 378 mm against a 300 mm trigger), 2.5 units on a 250,000 INR line item; the
    arithmetic and text as activities/document_inputs.py writes them."""
    from models.domain.claims import claim_text
    from models.domain.index_catalog import BY_CODE
    from reports.formatting import format_money

    start, end = _month(7)
    rain = [4.5, 12.0, 0.0, 22.5, 31.0, 18.5, 9.0, 0.5, 14.0, 27.5, 35.0, 21.0, 8.5, 3.0, 0.0, 11.5, 16.0,
            19.5, 6.0, 2.5, 13.0, 24.0, 30.5, 12.5, 7.0, 1.5, 5.0, 9.5, 4.0, 6.5, 2.0]
    path = tuple(ClaimDay(day=start + dt.timedelta(days=i), value=Decimal(str(v)), rung="FINAL",
                          source="IMD-RF-DAILY · IMD 0.25° archive") for i, v in enumerate(rain))
    total = sum((d.value for d in path), Decimal(0))
    spec = BY_CODE["RAINFALL_MONTHLY_TOTAL"]
    per_unit = min(Decimal("100000"), Decimal("10000") + Decimal("500") * (total - Decimal("300")))
    arithmetic = {
        "indexCode": spec.code, "indexValue": str(total), "direction": "ABOVE", "trigger": "300", "exit": "480",
        "minPayoutPerUnit": "10000.00", "payoutPerUnitPerIndexUnit": "500.00", "limitPerUnit": "100000.00",
        "quantity": "2.5", "payoutPerUnit": f"{per_unit:.2f}", "coverPayout": f"{per_unit * Decimal('2.5'):.2f}",
        "lineItemSumInsured": "250000.00", "paidByOtherCoversOfLineItem": "0.00",
        "paid": f"{min(per_unit * Decimal('2.5'), Decimal('250000')):.2f}", "previouslyPaid": "0.00",
    }
    money = lambda amount, currency=CURRENCY: format_money(Decimal(amount), currency)  # noqa: E731
    labels = (
        ("Index over the period", f"{total} mm"),
        ("Payout per unit of cover (the rule)", money(arithmetic["payoutPerUnit"])),
        ("Units of cover on the line item", "2.5"),
        ("This cover's payout", money(arithmetic["coverPayout"])),
        ("Line item's sum insured", money("250000")),
        ("Already paid to its other covers", money("0")),
        ("Paid for this cover", money(arithmetic["paid"])),
    )
    return ClaimReportInput(
        event_id=_uuid("event", "hebbal", "2027-07"), policy_id=_uuid("policy", "hebbal", YEAR),
        policy_name=line_item_name(dt.date(YEAR, 1, 1), dt.date(YEAR, 12, 31)), tenant_name=CUSTOMER.name,
        kind="SETTLEMENT", event_type="parametric_event.validated", validated_day=end + dt.timedelta(days=2),
        index_name=spec.name, unit=spec.unit, aggregation=spec.aggregation, monitoring_target_id="IN-12.875N-077.625E",
        period_start=start, period_end=end, direction="ABOVE", trigger=Decimal("300"), exit=Decimal("480"),
        index_value=total, data_set="IMD-RF-DAILY", revision=1, simulated=False, currency=CURRENCY,
        paid=Decimal(arithmetic["paid"]), path=path, arithmetic=labels,
        text=claim_text(spec, arithmetic, (start, end), CURRENCY, money=money),
        issued_at=dt.datetime.combine(end + dt.timedelta(days=2), dt.time(6), tzinfo=dt.UTC),
        data_set_description="IMD daily gridded rainfall, 0.25° grid: the cell holding the pin code's centroid",
        stage="FINAL", snapshot_sha256="9c1f0e6a4b2d8e7f3a5c6b1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f",
    )


# The four demo pin codes' monitoring targets (their ids as the reference data names 0.25° cells).
PORTFOLIO_TARGETS = {
    "IN-G025-N12875-E77625": "Bengaluru GPO (pin code 560001), Karnataka",
    "IN-G025-N18875-E72875": "Mumbai GPO (pin code 400001), Maharashtra",
    "IN-G025-N28625-E77125": "New Delhi GPO (pin code 110001), Delhi",
    "IN-G025-N13125-E80375": "Chennai GPO (pin code 600001), Tamil Nadu",
}


def sample_portfolio_result() -> dict:
    """A stored portfolio result (the PortfolioView's JSON as models/db/portfolio.py stores it),
    computed by the real engine (activities/pricing/portfolio.py simulate_book, 65,536 paths,
    the service's seed) for a book like bench/portfolio.py --demo's: the four demo pin codes,
    250 policies each of 10,000-200,000 INR a month for 2027 (fixed seed 27), the engine's
    proposed covers, premium 15.4 % of the sum insured: 1,000 policies, 11,000 line items."""
    import json
    from pathlib import Path

    return json.loads((Path(__file__).with_name("portfolio_result.json")).read_text(encoding="utf-8"))


def sample_portfolio_report_input(tenant: bool = False):
    """The portfolio risk report of the sample result: the whole book, or (``tenant``) one
    tenant's book, version 3."""
    from reports.inputs import portfolio_report_input

    tenant_id = _uuid("tenant", "hebbal") if tenant else None
    return portfolio_report_input(
        sample_portfolio_result(),
        report_id=_uuid("portfolio-risk-report", tenant_id or "all", 3),
        scope=CUSTOMER.name if tenant else "Whole book",
        tenant_id=tenant_id,
        version=3,
        book_hash="9c41d0e7a2b85f3364e1c0d9b7a4f2e6185c3d0a9b7e4f21c6d8a0b3e5f79d12",
        as_of=dt.date(2026, 11, 26),
        computed_at=dt.datetime(2026, 11, 26, 9, 12, 31, tzinfo=dt.UTC),
        workflow_id=f"portfolio:{tenant_id or 'all'}:9c41d0e7a2b85f33",
        issuer=INSURER.name,
        issued_at=dt.datetime(2026, 11, 26, 9, 14, 5, tzinfo=dt.UTC),
        target_names=PORTFOLIO_TARGETS,
    )
