"""Activities of a coverage pricing run: load inputs, simulate, publish, record failure."""

from __future__ import annotations

import time
from decimal import Decimal

from temporalio import activity

from activities.site_models import site_model
from models.db import catalogue as catalogue_db
from models.db import pricing as pricing_db
from models.domain.risk_metrics import RiskMetrics
from models.domain.statuses import PricingRunStatus
from models.settings import load_settings
from models.temporal.pricing import (
    PriceCoverageInput,
    PricingOutcome,
    PricingRunResult,
    PublishPricingInput,
    SimulationInput,
)

FRACTION = Decimal("0.00000001")


@activity.defn
async def start_pricing_run(run: PriceCoverageInput) -> SimulationInput:
    """Mark the run RUNNING and gather its inputs (the coverage's terms and target)."""
    row = await catalogue_db.coverage_row(run.coverage_id)
    if row is None:
        raise ValueError(f"coverage {run.coverage_id} does not exist")
    await pricing_db.ensure_pricing_run(
        run.coverage_id, run.version, run.simulations, run.seed, run.expected_loss_ratio, run.requested_by, row.currency
    )
    await pricing_db.mark_run(run.coverage_id, run.version, PricingRunStatus.RUNNING)
    site = await catalogue_db.site_of(row.monitoring_target_id)
    return SimulationInput(run=run, site=site, terms=row.terms)


def _rate(value: float) -> Decimal:
    """The engine's rate on limit (a fraction) as stored: exact to 1e-8."""
    return Decimal(repr(float(value))).quantize(FRACTION)


class _Progress:
    """Heartbeats `{"stage", "done", "total"}` (paths) at most every half second: they keep
    the activity alive and feed the reprice progress bar."""

    def __init__(self) -> None:
        self._last = 0.0

    def stage(self, stage: str, done: int = 0, total: int = 0) -> None:
        activity.heartbeat({"stage": stage, "done": done, "total": total})

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last >= 0.5 or done >= total:
            self._last = now
            self.stage("simulating", done, total)


def load_parameters():
    """The risk load's parameters from the settings (PRICING_* environment variables)."""
    from activities.pricing.loading import LoadParameters

    s = load_settings()
    return LoadParameters(
        expense_ratio=float(s.pricing_expense_ratio),
        uncertainty_multiplier=float(s.pricing_uncertainty_multiplier),
        capital_cost_rate=float(s.pricing_capital_cost_rate),
        capital_quantile=float(s.pricing_capital_quantile),
        min_rate_on_line=float(s.pricing_min_rate_on_line),
    )


@activity.defn
def simulate_coverage(request: SimulationInput) -> PricingOutcome:
    """Monte Carlo pricing, parameter band, burn check, premium and the report's summaries of
    one coverage (CPU, on the worker's thread pool)."""
    from activities.pricing import (
        CoverTerms,
        as_dict,
        burn_analysis,
        price_sample,
        simulate_payouts,
    )
    from activities.pricing.loading import loss_ratio_premium, risk_loaded_premium
    from activities.pricing.results import money
    from activities.pricing.summaries import (
        convergence_summary,
        fit_summary,
        loss_summary,
    )
    from activities.pricing.uncertainty import parameter_bands

    started = time.perf_counter()
    terms = CoverTerms.of(request.terms, cover_id=str(request.run.coverage_id))
    progress = _Progress()
    progress.stage("calibrating")
    model = site_model(request.site)
    run = request.run
    sample = simulate_payouts(model, [terms], run.simulations, run.seed, progress=progress)
    priced = price_sample(model, [terms], sample, run.seed, float(run.expected_loss_ratio)).covers[0]
    progress.stage("parameter uncertainty", sample.n, sample.n)
    band = parameter_bands(model, [terms], run.seed)[0]
    progress.stage("burn analysis", sample.n, sample.n)
    burn = burn_analysis(model, terms, priced, parameter_sd=band.sd)
    m = priced.metrics
    adjusted = float(burn.credibility_expected_loss if burn.review else m.expected_loss)
    limit = float(terms.limit)
    if run.expected_loss_ratio_override:
        premium = loss_ratio_premium(adjusted, float(run.expected_loss_ratio))
    else:
        params = load_parameters()
        pml = float(m.var_99 if params.capital_quantile == 0.99 else m.var_995)
        premium = risk_loaded_premium(adjusted, band.sd, pml, limit, params)
    gross = money(premium.gross_premium)
    report = {
        "loss": as_dict(loss_summary(sample.dense(0), limit)),
        "convergence": as_dict(convergence_summary(sample)),
        "fit": as_dict(fit_summary(model, terms.index_code, terms.risk_start, terms.risk_end, run.seed)),
        "site": {
            "subdivision": model.site.subdivision,
            "matchKind": model.site.match_kind,
            "normalsDistrict": model.site.normals_district,
            "normalsState": model.site.normals_state,
        },
        "parameterBand": {"replicates": list(band.replicates), "method": band.method},
        "premium": as_dict(premium),
    }
    burn_check = "NO_HISTORY" if burn.z_score is None else ("DISAGREES" if burn.review else "AGREES")
    metrics = RiskMetrics(
        expected_loss=m.expected_loss,
        expected_loss_standard_error=m.expected_loss_se,
        standard_deviation=m.std_dev,
        probability_of_attachment=Decimal(repr(m.prob_attach)),
        probability_of_exhaustion=Decimal(repr(m.prob_exhaust)),
        var99=m.var_99,
        tvar99=m.tvar_99,
        var995=m.var_995,
        tvar995=m.tvar_995,
        relative_standard_error=Decimal(repr(m.relative_se)),
        variance_reduction=Decimal(repr(m.variance_reduction)),
        method=priced.method,
        batches=priced.batches,
        parameter_standard_deviation=money(band.sd),
        expected_loss_band_low=money(band.low),
        expected_loss_band_high=money(band.high),
        burn_z_score=None if burn.z_score is None else Decimal(repr(round(burn.z_score, 4))),
        burn_check=burn_check,
        adjusted_expected_loss=money(premium.adjusted_expected_loss),
        uncertainty_load=money(premium.uncertainty_load),
        capital=money(premium.capital),
        capital_load=money(premium.capital_load),
        technical_premium=money(premium.technical_premium),
        expenses=money(premium.expenses),
        minimum_premium=money(premium.minimum_premium),
        premium_method=premium.method,
    )
    risk_premium = money(premium.adjusted_expected_loss)
    return PricingOutcome(
        model_version=priced.model_version,
        data_hash=priced.data_hash,
        simulations=priced.n_paths,
        method=priced.method,
        risk_premium=risk_premium,
        risk_premium_pct=_rate(float(risk_premium) / limit),
        gross_premium=gross,
        gross_premium_indication_pct=_rate(float(gross) / limit),
        metrics=metrics.to_record(),
        burn=as_dict(burn),
        report=report,
        seconds=time.perf_counter() - started,
        expected_loss_ratio=(risk_premium / gross).quantize(FRACTION) if gross > 0 else None,
    )


@activity.defn
async def publish_pricing_run(request: PublishPricingInput) -> PricingRunResult:
    await pricing_db.publish_run(request.run.coverage_id, request.run.version, request.outcome)
    return PricingRunResult(
        coverage_id=request.run.coverage_id,
        version=request.run.version,
        status=PricingRunStatus.COMPLETED,
        risk_premium=request.outcome.risk_premium,
        gross_premium_indication_pct=request.outcome.gross_premium_indication_pct,
    )


@activity.defn
async def fail_pricing_run(run: PriceCoverageInput, error: str) -> None:
    await pricing_db.mark_run(run.coverage_id, run.version, PricingRunStatus.FAILED, error)
