"""Our stored pricing runs, coverages and policies → the report inputs (pure mapping).

Kept apart from the activities so the mapping can be read and tested on its own."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

from scipy.stats import t as t_dist

from models.db.records import CoverageRow, LineItemRow, PolicyRow, PricingRunRow
from activities.pricing.basis import data_basis
from models.domain.actors import shown_actor
from models.domain.basis_terms import CALIBRATION_RULE, initial_rule_words, rungs
from models.domain.data_sets import DATA_SETS
from models.domain.index_catalog import BY_CODE
from models.domain.money import from_minor
from models.domain.quotes import UncoveredMonth
from models.domain.settlement_basis import SettlementBasis
from models.domain.statuses import PricingRunStatus
from models.domain.terms import CoverTerms
from models.temporal.quotes import CoverSnapshot
from reports.formatting import format_money, format_period_short
from reports.inputs import (
    Approval,
    BandDriverRow,
    BurnRow,
    BurnViewRow,
    CalibrationFit,
    Convergence,
    ConvergencePoint,
    CoverFacts,
    DataBasisFacts,
    DataSource,
    Direction,
    ExceedancePoint,
    FactSheetInput,
    HistoricalYear,
    LadderRungFacts,
    LossDistribution,
    MonthlyFit,
    NamedValue,
    Party,
    PolicyLineItem,
    PolicyScheduleInput,
    QuantilePair,
    RiskMetrics,
    SettlementLadderFacts,
    TechnicalPricingReportInput,
    payout_curve_of,
)

IMD_SUBDIVISIONS = DataSource(
    id="IMD-SUBDIV-MONTHLY",
    description="IMD monthly rainfall by meteorological subdivision",
    data_set="rainfall_in_india_1901-2015.csv",
    period="1901–2015",
    attribution="India Meteorological Department, data.gov.in (GODL-India)",
)
IMD_NORMALS = DataSource(
    id="IMD-DISTRICT-NORMALS",
    description="IMD long-period monthly rainfall normals by district",
    data_set="district_wise_rainfall_normal.csv",
    period="long-period normals",
    attribution="India Meteorological Department, data.gov.in (GODL-India)",
)
HOURLY = DataSource(
    id="BEIJING-AOTIZHONGXIN-HOURLY",
    description="Hourly rain, wind and temperature at one CMA station (structure of rain, spread of wind and heat)",
    data_set="beijing_aotizhongxin_hourly_weather_2013-2017.csv",
    period="2013–2017",
    attribution="Zhang et al. (2017), UCI Machine Learning Repository, CC BY 4.0",
)
IBTRACS = DataSource(
    id="IBTRACS-NI",
    description="Tropical-cyclone best tracks, North Indian Ocean (IMD winds): the cyclone wind cover",
    data_set="ibtracs_north_indian_ocean_1982-2023.csv",
    period="1982–2022",
    attribution="Knapp et al. (2010), IBTrACS, NOAA NCEI",
)
IMD_TMAX = DataSource(
    id="IMD-TMAX-1DEG",
    description="IMD 1° gridded daily maximum temperature (derived parameters per cell and month)",
    data_set="calibration/heat_cells.csv",
    period="1951–2024",
    attribution="Srivastava, Rajeevan & Kshirsagar (2009), India Meteorological Department",
)
SCALE = DataSource(
    id="RAIN-SCALE",
    description="Cell-versus-area variance factors: IMD 0.25° Delhi-NCR districts; GHCN-Daily Colaba",
    data_set="calibration/rain_scale.json",
    period="2013–2024; 1901–1970",
    attribution="Pai et al. (2014), IMD; Menne et al. (2012), GHCN-Daily, NOAA NCEI",
)
PARTIAL = DataSource(
    id="RAIN-PARTIAL",
    description="Time-scale law of partial months (CV ratio, dry probability): IMD 0.25° Delhi-NCR districts; "
    "GHCN-Daily Colaba",
    data_set="calibration/rain_partial.json",
    period="2013–2024; 1901–1970",
    attribution="Pai et al. (2014), IMD; Menne et al. (2012), GHCN-Daily, NOAA NCEI",
)
SOURCES = {
    "RAINFALL": (IMD_SUBDIVISIONS, IMD_NORMALS, SCALE, PARTIAL, HOURLY),
    "WIND": (IBTRACS,),
    "TEMPERATURE": (IMD_TMAX,),
}

MODELS = {
    "RAINFALL": (
        "Zero-inflated gamma per calendar month, Gaussian copula across months",
        "Gamma by maximum likelihood on the subdivision's wet months, rescaled to the district normal and "
        "widened to the cell's scale (CV x1.45 Jun-Sep, x1.12 otherwise; logit P(dry) +1.47); dry-month "
        "probability and copula correlation from the subdivision history; shrunk linear trend projected "
        "to the risk year; a partial month from its own margin (CV x f^-0.41 Jun-Sep, x f^-0.30 otherwise, "
        "tabulated from daily data; more often dry)",
    ),
    "WIND": (
        "Poisson gale-force cyclone events with an exponential excess over 62 km/h",
        "Event rates and intensities at the target from the IBTrACS tracks (modified Rankine wind field)",
    ),
    "TEMPERATURE": (
        "Normal monthly maximum at the nearest IMD 1° cell, shrunk linear trend to the risk year",
        "Level, trend and spread per cell and month from IMD's 1951-2024 record",
    ),
}

NOTES = {
    "RAINFALL": (
        "The cell-scale factors come from two regions (Delhi-NCR, Mumbai) and are applied everywhere; "
        "basis risk against an area index: correlation 0.79, no payout in 46 % of local 1-in-10 wet months.",
        "A partial month is the month's total scaled by its share of days, which understates the spread of short periods.",
    ),
    "WIND": ("Only cyclone winds are priced: the cover is offered only where >= 3 gale events per calendar month "
             "are in the 1982-2022 record; the wind field around a storm is an assumption.",),
    "TEMPERATURE": ("The cover pays on the 1° cell's temperature: a town that differs from its cell (hills, coast) "
                    "carries basis risk.",),
}


def _dec(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def cover_facts(
    terms: CoverTerms,
    *,
    coverage_id: uuid.UUID,
    premium_pct: Decimal,
    target: dict,
    pin_codes: tuple[str, ...] = (),
    risk_carrier: str | None = None,
    label: str | None = None,
    cell: str = "",
    settlement_basis: SettlementBasis | None = None,
) -> CoverFacts:
    """What the documents say about a cover: its terms in words and numbers, the data it
    is paid on and priced on (`cell`: a heat cover's IMD 1° cell, when the run named it), and
    the settlement basis frozen into it (None: sold before the ladder)."""
    spec = BY_CODE[terms.index_code]
    basis = data_basis(terms.index_code, terms.data_set, cell)
    return CoverFacts(
        coverage_id=str(coverage_id),
        label=label or f"{spec.name}, {terms.start:%B %Y}",
        index_name=spec.name,
        index_description=spec.description,
        unit=spec.unit,
        direction=Direction(terms.direction),
        monitoring_target_id=target["id"],
        monitoring_target_name=target["name"],
        latitude=float(target["latitude"]),
        longitude=float(target["longitude"]),
        risk_period_start=terms.start,
        risk_period_end=terms.end,
        trigger=terms.trigger,
        exit=terms.exit,
        min_payout=terms.min_payout,
        payout_per_unit=terms.payout_per_unit,
        limit=terms.limit,
        currency=terms.currency,
        premium_indication_pct=_dec(premium_pct),
        gross_premium=(terms.limit * _dec(premium_pct)).quantize(Decimal("0.01")),
        pin_codes=pin_codes,
        data_source=(
            spec.data_source_description if basis.settlement_data_set == spec.data_set_id else basis.settlement_data
        ),
        risk_carrier=risk_carrier,
        data_basis=DataBasisFacts(
            settlement_data_set=basis.settlement_data_set,
            settlement_data=basis.settlement_data,
            settlement_latency=DATA_SETS[basis.settlement_data_set].latency,
            pricing_data_set=basis.pricing_data_set,
            pricing_data=basis.pricing_data,
            mapping=basis.mapping,
            identity=basis.identity,
            settlement_final=DATA_SETS[basis.settlement_data_set].final,
            summary=basis.summary,
        ),
        settlement_ladder=ladder_facts(settlement_basis, terms.end),
    )


def ladder_facts(basis: SettlementBasis | None, end: dt.date) -> SettlementLadderFacts | None:
    """A cover's settlement basis for the documents, its deadlines dated from the period's
    last day `end`; None for a cover sold before the ladder."""
    if basis is None:
        return None
    return SettlementLadderFacts(
        rungs=tuple(LadderRungFacts(r.rung, r.data_set, r.product) for r in rungs(basis)),
        calculation_deadline_days=basis.calculation_deadline_days,
        calculation_deadline=basis.calculation_deadline(end),
        true_up_window_days=basis.true_up_window_days,
        true_up_deadline=basis.true_up_deadline(end),
        initial_rule=initial_rule_words(basis),
        calibration=CALIBRATION_RULE if basis.fallback_data_set is not None else "",
    )


def coverage_cover_facts(coverage: CoverageRow, run: PricingRunRow, target: dict, pin_codes: tuple[str, ...]) -> CoverFacts:
    return cover_facts(
        coverage.terms,
        coverage_id=coverage.id,
        premium_pct=_dec(run.gross_premium_indication_pct),
        target=target,
        pin_codes=pin_codes,
        risk_carrier=coverage.risk_carrier,
        label=coverage.label,
        cell=_cell_of(run),
        settlement_basis=coverage.settlement_basis,
    )


def _cell_of(run: PricingRunRow) -> str:
    """The heat cover's IMD 1° cell as its run's report names it ("" when it does not)."""
    return ((run.report or {}).get("dataBasis") or {}).get("cell") or ""


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def run_approval(run: PricingRunRow) -> Approval | None:
    """Who ran and who published an actuary's rerun (a candidate: not yet published). None
    for a run published by its own requester when priced (the catalogue's own pricing, and
    runs from before four eyes): the documents name nobody, as before."""
    published = run.status == PricingRunStatus.COMPLETED
    if published and run.published_by in (None, run.requested_by):
        return None
    return Approval(
        run_by=shown_actor(run.requested_by), published_by=shown_actor(run.published_by) if published else None
    )


def _issued(run: PricingRunRow) -> dt.datetime:
    """A published rerun's documents are issued when published; others when priced."""
    return _aware(run.published_at or run.completed_at)


def fact_sheet_input(cover: CoverFacts, run: PricingRunRow, document_id: uuid.UUID) -> FactSheetInput:
    burn = run.burn or {}
    return FactSheetInput(
        cover=cover,
        payout_curve=payout_curve_of(cover),
        history=tuple(
            HistoricalYear(year=y["year"], index_value=y["index"], payout=_dec(y["payout"])) for y in burn.get("years", [])
        ),
        document_id=str(document_id),
        issued_at=_issued(run),
        pricing_version=f"v{run.version}",
        issuer=cover.risk_carrier,
        approval=run_approval(run),
    )


def technical_report_input(
    cover: CoverFacts, index_code: str, run: PricingRunRow, document_id: uuid.UUID, data_basis_risk: str = "",
) -> TechnicalPricingReportInput:
    """`data_basis_risk`: the data set's own basis risk in a sentence (models/domain/basis_risk.py
    `report_sentence`); "" for a data set without a source ladder."""
    metrics = run.metrics
    report = run.report
    burn = run.burn or {}
    currency = cover.currency
    risk_type = BY_CODE[index_code].risk_type_id
    loss = report["loss"]
    fit = report["fit"]
    distribution, method = MODELS[risk_type]
    site = report.get("site", {})
    statistics = [NamedValue(name="Model mean of the period index", value=fit["simulated_mean"], unit=cover.unit)]
    if fit.get("observed_mean") is not None:
        statistics.append(NamedValue(name="Observed mean of the period index", value=fit["observed_mean"], unit=cover.unit,
                                     note=f"{fit['observed_years']} years"))
    gross = from_minor(run.gross_premium_minor, currency)
    return TechnicalPricingReportInput(
        cover=cover,
        payout_curve=payout_curve_of(cover),
        metrics=RiskMetrics(
            expected_loss=_dec(metrics.expected_loss),
            standard_deviation=_dec(metrics.standard_deviation),
            standard_error=_dec(metrics.expected_loss_standard_error),
            p_attach=float(metrics.probability_of_attachment),
            p_exhaust=float(metrics.probability_of_exhaustion),
            var_99=_dec(metrics.var99),
            tvar_99=_dec(metrics.tvar99),
            var_995=_dec(metrics.var995),
            tvar_995=_dec(metrics.tvar995),
            risk_premium=_dec(metrics.expected_loss),
            gross_premium=gross,
            expected_loss_ratio=_dec(run.expected_loss_ratio),
            simulations=run.simulations,
            seed=run.seed,
            model_version=run.model_version,
            data_hash=run.data_hash,
            loading_note=(
                "Risk premium = expected loss; gross premium = risk premium ÷ expected loss ratio. "
                if metrics.premium_method is None
                else f"Gross premium: {metrics.premium_method}. "
            )
            + f"Standard error from {metrics.batches} independently scrambled Sobol' batches "
            f"({metrics.method}).",
            premium_parts=_premium_parts(metrics),
            checks=_checks(metrics, run.burn or {}, currency),
        ),
        loss_distribution=LossDistribution(
            bin_edges=tuple(loss["bin_edges"]),
            counts=tuple(loss["counts"]),
            zero_count=loss["zero_count"],
            exceedance=tuple(ExceedancePoint(loss=x, probability=p) for x, p in loss["exceedance"]),
        ),
        convergence=Convergence(
            points=tuple(
                # point k (k = 2, 3, ... batch means): the 95 % interval is t(k-1) standard errors
                ConvergencePoint(
                    simulations=n, estimate=e, standard_error=se, half_width_95=float(t_dist.ppf(0.975, k + 1)) * se
                )
                for k, (n, e, se) in enumerate(report["convergence"]["points"])
            )
        ),
        calibration=CalibrationFit(
            distribution=distribution,
            method=method,
            parameters=(
                NamedValue(name="Trigger", value=float(cover.trigger), unit=cover.unit),
                *(() if cover.exit is None else (NamedValue(name="Exit", value=float(cover.exit), unit=cover.unit),)),
            ),
            data_sources=SOURCES.get(risk_type, (HOURLY,)),
            monthly=tuple(MonthlyFit(month=m, observed_mean=o, fitted_mean=f) for m, o, f in fit["monthly"]),
            quantiles=tuple(
                QuantilePair(probability=p, observed=o, fitted=f) for p, o, f in fit["quantiles"] if o is not None
            ),
            statistics=tuple(statistics),
        ),
        burn_rows=tuple(
            BurnRow(
                year=y["year"],
                index_value=y["index"],
                payout=_dec(y["payout"]),
                adjusted_index_value=y["index_used"] if burn.get("detrended") else None,
            )
            for y in burn.get("years", [])
        ),
        document_id=str(document_id),
        issued_at=_issued(run),
        pricing_version=f"v{run.version}",
        approval=run_approval(run),
        burn_views=_burn_views(burn),
        band_drivers=_band_drivers(report),
        hold_reason=burn.get("hold_reason") or None,
        band_high=None if metrics.expected_loss_band_high is None else _dec(metrics.expected_loss_band_high),
        data_basis_risk=data_basis_risk,
        notes=(
            f"Calibrated for subdivision {site.get('subdivision', '?')} "
            f"(district match: {site.get('matchKind', '?')}).",
            f"Burn analysis: {burn.get('trend_method') or 'no history'}; {burn.get('note') or ''}".strip().rstrip(";"),
            *NOTES[risk_type],
        ),
    )


def snapshot_facts(cover: CoverSnapshot, target: dict, risk_carrier: str) -> CoverFacts:
    return cover_facts(
        cover.terms,
        coverage_id=cover.coverage_id,
        premium_pct=cover.gross_premium_pct,
        target=target,
        risk_carrier=risk_carrier,
        settlement_basis=cover.settlement_basis,
    )


def policy_schedule_input(
    policy: PolicyRow, line_items: list[LineItemRow], target: dict, tenant_name: str,
    risk_carrier: str, document_id: uuid.UUID, uncovered: list[UncoveredMonth] | None = None,
) -> PolicyScheduleInput:
    """`uncovered`: the months of its quote's risk period without a line item (the schedule's
    notes say so, and why: docs/quotes-and-policies.md)."""
    currency = policy.currency
    items = []
    for row in line_items:
        covers = row.covers
        items.append(
            PolicyLineItem(
                line_item_id=str(row.id),
                name=row.name,
                quantity=_dec(row.quantity),
                sum_insured=from_minor(covers[0].limit_minor, currency),
                total_sum_insured=from_minor(row.total_sum_insured_minor, currency),
                covers=tuple(snapshot_facts(c, target, risk_carrier) for c in covers),
                min_payout=from_minor(row.min_payout_minor, currency),
                payout_per_unit=from_minor(row.payout_per_unit_minor, currency),
                premium=from_minor(row.premium_minor, currency),
            )
        )
    return PolicyScheduleInput(
        policy_id=str(policy.id),
        policy_name=policy.name,
        status=policy.status,
        currency=currency,
        insurer=Party(name=risk_carrier),
        policy_holder=Party(name=tenant_name, reference=policy.external_ref),
        line_items=tuple(items),
        inception_date=policy.inception_date,
        expiry_date=policy.expiry_date,
        total_sum_insured=from_minor(policy.total_sum_insured_minor, currency),
        gross_premium=from_minor(policy.gross_premium_minor, currency),
        # a cancelled policy's schedule is issued again at its cancellation, saying so
        issued_at=_aware(policy.canceled_at or policy.activated_at or policy.updated_at),
        activated_at=None if policy.activated_at is None else _aware(policy.activated_at),
        canceled_at=None if policy.canceled_at is None else _aware(policy.canceled_at),
        signature_confirmed=bool(policy.signature_confirmed),
        risk_premium=from_minor(policy.risk_premium_minor, currency),
        quote_id=str(policy.quote_id),
        external_ref=policy.external_ref,
        local_timezone="Asia/Kolkata",
        notes=tuple(
            f"Not covered: {format_period_short(m.start, m.end)}. No line item for these days: {m.detail}."
            for m in uncovered or ()
        ),
    )


def _premium_parts(m) -> tuple[tuple[str, Decimal, str], ...]:
    """The risk load's parts of a run (activities/pricing/loading.py), for the report."""
    if m.premium_method is None:
        return ()
    return (
        ("Expected loss (adjusted)", _dec(m.adjusted_expected_loss), "model EL, or its blend with the burn cost"),
        ("Uncertainty load", _dec(m.uncertainty_load), "multiple of the parameter standard deviation"),
        ("Capital load", _dec(m.capital_load), f"cost of capital on {_dec(m.capital)} (PML − EL)"),
        ("Technical premium", _dec(m.technical_premium), ""),
        ("Expenses", _dec(m.expenses), "share of the gross premium"),
        ("Minimum premium", _dec(m.minimum_premium), "minimum rate on line"),
    )


def _burn_views(burn: dict) -> tuple[BurnViewRow, ...]:
    """The burn on the record's three views (runs of pricing-2026.4 on; none before)."""
    return tuple(
        BurnViewRow(
            name=v["name"], first_year=v["first_year"], last_year=v["last_year"], burn_rate=v["burn_cost_rate"],
            burn_se_rate=v["burn_cost_se_rate"], frequency=v["payout_frequency"], basis=v["basis"], holds=bool(v["holds"]),
        )
        for v in burn.get("views", ())
    )


def _band_drivers(report: dict) -> tuple[BandDriverRow, ...]:
    """The parameter band's drivers (runs of pricing-2026.4 on; none before)."""
    drivers = (report.get("parameterBand") or {}).get("drivers") or ()
    cent = Decimal("0.01")
    return tuple(
        BandDriverRow(name=d["name"], low=Decimal(repr(d["low"])).quantize(cent), high=Decimal(repr(d["high"])).quantize(cent),
                      sd=Decimal(repr(d["sd"])).quantize(cent), share=d["share"], note=d["note"])
        for d in drivers
    )


def _checks(m, burn: dict, currency: str) -> tuple[tuple[str, str, str], ...]:
    """The review's checks of a run: parameter band and burn against model."""
    if m.expected_loss_band_low is None:
        return ()
    rows = [
        (
            "EL parameter band (5–95 %)",
            f"{format_money(_dec(m.expected_loss_band_low), currency)} – "
            f"{format_money(_dec(m.expected_loss_band_high), currency)}",
            (
                "every driver: sampling, cell scale, trend, settlement-data mapping (table below)"
                if burn.get("views")
                else "bootstrap over the calibration years"
            )
            + f"; σ_param {format_money(_dec(m.parameter_standard_deviation), currency)}",
        ),
        (
            "Burn against model",
            m.burn_check or "–",
            ("z = " + str(m.burn_z_score) if m.burn_z_score is not None else "no history")
            + ("; EL blended with the burn" if m.burn_check == "DISAGREES" else "")
            + ("; a view of the record lies above the band: held for an actuary" if m.burn_check == "HELD" else "")
            + (f"; {burn.get('trend_method')}" if burn.get("trend_method") else ""),
        ),
    ]
    return tuple(rows)


async def claim_report_input(tenant_id: str, event_id: uuid.UUID):
    """A validated event, its line item, its settlement index, policy and tenant, as the claim
    report's input (the same arithmetic as the API's claim explanation)."""
    from models.db import settlement as settlement_db
    from models.db import settlement_snapshots as snapshots_db
    from models.db.core import json_value
    from models.db.tables import Policy, Tenant
    from models.domain.claims import claim_arithmetic, claim_text, index_path
    from models.domain.index_catalog import BY_CODE
    from models.domain.money import from_minor
    from reports.inputs import ClaimDay, ClaimReportInput

    row = await settlement_db.event_of(tenant_id, event_id)
    if row is None:
        raise LookupError(f"event {event_id} of tenant {tenant_id} does not exist")
    item = await settlement_db.line_item_of(tenant_id, row["line_item_id"])
    index_row = await settlement_db.index_of(row["coverage_id"], row["revision"])
    snapshot = await snapshots_db.snapshot_of(row["coverage_id"], row["revision"])
    policy = await Policy.select(Policy.name).where(Policy.id == row["policy_id"]).first()
    tenant = await Tenant.select(Tenant.name).where(Tenant.id == uuid.UUID(str(tenant_id))).first()
    a = claim_arithmetic(row, item, snapshot)
    spec = BY_CODE[a["indexCode"]]
    cover = next(c for c in item.covers if c.coverage_id == row["coverage_id"])
    counted = set(a.get("countedDays") or [])
    path = tuple(
        ClaimDay(day=dt.date.fromisoformat(p["day"]), value=Decimal(p["value"]), counted=p["day"] in counted,
                 rung=p["rung"], source=" · ".join(x for x in (p["dataSet"], p["source"]) if x))
        for p in index_path(json_value(index_row["path"]) if index_row else [], a.get("countedDays"), row["data_set"],
                            snapshot)
    )
    cur = item.currency

    def money(amount: str | None, currency: str = cur) -> str:  # the documents' format: ₹250,000.00
        return "n/a" if amount is None else format_money(Decimal(amount), currency)

    labels = [
        ("Index over the period", f"{a['indexValue']} {'days' if spec.aggregation == 'DAILY_COUNT' else spec.unit}"),
        ("Payout per unit of cover (the rule)", money(a["payoutPerUnit"])),
        ("Units of cover on the line item", a["quantity"]),
        ("This cover's payout", money(a["coverPayout"])),
        ("Line item's sum insured", money(a["lineItemSumInsured"])),
        ("Already paid to its other covers", money(a["paidByOtherCoversOfLineItem"])),
        ("Paid for this cover", money(a["paid"])),
    ]
    if row["kind"] == "ADJUSTMENT":
        labels.append(("Paid before this revision", money(a["previouslyPaid"])))
    if a["stage"] == "INITIAL" and a.get("paidIndex") is not None:
        unit = spec.unit if spec.aggregation != "DAILY_COUNT" else "days"
        labels[1:1] = [("Its stated error (1 σ)", f"{a['indexError']} {unit}"),
                       (f"Index paid on now (less {a['initialErrorShare']} × the error)", f"{a['paidIndex']} {unit}")]
    return ClaimReportInput(
        event_id=str(row["id"]), policy_id=str(row["policy_id"]), policy_name=policy["name"] if policy else "",
        tenant_name=tenant["name"] if tenant else str(tenant_id), kind=row["kind"], event_type=row["event_type"],
        validated_day=row["validated_day"], index_name=spec.name, unit=spec.unit, aggregation=spec.aggregation,
        monitoring_target_id=(await settlement_db.target_of(row["coverage_id"])) or "", period_start=cover.start,
        period_end=cover.end, direction=cover.direction, trigger=cover.trigger, exit=cover.exit,
        index_value=Decimal(row["index_value"]), data_set=row["data_set"], revision=row["revision"],
        data_set_description=DATA_SETS[row["data_set"]].description if row["data_set"] in DATA_SETS else "",
        simulated=bool(row["simulated"]), currency=row["currency"], paid=from_minor(row["payout_minor"], row["currency"]),
        path=path, arithmetic=tuple(labels), text=claim_text(spec, a, (cover.start, cover.end), row["currency"], money=money),
        issued_at=dt.datetime.now(dt.timezone.utc), stage=a["stage"],
        snapshot_sha256="" if snapshot is None else snapshot["sha256"],
    )


async def portfolio_report_data(scope: str, version: int, report_id: uuid.UUID, issuer: str):
    """A stored portfolio result (models/db/portfolio.py) as the portfolio risk report's input,
    with the tenant's and the targets' names; None when the scope has no such version."""
    from models.db import portfolio_reports as reports_db
    from models.db.portfolio import ALL
    from reports.inputs import portfolio_report_input

    row = await reports_db.result_of(scope, version)
    if row is None:
        return None
    result = row["result"]
    targets = [t["monitoringTargetId"] for t in result["byTarget"]]
    targets += [t["monitoringTargetId"] for y in result["asIfYears"] for t in y["byTarget"]]
    tenant = None if scope == ALL else scope
    as_of, computed_at = row["as_of"], row["computed_at"]
    if isinstance(as_of, str):
        as_of = dt.date.fromisoformat(as_of)
    if isinstance(computed_at, str):
        computed_at = dt.datetime.fromisoformat(computed_at)
    if computed_at.tzinfo is None:  # SQLite gives the stored UTC time back naive
        computed_at = computed_at.replace(tzinfo=dt.timezone.utc)
    return portfolio_report_input(
        result, report_id=str(report_id),
        scope="Whole book" if tenant is None else (await reports_db.tenant_name(tenant)) or tenant,
        tenant_id=tenant, version=row["version"], book_hash=row["book_hash"], as_of=as_of, computed_at=computed_at,
        workflow_id=row["workflow_id"], issuer=issuer, issued_at=dt.datetime.now(dt.timezone.utc),
        target_names=await reports_db.target_names(targets),
    )
